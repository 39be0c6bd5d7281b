# The version of timely, from project(VERSION) alone: the generated header timely/version.hpp
# (in <build>/include, on every library's include path and installed with the other headers)
# and the pkg-config file timely.pc (installed by TimelyInstall.cmake).
configure_file("${CMAKE_CURRENT_LIST_DIR}/version.hpp.in"
  "${PROJECT_BINARY_DIR}/include/timely/version.hpp" @ONLY)
target_include_directories(timely_container INTERFACE
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>)
