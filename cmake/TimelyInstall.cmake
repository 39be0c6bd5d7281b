# Install rules for timely: the public headers (with the generated timely/version.hpp), the
# libraries, the exported target set `timelyTargets` (namespace `timely::`, target names from
# TimelyExport.cmake), the package files timelyConfig.cmake and timelyConfigVersion.cmake, so
# that other projects can use `find_package(timely)`, and the pkg-config file timely.pc.
# Included from the top-level CMakeLists.txt when TIMELY_INSTALL is ON (the default when timely
# is the top-level project).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TIMELY_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/timely"
  CACHE STRING "Where timely's CMake package files are installed (relative to the prefix)")
mark_as_advanced(TIMELY_INSTALL_CMAKEDIR)

# Headers: the whole include/timely tree (the targets' INSTALL_INTERFACE points at include/).
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/timely"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  COMPONENT timely_development)
install(FILES "${PROJECT_BINARY_DIR}/include/timely/version.hpp"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/timely"
  COMPONENT timely_development)

install(TARGETS ${TIMELY_EXPORTED_TARGETS}
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
install(FILES
  "${PROJECT_BINARY_DIR}/cmake/timelyConfig.cmake"
  "${PROJECT_BINARY_DIR}/timelyConfigVersion.cmake"  # written by TimelyExport.cmake
  DESTINATION "${TIMELY_INSTALL_CMAKEDIR}"
  COMPONENT timely_development)

# pkg-config: `pkg-config --cflags --libs timely`, for builds that do not use CMake.
set(TIMELY_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig"
  CACHE STRING "Where timely.pc is installed (relative to the prefix)")
mark_as_advanced(TIMELY_INSTALL_PKGCONFIGDIR)
file(RELATIVE_PATH TIMELY_PC_PREFIX_FROM_PCFILEDIR
  "/prefix/${TIMELY_INSTALL_PKGCONFIGDIR}" "/prefix")
string(REGEX REPLACE "/$" "" TIMELY_PC_PREFIX_FROM_PCFILEDIR "${TIMELY_PC_PREFIX_FROM_PCFILEDIR}")
# Boost is header-only here; name its include directory unless the compiler searches it anyway.
set(TIMELY_PC_EXTRA_CFLAGS "")
get_target_property(_timely_boost_includes Boost::headers INTERFACE_INCLUDE_DIRECTORIES)
foreach(dir IN LISTS _timely_boost_includes)
  if(NOT dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
    string(APPEND TIMELY_PC_EXTRA_CFLAGS " -I${dir}")
  endif()
endforeach()
# The library was built with the progress validator: its users must see the same definition.
if(TIMELY_VALIDATE_PROGRESS)
  string(APPEND TIMELY_PC_EXTRA_CFLAGS " -DTIMELY_VALIDATE_PROGRESS")
endif()
# hwloc, timely_communication's private dependency: in Libs for a static library (its users link
# it), in Libs.private for a shared one (only a static link of the shared build needs it).
set(_timely_hwloc_libs "")
foreach(dir IN LISTS TIMELY_HWLOC_LIBRARY_DIRS)
  if(NOT dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    string(APPEND _timely_hwloc_libs "-L${dir} ")
  endif()
endforeach()
list(TRANSFORM TIMELY_HWLOC_LIBRARIES PREPEND "-l" OUTPUT_VARIABLE _timely_hwloc_l)
list(JOIN _timely_hwloc_l " " _timely_hwloc_l)
string(APPEND _timely_hwloc_libs "${_timely_hwloc_l}")
if(TIMELY_STATIC_COMMUNICATION)
  set(TIMELY_PC_EXTRA_LIBS " ${_timely_hwloc_libs}")
  set(TIMELY_PC_LIBS_PRIVATE "")
else()
  set(TIMELY_PC_EXTRA_LIBS "")
  set(TIMELY_PC_LIBS_PRIVATE "Libs.private: ${_timely_hwloc_libs}")
endif()
configure_file("${CMAKE_CURRENT_LIST_DIR}/timely.pc.in" "${PROJECT_BINARY_DIR}/timely.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/timely.pc"
  DESTINATION "${TIMELY_INSTALL_PKGCONFIGDIR}"
  COMPONENT timely_development)

install(FILES "${PROJECT_SOURCE_DIR}/LICENSE"
  DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/timely"
  COMPONENT timely_development)
