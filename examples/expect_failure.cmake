# expect_failure(RC PATTERN COMMAND...): runs COMMAND (at most 30 s) and fails the calling
# `cmake -P` script unless it exits with status RC and prints (stdout or stderr) a match of the
# regular expression PATTERN. Shared by the examples' bad-argument checks.
function(expect_failure expected_rc pattern)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 30)
  if(NOT rc EQUAL expected_rc)
    message(FATAL_ERROR "`${ARGN}` exited with ${rc}, expected ${expected_rc}: ${out}${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${pattern}")
    message(FATAL_ERROR "`${ARGN}` printed no '${pattern}': ${out}${err}")
  endif()
endfunction()
