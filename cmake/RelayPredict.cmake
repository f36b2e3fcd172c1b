# RelayPredict.cmake — SimGrid for predict/ (relay_predict, relay-dump
# --predict).  Optional: Debian's libsimgrid-dev ships a pkg-config file
# (simgrid.pc) and no CMake package.  RELAY_PREDICT is ON where SimGrid is
# found and the build is not sanitized; elsewhere relay_predict is not built
# and relay-dump --predict says it was built without SimGrid.
#
# Not under the sanitizers: SimGrid switches between its actors' stacks
# (its raw contexts), which AddressSanitizer cannot follow without a
# SimGrid built for it, and its uninstrumented library then reports stack
# buffer overflows that are not there.
pkg_check_modules(SIMGRID QUIET IMPORTED_TARGET simgrid)
if(SIMGRID_FOUND AND NOT RELAY_SANITIZE)
  set(RELAY_PREDICT ON)
  message(STATUS "SimGrid ${SIMGRID_VERSION}: relay_predict and relay-dump --predict")
else()
  set(RELAY_PREDICT OFF)
  message(STATUS "relay_predict not built (SimGrid ${SIMGRID_FOUND}, sanitizers ${RELAY_SANITIZE})")
endif()
