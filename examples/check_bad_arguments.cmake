# Bad arguments give a clear message and a non-zero exit, before any work starts; --help works.
# Arguments: EXCHANGE, WORDCOUNT, HELLO (binaries).
include(${CMAKE_CURRENT_LIST_DIR}/expect_failure.cmake)

expect_failure(2 "workers" ${EXCHANGE} 10 10 -w 0)
expect_failure(2 "whole number of workers" ${EXCHANGE} 10 10 -w abc)
expect_failure(2 "cannot read hostfile 'no-such-hosts.txt'" ${EXCHANGE} 10 10 -n 2 -p 0 -h no-such-hosts.txt)
expect_failure(2 "process index -p 2 must be less than the number of processes -n 2" ${EXCHANGE} 10 10 -n 2 -p 2)
expect_failure(2 "number of processes" ${EXCHANGE} 10 10 -n 0)
expect_failure(2 "--workers needs a value .UINT:N. after it" ${EXCHANGE} 10 10 -w)
expect_failure(2 "--workers is given 2 times. give it once" ${EXCHANGE} 10 10 -w 2 -w 3)
expect_failure(2 "unknown option --bogus" ${EXCHANGE} 10 10 --bogus)
expect_failure(2 "BATCH" ${EXCHANGE} ten 10)
expect_failure(2 "BATCH and ROUNDS. got 1 positional argument: '10'" ${EXCHANGE} 10)
expect_failure(2 "got 3 positional arguments: '10' '10' 'extra'" ${EXCHANGE} 10 10 extra)
expect_failure(2 "expected at most one FILE. got 2 positional arguments" ${WORDCOUNT} a.txt b.txt)
expect_failure(2 "progress-mode" ${EXCHANGE} 10 10 --progress-mode sometimes)
expect_failure(1 "cannot open '/nonexistent/file.txt'" ${WORDCOUNT} /nonexistent/file.txt -w 2)
expect_failure(1 "is not a regular file" ${WORDCOUNT} /tmp -w 2)
expect_failure(0 "usage: exchange" ${EXCHANGE} --help)
expect_failure(2 "--strings given twice" ${EXCHANGE} 10 10 --strings --strings)
expect_failure(2 "--batches needs --columnar" ${EXCHANGE} 10 10 --strings --batches)
# hello is timely::run's: its messages and --help are the library's.
expect_failure(2 "^hello: timely: bad worker arguments: unexpected argument 'foo'" ${HELLO} foo)
expect_failure(2 "^hello: timely: bad worker arguments: unknown option --bogus" ${HELLO} --bogus)
execute_process(COMMAND ${HELLO} --help OUTPUT_VARIABLE help ERROR_VARIABLE help_err RESULT_VARIABLE rc TIMEOUT 30)
if(NOT rc EQUAL 0 OR NOT help_err STREQUAL "" OR NOT help MATCHES "Usage: [^\n]*hello.*--workers")
  message(FATAL_ERROR "`hello --help` exited with ${rc} and printed: ${help}${help_err}")
endif()
# One usage line: ours, then the example's own arguments, then the worker options (CLI11's own
# "Usage:" line is left out).
execute_process(COMMAND ${EXCHANGE} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc TIMEOUT 30)
if(NOT rc EQUAL 0 OR help MATCHES "Usage:" OR
   NOT help MATCHES "\nArguments:\n.*--columnar +carry the records in columnar batches.*Worker Options:.*--workers")
  message(FATAL_ERROR "`exchange --help` exited with ${rc} and printed: ${help}")
endif()
expect_failure(2 "BATCH is too large: .99999999999999999999999. .at most 18446744073709551615." ${EXCHANGE} 99999999999999999999999 1)
