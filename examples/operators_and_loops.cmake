# The reference's examples of operators with state (distinct, hashjoin), of records and workers
# (rc: shared records that never leave their worker; threadless: a worker driven by hand), of
# scheduling (event_driven: idle operators cost nothing) and of loops (loopdemo, pingpong), with
# CTest smoke tests on 1 and 2 workers.
foreach(example distinct hashjoin threadless rc event_driven loopdemo pingpong)
  add_executable(${example} ${example}.cpp)
  target_link_libraries(${example} PRIVATE timely::timely timely_warnings)
endforeach()

if(TIMELY_BUILD_TESTS)
  foreach(workers 1 2)
    add_test(NAME example:distinct:w${workers} COMMAND distinct -w ${workers})
    add_test(NAME example:hashjoin:w${workers} COMMAND hashjoin 1000 20000 1000 -w ${workers})
    set_tests_properties(example:hashjoin:w${workers} PROPERTIES PASS_REGULAR_EXPRESSION "hashjoin: [0-9]+ matches")
    add_test(NAME example:pingpong:w${workers} COMMAND pingpong 1000 10 -w ${workers})
    set_tests_properties(example:pingpong:w${workers} PROPERTIES PASS_REGULAR_EXPRESSION "1000 rounds" LABELS example)
    add_test(NAME example:rc:w${workers} COMMAND rc -w ${workers})
    set_tests_properties(example:rc:w${workers} PROPERTIES PASS_REGULAR_EXPRESSION "hello 9")
    add_test(NAME example:event_driven:w${workers} COMMAND event_driven 10 5 record --rounds 1000 -w ${workers})
    set_tests_properties(example:event_driven:w${workers} PROPERTIES PASS_REGULAR_EXPRESSION "round 1000 complete")
    add_test(NAME example:loopdemo:w${workers} COMMAND loopdemo 20000 1 -w ${workers})
    set_tests_properties(example:loopdemo:w${workers} PROPERTIES TIMEOUT 60)
    set_tests_properties(example:distinct:w${workers} example:hashjoin:w${workers} example:rc:w${workers}
                         example:event_driven:w${workers} example:loopdemo:w${workers} PROPERTIES LABELS example)
  endforeach()
  add_test(NAME example:threadless COMMAND threadless)
  set_tests_properties(example:threadless PROPERTIES PASS_REGULAR_EXPRESSION "9" LABELS example)
  # distinct prints each distinct value exactly once over all workers.
  set_tests_properties(example:distinct:w2 PROPERTIES PASS_REGULAR_EXPRESSION "value 7")
endif()
