# Bad arguments of sequence, unordered_input, openloop, flow_controlled, capture_send and
# capture_recv: a clear message and a non-zero exit, before any work starts; --help works.
# Arguments: SEQUENCE, UNORDERED_INPUT, OPENLOOP, FLOW_CONTROLLED, CAPTURE_SEND, CAPTURE_RECV.
include(${CMAKE_CURRENT_LIST_DIR}/expect_failure.cmake)

expect_failure(2 "ROUNDS" ${SEQUENCE} many)
expect_failure(2 "at most ROUNDS and PERIOD_MS" ${SEQUENCE} 1 2 3)
expect_failure(2 "PERIOD_MS must be at most" ${SEQUENCE} 1 99999999999)
expect_failure(2 "unexpected argument 'extra'" ${UNORDERED_INPUT} extra)
expect_failure(2 "workers" ${UNORDERED_INPUT} -w 0)
expect_failure(2 "RATE and SECONDS" ${OPENLOOP} 1000)
expect_failure(2 "RATE must be between" ${OPENLOOP} 0 1)
expect_failure(2 "SECONDS" ${OPENLOOP} 1000 1.5)
expect_failure(2 "RECORDS" ${FLOW_CONTROLLED} lots)
expect_failure(2 "at most RECORDS" ${FLOW_CONTROLLED} 1 2)
expect_failure(2 "HOST:PORT" ${CAPTURE_SEND} localhost)
expect_failure(2 "not an IP address" ${CAPTURE_SEND} nohost.invalid:8000)
expect_failure(2 "PORT must be between 1 and 65535" ${CAPTURE_SEND} 127.0.0.1:70000)
expect_failure(2 "do not all exist" ${CAPTURE_SEND} 127.0.0.1:65535 -w 2)
expect_failure(2 "SOURCE_PEERS" ${CAPTURE_RECV})
expect_failure(2 "SOURCE_PEERS must be between" ${CAPTURE_RECV} 0)
expect_failure(2 "PORT" ${CAPTURE_RECV} 2 127.0.0.1:port)
expect_failure(0 "usage: capture_recv" ${CAPTURE_RECV} --help)
expect_failure(0 "usage: flow_controlled" ${FLOW_CONTROLLED} --help)
