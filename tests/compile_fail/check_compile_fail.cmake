# Compiles one source file that must NOT compile and checks how it fails: the compiler must exit
# non-zero, its first `error:` line must match the regex given in the file's
#   // expect-error: <regex>
# comment, and, if the file says `// expect-errors: N`, it must report exactly N errors (so a
# misuse gives one readable error, not a cascade).
# Arguments: COMPILER, SOURCE, INCLUDE_DIR, FLAGS (a ;-list).
cmake_minimum_required(VERSION 3.25)
foreach(var COMPILER SOURCE INCLUDE_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_compile_fail.cmake: ${var} is not set")
  endif()
endforeach()

file(STRINGS "${SOURCE}" expect_lines REGEX "^// expect-error: ")
if(NOT expect_lines)
  message(FATAL_ERROR "${SOURCE} has no '// expect-error: <regex>' line")
endif()
list(GET expect_lines 0 expect)
string(REGEX REPLACE "^// expect-error: " "" expect "${expect}")
file(STRINGS "${SOURCE}" count_lines REGEX "^// expect-errors: [0-9]+$")
set(expected_count "")
if(count_lines)
  list(GET count_lines 0 expected_count)
  string(REGEX REPLACE "^// expect-errors: " "" expected_count "${expected_count}")
endif()

execute_process(COMMAND "${COMPILER}" -std=c++20 -fsyntax-only -fdiagnostics-color=never ${FLAGS}
                        "-I${INCLUDE_DIR}" "${SOURCE}"
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
string(APPEND err "${out}")
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but must not")
endif()

# Diagnostics are one per line; find the error lines.
string(REPLACE ";" "\\;" err_escaped "${err}")
string(REPLACE "\n" ";" lines "${err_escaped}")
set(errors "")
foreach(line IN LISTS lines)
  if(line MATCHES "(^|: )(fatal )?error: ")
    list(APPEND errors "${line}")
  endif()
endforeach()
list(LENGTH errors count)
string(LENGTH "${err}" chars)
string(REGEX MATCHALL "\n" newlines "${err}")
list(LENGTH newlines line_count)
if(count EQUAL 0)
  message(FATAL_ERROR "${SOURCE}: the compiler failed (exit ${rc}) without an error line:\n${err}")
endif()
list(GET errors 0 first)
if(NOT first MATCHES "${expect}")
  message(FATAL_ERROR "${SOURCE}: the first error does not match '${expect}':\n${first}\n\nfull output:\n${err}")
endif()
if(NOT expected_count STREQUAL "" AND NOT count EQUAL expected_count)
  message(FATAL_ERROR "${SOURCE}: ${count} errors, expected ${expected_count}:\n${err}")
endif()
message(STATUS "${SOURCE}: fails as expected (${count} error(s), ${line_count} lines of diagnostics): ${first}")
