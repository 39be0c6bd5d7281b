# Runs a book transcript (a shell script whose output a chapter shows) in an empty directory with
# the tools' directory first on PATH, and compares its standard output with the expected
# transcript, exactly.
#   cmake -DSCRIPT=<file.sh> -DTOOL_DIR=<dir> -DWORKDIR=<scratch dir> -DEXPECTED=<file> -P check_transcript.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var SCRIPT TOOL_DIR WORKDIR EXPECTED)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_transcript.cmake: ${var} is not set")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PATH=${TOOL_DIR}:$ENV{PATH}" sh "${SCRIPT}"
  WORKING_DIRECTORY "${WORKDIR}"
  OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT 50)
if(NOT status STREQUAL "0")
  message(NOTICE "--- stdout ---\n${actual}--- stderr ---\n${errors}")
  message(FATAL_ERROR "${SCRIPT} failed (${status})")
endif()
file(READ "${EXPECTED}" expected)
if(NOT actual STREQUAL expected)
  message(NOTICE "--- expected (${EXPECTED}) ---\n${expected}--- actual ---\n${actual}--- stderr ---\n${errors}")
  message(FATAL_ERROR "${SCRIPT}: output differs from ${EXPECTED} (shown above)")
endif()
message(STATUS "${SCRIPT}: output matches ${EXPECTED}")
