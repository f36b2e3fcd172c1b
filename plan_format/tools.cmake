# plan_format/tools.cmake — the command-line tools that link relay_exec
# only (relay-dump, relay-run; relay-plan lives in planner/), and relay_cli,
# the helpers all three share.  Included from executor/CMakeLists.txt once
# relay_exec exists.
add_library(relay_cli STATIC
    ${CMAKE_CURRENT_LIST_DIR}/cli_util.c
    ${CMAKE_CURRENT_LIST_DIR}/json_out.c)
target_include_directories(relay_cli PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(relay_cli PUBLIC relay_exec)

add_executable(relay-dump
    ${CMAKE_CURRENT_LIST_DIR}/relay_dump.c
    ${CMAKE_CURRENT_LIST_DIR}/dump_steps.c
    ${CMAKE_CURRENT_LIST_DIR}/dump_bmmc.c
    ${CMAKE_CURRENT_LIST_DIR}/dump_hsumma.c
    ${CMAKE_CURRENT_LIST_DIR}/dump_json.c
    ${CMAKE_CURRENT_LIST_DIR}/volume_svg.c)
target_link_libraries(relay-dump PRIVATE relay_cli relay_exec m)

add_executable(relay-run ${PROJECT_SOURCE_DIR}/executor/relay_run_cli.c ${PROJECT_SOURCE_DIR}/executor/run_bmmc.c
    ${PROJECT_SOURCE_DIR}/executor/run_hsumma.c)
target_link_libraries(relay-run PRIVATE relay_cli relay_exec MPI::MPI_C m)

install(TARGETS relay-dump relay-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
