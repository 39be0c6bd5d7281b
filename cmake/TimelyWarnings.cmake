# Warnings live in a private interface target, never exported to users.
add_library(timely_warnings INTERFACE)
target_compile_options(timely_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # GCC 12 reports impossible memcpy sizes inside boost::container::small_vector's move
  # constructor and std::string's append at -O2/-O3 (GCC bugs 105651, 105329 and relatives);
  # the code is correct.
  target_compile_options(timely_warnings INTERFACE -Wno-stringop-overread -Wno-stringop-overflow -Wno-array-bounds
    -Wno-restrict)
endif()
if(TIMELY_WERROR)
  target_compile_options(timely_warnings INTERFACE -Werror)
endif()
