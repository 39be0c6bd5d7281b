# Install rules for timely: the public headers, the libraries, the exported target set
# `timelyTargets` (namespace `timely::`) and the package files timelyConfig.cmake and
# timelyConfigVersion.cmake, so that other projects can use `find_package(timely)`.
# Included from the top-level CMakeLists.txt when TIMELY_INSTALL is ON.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TIMELY_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/timely"
  CACHE STRING "Where timely's CMake package files are installed (relative to the prefix)")
mark_as_advanced(TIMELY_INSTALL_CMAKEDIR)

# Inside the build the targets are called timely_<part>; installed, users see timely::<part>.
set_target_properties(timely_container PROPERTIES EXPORT_NAME container)
set_target_properties(timely_logging PROPERTIES EXPORT_NAME logging)
set_target_properties(timely_communication PROPERTIES EXPORT_NAME communication)
set_target_properties(timely_core PROPERTIES EXPORT_NAME core)
set_target_properties(timely PROPERTIES EXPORT_NAME timely)

# Headers: the whole include/timely tree (the targets' INSTALL_INTERFACE points at include/).
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/timely"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  COMPONENT timely_development)

install(TARGETS timely_container timely_logging timely_communication timely_core timely
  EXPORT timelyTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT timely_development
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT timely_runtime
          NAMELINK_COMPONENT timely_development
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT timely_runtime)

install(EXPORT timelyTargets
  NAMESPACE timely::
  FILE timelyTargets.cmake
  DESTINATION "${TIMELY_INSTALL_CMAKEDIR}"
  COMPONENT timely_development)

# The package files: the config finds timely's dependencies again, then loads the targets.
configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/timelyConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cmake/timelyConfig.cmake"
  INSTALL_DESTINATION "${TIMELY_INSTALL_CMAKEDIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/cmake/timelyConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMajorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/cmake/timelyConfig.cmake"
  "${PROJECT_BINARY_DIR}/cmake/timelyConfigVersion.cmake"
  DESTINATION "${TIMELY_INSTALL_CMAKEDIR}"
  COMPONENT timely_development)

install(FILES "${PROJECT_SOURCE_DIR}/LICENSE"
  DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/timely"
  COMPONENT timely_development)
