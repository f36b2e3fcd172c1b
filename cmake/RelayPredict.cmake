# RelayPredict.cmake — SimGrid for predict/ (relay_predict, relay-dump
# --predict).  Optional: Debian's libsimgrid-dev ships a pkg-config file
# (simgrid.pc) and no CMake package.  RELAY_PREDICT is ON where SimGrid is
# found, RELAY_BUILD_PREDICT is ON (the default) and the build is not
# sanitized; elsewhere relay_predict is not built and relay-dump --predict
# says it was built without SimGrid.
#
# Not under the sanitizers: SimGrid runs each actor on a stack of its own
# and switches between them (its raw contexts), which AddressSanitizer
# cannot follow; a sanitized SimGrid program here (Debian's SimGrid 3.32,
# gcc 12) starts with "ASan is ignoring requested __asan_handle_no_return
# ... False positive error reports may follow".  scripts/test.sh's
# sanitized builds therefore build neither relay_predict nor its tests.
# RELAY_BUILD_PREDICT=OFF leaves it out anywhere.
option(RELAY_BUILD_PREDICT "Build relay_predict and relay-dump --predict where SimGrid is found" ON)
if(RELAY_BUILD_PREDICT AND NOT RELAY_SANITIZE)
  pkg_check_modules(SIMGRID QUIET IMPORTED_TARGET simgrid)
endif()
if(SIMGRID_FOUND AND RELAY_BUILD_PREDICT AND NOT RELAY_SANITIZE)
  set(RELAY_PREDICT ON)
  message(STATUS "SimGrid ${SIMGRID_VERSION}: relay_predict and relay-dump --predict")
else()
  set(RELAY_PREDICT OFF)
  message(STATUS "relay_predict not built (SimGrid found: ${SIMGRID_FOUND}; RELAY_BUILD_PREDICT ${RELAY_BUILD_PREDICT}, RELAY_SANITIZE ${RELAY_SANITIZE})")
endif()
