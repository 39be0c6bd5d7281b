# Runs wordcount on a generated text with unicode, empty lines, tabs, carriage returns and very
# long lines, and compares its output with `tr -s '[:space:]' '\n' | sort | uniq -c` (C locale).
# Arguments: WORDCOUNT (binary), WORKERS, WORKDIR.
file(MAKE_DIRECTORY "${WORKDIR}")
set(text "${WORKDIR}/input.txt")
string(REPEAT "alpha beta\tgamma " 20000 long_line)
string(REPEAT "x" 100000 long_word)
file(WRITE "${text}" "  leading spaces and    runs of spaces\n\n\nnaïve café naïve Straße straße 東京 東京\n")
file(APPEND "${text}" "${long_line}\n\r\nwindows line\r\n\ttabbed\tline\t\n\v\fvertical feed\n")
file(APPEND "${text}" "${long_word} ${long_word}\n")
foreach(i RANGE 1 3000)
  math(EXPR m "${i} % 17")
  file(APPEND "${text}" "line ${i} word${m} the the\n")
endforeach()
file(APPEND "${text}" "no trailing newline")

execute_process(COMMAND "${WORDCOUNT}" "${text}" -w ${WORKERS}
  OUTPUT_FILE "${WORKDIR}/ours.txt" ERROR_VARIABLE summary RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "wordcount failed (${rc}): ${summary}")
endif()
execute_process(COMMAND sh -c "LC_ALL=C sort '${WORKDIR}/ours.txt' > '${WORKDIR}/ours.sorted' && \
  tr -s '[:space:]' '\\n' < '${text}' | LC_ALL=C sort | LC_ALL=C uniq -c | \
  awk '$2 != \"\" { print $2 \" \" $1 }' | LC_ALL=C sort > '${WORKDIR}/expected.sorted' && \
  cmp '${WORKDIR}/ours.sorted' '${WORKDIR}/expected.sorted'" RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "wordcount -w ${WORKERS} differs from the sequential count; see ${WORKDIR}")
endif()
if(NOT summary MATCHES "words/s")
  message(FATAL_ERROR "wordcount printed no summary: ${summary}")
endif()
message(STATUS "wordcount -w ${WORKERS} matches: ${summary}")
