# Where `spillway simulate` and `spillway sweep-workload` write reproducers (--out, cli_support.h):
# - named inside a git checkout where git does not ignore it: refused, exit 2, one line,
#   nothing made;
# - named where the checkout's git ignores it, and missing: made, and used;
# - not named: a fresh directory under $TMPDIR, named on stderr, removed when the run
#   wrote nothing into it, kept with the scenario file when it did.
#
#   cmake -DSPILLWAY=exe -DGIT=git -DWORK_DIR=dir -P out_dir_test.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK_DIR}")
set(repo "${WORK_DIR}/checkout")
set(tmp "${WORK_DIR}/tmp")
file(MAKE_DIRECTORY "${repo}" "${tmp}")
file(WRITE "${repo}/.gitignore" "ignored/\n")
execute_process(COMMAND "${GIT}" init -q "${repo}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "git init ${repo} failed")
endif()

# run(exit stderr_regex ARGS...): runs spillway with TMPDIR=tmp; checks the exit code and
# stderr; leaves stderr in `err`.
function(run expected_exit stderr_regex)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TMPDIR=${tmp} "${SPILLWAY}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("$ spillway ${ARGN}\nexit ${rc}\n${err}")
  if(NOT rc STREQUAL "${expected_exit}")
    message(FATAL_ERROR "expected exit ${expected_exit}, got ${rc}\n${out}${err}")
  endif()
  if(NOT err MATCHES "${stderr_regex}")
    message(FATAL_ERROR "stderr does not match '${stderr_regex}'")
  endif()
  set(err "${err}" PARENT_SCOPE)
endfunction()

foreach(command simulate sweep-workload)
  run(2 "^spillway ${command}: --out ${repo}/tracked/new: inside a git checkout[^\n]*\n$"
      ${command} --out ${repo}/tracked/new)
  if(EXISTS "${repo}/tracked")
    message(FATAL_ERROR "a refused --out was made: ${repo}/tracked")
  endif()
endforeach()

run(0 "" simulate --steps 20 --out ${repo}/ignored/new)
if(NOT IS_DIRECTORY "${repo}/ignored/new")
  message(FATAL_ERROR "--out ${repo}/ignored/new was not made")
endif()

# No violation: the fresh directory is named, then removed.
run(0 "spillway simulate: reproducers go to ${tmp}/spillway-simulate-[A-Za-z0-9]+ " simulate
    --steps 20)
execute_process(COMMAND ls -A "${tmp}" OUTPUT_VARIABLE left OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT left STREQUAL "")
  message(FATAL_ERROR "the empty fresh directory was left in ${tmp}: ${left}")
endif()
# A violation: its scenario is in the fresh directory named on stderr.
run(1 "reproducers go to " simulate --quirk eager_dirs --steps 300)
string(REGEX MATCH "reproducers go to ([^ ]+) " ignored "${err}")
set(fresh "${CMAKE_MATCH_1}")
if(NOT EXISTS "${fresh}/spillway-simulate-1.scenario")
  message(FATAL_ERROR "no ${fresh}/spillway-simulate-1.scenario")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
