# The exported target set, shared by the build-tree export (this file) and the install rules
# (TimelyInstall.cmake): the libraries timely_<part>, seen by users as timely::<part>.
#
# The build-tree export writes timelyTargets.cmake, timelyConfig.cmake and
# timelyConfigVersion.cmake at the top of the build tree, so that another project can use this
# build without installing it: `find_package(timely)` with `-Dtimely_DIR=<build tree>`.
include(CMakePackageConfigHelpers)

set(TIMELY_EXPORTED_TARGETS timely_container timely_logging timely_observe timely_communication timely_core
  timely timely_streaming timely_durable)
foreach(target IN LISTS TIMELY_EXPORTED_TARGETS)
  string(REGEX REPLACE "^timely_" "" export_name "${target}")
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})

  # The warnings are compile options for timely's own sources. A static library lists its
  # PRIVATE link items in its interface as $<LINK_ONLY:...>, and a build-tree export keeps
  # $<BUILD_INTERFACE:...>, so timely_warnings would be exported as a link dependency. CMake 3.26
  # has $<BUILD_LOCAL_INTERFACE:...> for this; 3.25 needs the entry taken out of the interface.
  get_target_property(interface ${target} INTERFACE_LINK_LIBRARIES)
  if(interface)
    list(FILTER interface EXCLUDE REGEX "timely_warnings")
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${interface}")
  endif()
endforeach()

# hwloc is a PRIVATE dependency of timely_communication: a static library hands it on to its
# users' link (timelyConfig.cmake then finds it, timely.pc lists it in Libs), a shared one does not.
get_target_property(_timely_communication_type timely_communication TYPE)
if(_timely_communication_type STREQUAL "STATIC_LIBRARY")
  set(TIMELY_STATIC_COMMUNICATION TRUE)
else()
  set(TIMELY_STATIC_COMMUNICATION FALSE)
endif()

export(TARGETS ${TIMELY_EXPORTED_TARGETS}
  NAMESPACE timely::
  FILE "${PROJECT_BINARY_DIR}/timelyTargets.cmake")

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/timelyConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/timelyConfig.cmake"
  INSTALL_DESTINATION "${PROJECT_BINARY_DIR}"
  INSTALL_PREFIX "${PROJECT_BINARY_DIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/timelyConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMajorVersion)
