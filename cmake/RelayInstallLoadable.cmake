# RelayInstallLoadable.cmake — the last step of `cmake --install`: makes the
# installed shared libraries loadable by the programs people link against
# them, wherever the prefix is.
#
# relay's own programs and libraries find each other through their $ORIGIN
# rpath; a user's program linked with `pkg-config --libs relay-fortran` (or
# -lrelay_scalapack_dropin ahead of ScaLAPACK) finds them only where the
# dynamic loader looks.  So:
# - a libdir the loader searches (a trusted directory such as /usr/lib, or
#   one of /etc/ld.so.conf, such as /usr/local/lib on Debian): its cache is
#   refreshed with ldconfig, as a package's install would.  Staged installs
#   (DESTDIR) leave that to the package; where ldconfig fails (not root),
#   the .pc files get the rpath below instead, with a warning;
# - any other libdir: the .pc files' Libs carry -Wl,-rpath to it.
#
# Run in the install's context (CMAKE_INSTALL_PREFIX is the prefix given to
# `cmake --install --prefix`), after relay_pc_templates (a folder of .pc.in
# files configured at build time, @relay_pc_rpath@ left in them),
# relay_pc_names (their names) and relay_libdir (CMAKE_INSTALL_LIBDIR) are set.

# Whether the dynamic loader searches dir without being told: dir, symbolic
# links resolved, among the folders `ldconfig -v` lists (which names one of
# two that are the same folder, e.g. /lib for /usr/lib on merged-/usr systems).
function(relay_loader_searches out dir)
  set(${out} FALSE PARENT_SCOPE)
  find_program(ldconfig ldconfig PATHS /sbin /usr/sbin NO_CACHE)
  if(NOT ldconfig)
    return()
  endif()
  execute_process(COMMAND ${ldconfig} -v -N -X OUTPUT_VARIABLE listing ERROR_QUIET RESULT_VARIABLE rc)
  string(REGEX MATCHALL "(^|\n)/[^:\n]*:" folders "${listing}")
  file(REAL_PATH "${dir}" wanted)
  foreach(folder IN LISTS folders)
    string(REGEX REPLACE "^\n?(.*):$" "\\1" folder "${folder}")
    file(REAL_PATH "${folder}" real)
    if(real STREQUAL wanted)
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# Refreshes the loader's cache: TRUE in out if it worked.
function(relay_refresh_loader_cache out)
  find_program(ldconfig ldconfig PATHS /sbin /usr/sbin NO_CACHE)
  execute_process(COMMAND ${ldconfig} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc EQUAL 0)
    set(${out} TRUE PARENT_SCOPE)
  else()
    message(WARNING "relay: ldconfig failed (${rc}: ${err}); programs linked with relay's pkg-config files get an rpath "
                    "instead, and others need `ldconfig` run as root")
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

if(IS_ABSOLUTE "${relay_libdir}")
  set(libdir "${relay_libdir}")
else()
  set(libdir "${CMAKE_INSTALL_PREFIX}/${relay_libdir}")
endif()
relay_loader_searches(searched "${libdir}")
set(relay_pc_rpath " -Wl,-rpath,\${libdir}")
if(searched AND "$ENV{DESTDIR}" STREQUAL "")
  relay_refresh_loader_cache(refreshed)
  if(refreshed)
    set(relay_pc_rpath "")
    message(STATUS "relay: ${libdir} is searched by the dynamic loader; its cache refreshed (ldconfig)")
  endif()
elseif(searched)
  set(relay_pc_rpath "")
  message(STATUS "relay: staged in DESTDIR; run ldconfig where ${libdir} is installed (a package's install does)")
endif()

foreach(name IN LISTS relay_pc_names)
  configure_file("${relay_pc_templates}/${name}.pc.in" "${relay_pc_templates}/installed/${name}.pc" @ONLY)
  file(INSTALL DESTINATION "${libdir}/pkgconfig" TYPE FILE FILES "${relay_pc_templates}/installed/${name}.pc")
endforeach()
