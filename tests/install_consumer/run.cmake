# Installs spillway into a fresh prefix, then configures, builds and runs a separate
# project that finds it with find_package(spillway).
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}")
  endif()
endfunction()

run_step(${CMAKE_COMMAND} --install "${BINARY_DIR}" --prefix "${WORK_DIR}/prefix")

# Every installed header compiles alone: a translation unit that includes only it (the
# listing through find, never a CMake glob).
execute_process(COMMAND find "${WORK_DIR}/prefix/include" -name "*.h" -printf "%P\n"
                OUTPUT_VARIABLE headers RESULT_VARIABLE rc)
string(REPLACE "\n" ";" headers "${headers}")
list(FILTER headers EXCLUDE REGEX "^$")
if(NOT rc EQUAL 0 OR NOT headers)
  message(FATAL_ERROR "no header installed under ${WORK_DIR}/prefix/include")
endif()
foreach(header IN LISTS headers)
  file(WRITE "${WORK_DIR}/alone.cc" "#include \"${header}\"\n")
  run_step(${CXX_COMPILER} -std=c++20 -fsyntax-only -Wall -Wextra -Werror
           -I "${WORK_DIR}/prefix/include" "${WORK_DIR}/alone.cc")
endforeach()
list(LENGTH headers header_count)
message(STATUS "${header_count} installed headers compile alone")

set(flags "")
if(SANITIZE)
  set(flags "-fsanitize=${SANITIZE}")
endif()
run_step(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install_consumer" -B "${WORK_DIR}/build"
         -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
         "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
run_step(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run_step("${WORK_DIR}/build/consumer")
file(REMOVE_RECURSE "${WORK_DIR}")
