# Runs a book listing and compares its standard output with the expected output, exactly.
#   cmake -DPROGRAM=<exe> -DWORKERS=<n> -DEXPECTED=<file> -P check_output.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var PROGRAM WORKERS EXPECTED)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_output.cmake: ${var} is not set")
  endif()
endforeach()

execute_process(COMMAND ${PROGRAM} -w ${WORKERS}
  OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT 50)
if(NOT status STREQUAL "0")
  message(NOTICE "--- stdout ---\n${actual}--- stderr ---\n${errors}")
  message(FATAL_ERROR "${PROGRAM} -w ${WORKERS} failed (${status})")
endif()
file(READ ${EXPECTED} expected)
if(NOT actual STREQUAL expected)
  # Plain messages keep the outputs' line breaks as they are.
  message(NOTICE "--- expected (${EXPECTED}) ---\n${expected}--- actual ---\n${actual}--- stderr ---\n${errors}")
  message(FATAL_ERROR "${PROGRAM} -w ${WORKERS}: output differs from ${EXPECTED} (shown above)")
endif()
message(STATUS "${PROGRAM} -w ${WORKERS}: output matches ${EXPECTED}")
