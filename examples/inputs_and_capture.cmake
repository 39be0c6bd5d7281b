# The reference's examples of feeding a dataflow: the Sequencer (sequence), capability-driven
# input (unordered_input), open-loop input (openloop), input paced by a probe (flow_controlled),
# and capture and replay between processes (capture_send, capture_recv), plus CTest smoke tests
# on 1 and 2 workers that check what they compute, a capture_send -> capture_recv round trip
# over TCP, and their bad arguments.
foreach(example sequence unordered_input openloop flow_controlled capture_send capture_recv logging_send
        logging_recv)
  add_executable(${example} ${example}.cpp)
  target_link_libraries(${example} PRIVATE timely::timely timely_warnings)
endforeach()
# The capture examples talk TCP through Boost.Asio (header-only; examples may name it, the
# library's public headers may not).
foreach(example capture_send capture_recv logging_recv)
  target_link_libraries(${example} PRIVATE Boost::headers Threads::Threads)
endforeach()

if(TIMELY_BUILD_TESTS)
  foreach(workers 1 2)
    # Every worker must see every pushed element, in one and the same order.
    math(EXPR elements "3 * ${workers}")
    add_test(NAME example:sequence:w${workers} COMMAND sequence 3 20 -w ${workers})
    set_tests_properties(example:sequence:w${workers} PROPERTIES
      PASS_REGULAR_EXPRESSION "all ${workers} workers received the same ${elements} elements in the same order"
      TIMEOUT 60)
    # Each worker sends 0..9 at times 0..9 and sees its own batches.
    add_test(NAME example:unordered_input:w${workers} COMMAND unordered_input -w ${workers})
    set_tests_properties(example:unordered_input:w${workers} PROPERTIES
      PASS_REGULAR_EXPRESSION "9 -> \\[9\\].*saw 10 records, sum 45; the stream is complete")
    # All RATE x SECONDS offered records reach the dataflow; latency lines come first.
    add_test(NAME example:openloop:w${workers} COMMAND openloop 20000 1 -w ${workers})
    set_tests_properties(example:openloop:w${workers} PROPERTIES
      PASS_REGULAR_EXPRESSION "[0-9]+\t[01]\\.[0-9]+\n.*openloop: 20000 of 20000 records offered" TIMEOUT 60)
    # Every worker reads 0..9999; the probe keeps at most one time (100 records) plus one batch of
    # 10 in flight per worker, far below the 10000 an uncontrolled source would send at once.
    add_test(NAME example:flow_controlled:w${workers} COMMAND flow_controlled 10000 -w ${workers})
    set_tests_properties(example:flow_controlled:w${workers} PROPERTIES
      PASS_REGULAR_EXPRESSION "10000 records, sum 49995000, at most ([0-9]|[1-9][0-9]|10[0-9]|110) in flight"
      FAIL_REGULAR_EXPRESSION "at most (11[1-9]|1[2-9][0-9]|[2-9][0-9][0-9]|[0-9][0-9][0-9][0-9]+) in flight"
      TIMEOUT 60)
    # capture_send on `workers` workers into capture_recv on `workers` workers, over TCP.
    add_test(NAME example:capture:w${workers}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_capture.sh $<TARGET_FILE:capture_send>
              $<TARGET_FILE:capture_recv> ${workers} ${workers} ${CMAKE_CURRENT_BINARY_DIR}/capture-w${workers})
    set_tests_properties(example:capture:w${workers} PROPERTIES TIMEOUT 120)
  endforeach()
  # logging_send's timely logs, on 1 and 2 workers, analysed by logging_recv on 2 and 1.
  foreach(pair "1;2" "2;1")
    list(GET pair 0 send_workers)
    list(GET pair 1 recv_workers)
    add_test(NAME example:logging:${send_workers}to${recv_workers}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_logging.sh $<TARGET_FILE:logging_send>
              $<TARGET_FILE:logging_recv> ${send_workers} ${recv_workers}
              ${CMAKE_CURRENT_BINARY_DIR}/logging-${send_workers}to${recv_workers})
    set_tests_properties(example:logging:${send_workers}to${recv_workers} PROPERTIES TIMEOUT 120 LABELS example)
  endforeach()
  # Two captured streams replayed by one worker.
  add_test(NAME example:capture:2to1
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_capture.sh $<TARGET_FILE:capture_send>
            $<TARGET_FILE:capture_recv> 2 1 ${CMAKE_CURRENT_BINARY_DIR}/capture-2to1)
  set_tests_properties(example:capture:2to1 PROPERTIES TIMEOUT 120)
  add_test(NAME example:inputs-bad-arguments
    COMMAND ${CMAKE_COMMAND} -DSEQUENCE=$<TARGET_FILE:sequence> -DUNORDERED_INPUT=$<TARGET_FILE:unordered_input>
            -DOPENLOOP=$<TARGET_FILE:openloop> -DFLOW_CONTROLLED=$<TARGET_FILE:flow_controlled>
            -DCAPTURE_SEND=$<TARGET_FILE:capture_send> -DCAPTURE_RECV=$<TARGET_FILE:capture_recv>
            -P ${CMAKE_CURRENT_SOURCE_DIR}/check_input_arguments.cmake)
  set_tests_properties(
    example:sequence:w1 example:sequence:w2 example:unordered_input:w1 example:unordered_input:w2
    example:openloop:w1 example:openloop:w2 example:flow_controlled:w1 example:flow_controlled:w2
    example:capture:w1 example:capture:w2 example:capture:2to1 example:inputs-bad-arguments
    PROPERTIES LABELS example)
endif()
