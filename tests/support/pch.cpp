// The source that builds the tests' shared precompiled header (see tests/CMakeLists.txt). The
// program it makes runs Catch2's main with no test cases; nothing runs it.
