# Finds timely's dependencies, all from Debian packages (no downloads at configure time).
find_package(Threads REQUIRED)
find_package(Boost 1.81 CONFIG REQUIRED COMPONENTS headers)
find_package(CLI11 CONFIG REQUIRED)
# xxHash (Debian libxxhash-dev): the checksums of log files, linked by timely_logging and
# timely_durable.
# Debian ships no CMake package for it; this defines the target upstream's package defines.
if(NOT TARGET xxHash::xxhash)
  find_path(TIMELY_XXHASH_INCLUDE_DIR xxhash.h REQUIRED)
  find_library(TIMELY_XXHASH_LIBRARY xxhash REQUIRED)
  add_library(xxHash::xxhash UNKNOWN IMPORTED)
  set_target_properties(xxHash::xxhash PROPERTIES
    IMPORTED_LOCATION "${TIMELY_XXHASH_LIBRARY}" INTERFACE_INCLUDE_DIRECTORIES "${TIMELY_XXHASH_INCLUDE_DIR}")
endif()
# zlib (Debian zlib1g-dev): the CRC-32 of the capture format (src/capture/format.cpp), linked
# by timely_core alone. CMake's own FindZLIB defines ZLIB::ZLIB.
find_package(ZLIB REQUIRED)
# hwloc (Debian libhwloc-dev): the cores and packages of the CPUs that --pin places threads on,
# linked by timely_communication alone. Debian ships a pkg-config file for it, no CMake package.
find_package(PkgConfig REQUIRED)
pkg_check_modules(TIMELY_HWLOC REQUIRED IMPORTED_TARGET hwloc)
