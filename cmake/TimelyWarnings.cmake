# Warnings live in a private interface target, never exported to users.
add_library(timely_warnings INTERFACE)
target_compile_options(timely_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(TIMELY_WERROR)
  target_compile_options(timely_warnings INTERFACE -Werror)
endif()
