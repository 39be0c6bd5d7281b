# Every public header compiles on its own: for each header under include/timely, compile a
# translation unit that includes it (twice, to check the include guard) with -fsyntax-only.
# Arguments: COMPILER, INCLUDE_DIR, FLAGS (a ;-list), WORKDIR.
file(GLOB_RECURSE headers RELATIVE "${INCLUDE_DIR}" "${INCLUDE_DIR}/timely/*.hpp")
list(LENGTH headers count)
if(count LESS 10)
  message(FATAL_ERROR "found only ${count} headers under ${INCLUDE_DIR}")
endif()
file(MAKE_DIRECTORY "${WORKDIR}")
set(failed "")
foreach(header IN LISTS headers)
  string(MAKE_C_IDENTIFIER "${header}" name)
  set(tu "${WORKDIR}/${name}.cpp")
  file(WRITE "${tu}" "#include <${header}>\n#include <${header}>\n")
  execute_process(COMMAND "${COMPILER}" -std=c++20 -fsyntax-only -Wall -Wextra -Werror ${FLAGS}
                          "-I${INCLUDE_DIR}" "${tu}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(APPEND failed "${header}")
    message(STATUS "${header} does not compile on its own:\n${err}")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "headers that do not compile on their own: ${failed}")
endif()
message(STATUS "${count} headers compile on their own")
