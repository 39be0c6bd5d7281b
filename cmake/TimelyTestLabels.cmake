# tests-LABEL targets: each builds what the tests of one CTest label run, and nothing else, so
# that `scripts/test.sh unit LABEL` (or `cmake --build --preset dev --target tests-LABEL` and
# `ctest --preset dev -L LABEL`) serves one change without building the whole tree.
#
# The test binaries of tests/ add themselves (timely_add_test, per the label of their prefix);
# the tests that run programs (examples, tools, benchmarks, listings) are mapped here, label by
# label, from the directories that define those programs. Included by the top-level
# CMakeLists.txt after every directory was added. A test given a new label needs its line here:
# scripts/test.sh unit LABEL fails on a label that has no target.

# _timely_targets_in(OUT DIR...): the executables that DIR... define (only existing directories).
function(_timely_targets_in out)
  set(found)
  foreach(dir IN LISTS ARGN)
    if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} AND EXISTS ${PROJECT_BINARY_DIR}/${dir})
      get_property(targets DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} PROPERTY BUILDSYSTEM_TARGETS)
      foreach(t IN LISTS targets)
        get_target_property(type ${t} TYPE)
        if(type STREQUAL "EXECUTABLE")
          list(APPEND found ${t})
        endif()
      endforeach()
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# _timely_existing(OUT NAME...): those of NAME... that are targets in this configuration.
function(_timely_existing out)
  set(found)
  foreach(t IN LISTS ARGN)
    if(TARGET ${t})
      list(APPEND found ${t})
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

_timely_targets_in(_examples examples)
_timely_existing(_tools timely-run timely-log timely-report)
_timely_existing(_libraries timely_core timely_streaming timely_durable)
_timely_targets_in(_benches benches benches/micro benches/workloads benches/durable)
_timely_targets_in(_book book)
_timely_targets_in(_net tests/net)
_timely_targets_in(_report tests/report)
_timely_existing(_durable_programs durable_child timely-log logflow)

timely_label_targets(example ${_examples})
timely_label_targets(net ${_examples} ${_net} ${_tools})
timely_label_targets(launchers ${_examples} ${_tools})
timely_label_targets(report ${_report} ${_examples} ${_tools})
timely_label_targets(browser ${_report} ${_examples} ${_tools})
timely_label_targets(observe ${_examples})
timely_label_targets(durable ${_durable_programs})
timely_label_targets(book ${_book} ${_tools})
timely_label_targets(bench ${_benches} ${_examples} ${_tools})
# The packaging tests install this build tree (its libraries and tools) and build consumers.
timely_label_targets(packaging ${_libraries} ${_tools})
timely_label_targets(slow ${_libraries} ${_tools})
# These compile their own sources with the compiler: nothing of the tree to build first.
timely_label_targets(compile_fail)
timely_label_targets(headers)  # the layering check; with TIMELY_CHECK_HEADERS, timely_headers

get_property(_labels GLOBAL PROPERTY TIMELY_TEST_LABELS)
list(REMOVE_DUPLICATES _labels)
foreach(_label IN LISTS _labels)
  get_property(_targets GLOBAL PROPERTY TIMELY_LABEL_TARGETS_${_label})
  list(REMOVE_DUPLICATES _targets)
  add_custom_target(tests-${_label})
  if(_targets)
    add_dependencies(tests-${_label} ${_targets})
  endif()
endforeach()
