# The graph examples (bfs, pagerank, unionfind), named and argued like the reference's, plus CTest
# smoke tests on small random graphs with 1 and 2 workers. Real graphs: scripts/fetch-graphs.sh,
# then e.g. `bfs --graph data/power.edges --undirected`; tests/conformance/graphs_test.cpp checks them against
# sequential implementations.
foreach(example bfs pagerank unionfind)
  add_executable(${example} ${example}.cpp)
  target_link_libraries(${example} PRIVATE timely::timely timely_warnings)
  target_include_directories(${example} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
endforeach()

if(TIMELY_BUILD_TESTS)
  # The random graphs are the same for every worker count, and so are the answers. (The output
  # checked is stdout and stderr together; stdout comes first.)
  foreach(workers 1 2)
    add_test(NAME example:bfs:w${workers} COMMAND bfs 1000 5000 -w ${workers})
    set_tests_properties(example:bfs:w${workers} PROPERTIES
      PASS_REGULAR_EXPRESSION "level 0: 1\nlevel 1: 1\nlevel 2: 5\nlevel 3: 26\nlevel 4: 132\nlevel 5: 410\nlevel 6: 361\nlevel 7: 54\nlevel 8: 2\n" LABELS example)
    # Incremental PageRank: the first rounds and the last (tests/conformance has the whole).
    add_test(NAME example:pagerank:w${workers} COMMAND pagerank 1000 5000 --rounds 5 -w ${workers})
    set_tests_properties(example:pagerank:w${workers} PROPERTIES
      PASS_REGULAR_EXPRESSION "^1\t992\t831480\t2540\n2\t992\t692916\t2531\n.*\n53\t8\t8\t1\npagerank: " LABELS example)
    add_test(NAME example:unionfind:w${workers} COMMAND unionfind 1000 1000 100 -w ${workers})
    set_tests_properties(example:unionfind:w${workers} PROPERTIES
      PASS_REGULAR_EXPRESSION "components: 167\n" LABELS example)
  endforeach()
endif()
