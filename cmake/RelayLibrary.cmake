# RelayLibrary.cmake — how relay's libraries are put together.
#
# Each library folder compiles its sources once, as an OBJECT library
# (relay_format_objects, relay_executor_objects, relay_planner_objects),
# with hidden symbol visibility.  From those objects:
#   relay_library(NAME EXPORT_NAME OBJECTS...) makes
#     NAME           the installed library (shared by default): the public
#                    headers, relay_* exported, internals hidden;
#     NAME_internal  a static archive of the same objects whose usage
#                    requirements include the internal headers, for the
#                    tools, tests and benchmarks that need internals.
# relay_exec holds plan_format + executor; relay, the umbrella, holds those
# and the planner, so `-lrelay` alone links any program of the public API.

function(relay_library name export_name)
  set(objects)
  foreach(lib IN LISTS ARGN)
    list(APPEND objects $<TARGET_OBJECTS:${lib}>)
  endforeach()
  add_library(${name} ${objects})
  add_library(relay::${export_name} ALIAS ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${export_name} VERSION ${PROJECT_VERSION}
                        SOVERSION ${PROJECT_VERSION_MAJOR})
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                            $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${name} PUBLIC MPI::MPI_C PRIVATE OpenMP::OpenMP_C PkgConfig::MSGPACK PkgConfig::XXHASH
                        PkgConfig::OPENBLAS m)
  if(RELAY_CUDA)
    target_link_libraries(${name} PRIVATE ${RELAY_CUDART} ${CMAKE_DL_LIBS})
  endif()

  # Linking the object libraries directly puts their objects in the archive
  # and passes on their include directories and dependencies.
  add_library(${name}_internal STATIC)
  target_link_libraries(${name}_internal PUBLIC ${ARGN})
endfunction()
