# Driver script for timely's packaging tests, run as `cmake -D... -P run_consumer.cmake`.
# Every step runs with execute_process; the first failing step ends the script with a message
# saying which step failed and what it printed.
#
# ACTION=install   install a timely build tree into a fresh prefix.
#   BUILD_DIR      the timely build tree to install
#   PREFIX         the prefix to (re)create
#   CONFIG         configuration to install (may be empty for single-config generators)
#   EXPECT_FILE    a file, relative to PREFIX, that must exist afterwards
#
# ACTION=consumer  configure, build and run a consumer project, then check what it printed.
#   SOURCE_DIR     the consumer's source tree
#   BINARY_DIR     its build tree (deleted first, so every run starts clean)
#   INITIAL_CACHE  a `cmake -C` script with the settings to forward (compiler, flags, paths)
#   GENERATOR      the CMake generator; GENERATOR_PLATFORM, GENERATOR_TOOLSET optional
#   CONFIG         configuration to build (may be empty for single-config generators)
#   PROGRAM        name of the executable target to run
#   EXPECT         regular expression the program's standard output must match
#   CONFIGURE_ONLY if ON, stop after the configure step (its checks are the consumer's own)
cmake_minimum_required(VERSION 3.25)

function(require_vars)
  foreach(var IN LISTS ARGN)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required for ACTION=${ACTION}")
    endif()
  endforeach()
endfunction()

# run_step(<description> COMMAND <args...>): runs one command, fails loudly if it fails.
# Leaves its standard output in STEP_OUTPUT in the caller's scope.
function(run_step description)
  cmake_parse_arguments(PARSE_ARGV 1 step "" "TIMEOUT" "COMMAND")
  if(NOT step_TIMEOUT)
    set(step_TIMEOUT 1800)
  endif()
  list(JOIN step_COMMAND " " shown)
  message(STATUS "[packaging] ${description}: ${shown}")
  execute_process(COMMAND ${step_COMMAND}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err
    TIMEOUT ${step_TIMEOUT})
  if(NOT result EQUAL 0)
    message(FATAL_ERROR
      "[packaging] step '${description}' failed (result: ${result})\n"
      "command: ${shown}\n"
      "--- stdout ---\n${out}\n--- stderr ---\n${err}")
  endif()
  set(STEP_OUTPUT "${out}" PARENT_SCOPE)
  set(STEP_ERROR "${err}" PARENT_SCOPE)
endfunction()

set(config_args)
if(NOT "${CONFIG}" STREQUAL "")
  set(config_args --config "${CONFIG}")
endif()

if(ACTION STREQUAL "install")
  require_vars(BUILD_DIR PREFIX EXPECT_FILE)
  file(REMOVE_RECURSE "${PREFIX}")
  run_step("install timely" COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
           ${config_args})
  if(NOT EXISTS "${PREFIX}/${EXPECT_FILE}")
    message(FATAL_ERROR "[packaging] the install into ${PREFIX} did not produce ${EXPECT_FILE}")
  endif()
  message(STATUS "[packaging] timely installed into ${PREFIX}")

elseif(ACTION STREQUAL "consumer")
  require_vars(SOURCE_DIR BINARY_DIR INITIAL_CACHE GENERATOR PROGRAM EXPECT)
  file(REMOVE_RECURSE "${BINARY_DIR}")

  set(generator_args -G "${GENERATOR}")
  if(NOT "${GENERATOR_PLATFORM}" STREQUAL "")
    list(APPEND generator_args -A "${GENERATOR_PLATFORM}")
  endif()
  if(NOT "${GENERATOR_TOOLSET}" STREQUAL "")
    list(APPEND generator_args -T "${GENERATOR_TOOLSET}")
  endif()

  run_step("configure consumer" COMMAND "${CMAKE_COMMAND}" ${generator_args} -C "${INITIAL_CACHE}"
           -S "${SOURCE_DIR}" -B "${BINARY_DIR}")
  message(STATUS "${STEP_OUTPUT}")
  if(CONFIGURE_ONLY)
    message(STATUS "[packaging] ${SOURCE_DIR} configured (CONFIGURE_ONLY: not built)")
    return()
  endif()
  run_step("build consumer" COMMAND "${CMAKE_COMMAND}" --build "${BINARY_DIR}" ${config_args})

  # Single-config generators put the program at the top of the build tree, multi-config ones
  # in a per-configuration folder.
  set(program "")
  foreach(candidate IN ITEMS "${BINARY_DIR}/${CONFIG}/${PROGRAM}${CMAKE_EXECUTABLE_SUFFIX}"
                             "${BINARY_DIR}/${PROGRAM}${CMAKE_EXECUTABLE_SUFFIX}"
                             "${BINARY_DIR}/${CONFIG}/${PROGRAM}.exe"
                             "${BINARY_DIR}/${PROGRAM}.exe")
    if(EXISTS "${candidate}" AND NOT IS_DIRECTORY "${candidate}")
      set(program "${candidate}")
      break()
    endif()
  endforeach()
  if(program STREQUAL "")
    message(FATAL_ERROR "[packaging] the build of ${SOURCE_DIR} produced no program '${PROGRAM}' in ${BINARY_DIR}")
  endif()

  run_step("run consumer" COMMAND "${program}" TIMEOUT 300)
  message(STATUS "[packaging] program output:\n${STEP_OUTPUT}${STEP_ERROR}")
  if(NOT STEP_OUTPUT MATCHES "${EXPECT}")
    message(FATAL_ERROR
      "[packaging] the output of ${program} does not match '${EXPECT}'\n"
      "--- stdout ---\n${STEP_OUTPUT}\n--- stderr ---\n${STEP_ERROR}")
  endif()
  message(STATUS "[packaging] ${PROGRAM} ran and printed what was expected")

else()
  message(FATAL_ERROR "run_consumer.cmake: ACTION must be 'install' or 'consumer' (got '${ACTION}')")
endif()
