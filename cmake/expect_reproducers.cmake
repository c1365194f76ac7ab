# Runs a command that writes reproducers (spillway sweep or simulate) from an empty working
# directory with `--out out --json` (out/ missing: the command makes it), and checks that
# they went into --out only: the working directory holds nothing but out/, and out/ holds
# one file per violation that does not share an earlier one's (JSON `same_scenario_as`
# null), and each one's file exists.
#
#   cmake -DCOMMAND=a|b|c -DWORK_DIR=dir -DEXPECTED_EXIT=N -DLIST=key [-DITEM=key]
#         [-DALL=ON] -P expect_reproducers.cmake
#
# LIST names the JSON array of results, ITEM the object within each that holds `scenario`
# and `same_scenario_as` (none: the element itself; a null ITEM is skipped). ALL says that
# --all-reproducers was given: no violation may share; otherwise at least one must, or the
# test would show nothing.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")  # Not out/: the command makes it.
string(REPLACE "|" ";" command "${COMMAND}")
execute_process(COMMAND ${command} --out out --json WORKING_DIRECTORY "${WORK_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECTED_EXIT}")
  message(FATAL_ERROR "expected exit code ${EXPECTED_EXIT}, got ${rc}\n${err}")
endif()
# Directory listings through ls -A (dot names included), never a CMake glob.
function(list_dir dir out_var)
  execute_process(COMMAND ls -A "${dir}" OUTPUT_VARIABLE listing RESULT_VARIABLE ls_rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT ls_rc EQUAL 0)
    message(FATAL_ERROR "ls -A ${dir} failed")
  endif()
  string(REPLACE "\n" ";" listing "${listing}")
  set(${out_var} "${listing}" PARENT_SCOPE)
endfunction()
list_dir("${WORK_DIR}" in_work_dir)
if(NOT in_work_dir STREQUAL "out")
  message(FATAL_ERROR "the working directory holds '${in_work_dir}', expected only 'out'")
endif()
list_dir("${WORK_DIR}/out" files)
list(LENGTH files file_count)

string(JSON count LENGTH "${json}" ${LIST})
set(violations 0)
set(own 0)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON type TYPE "${json}" ${LIST} ${i} ${ITEM})
  if(type STREQUAL "NULL")
    continue()
  endif()
  math(EXPR violations "${violations} + 1")
  string(JSON path GET "${json}" ${LIST} ${i} ${ITEM} scenario)
  if(NOT IS_ABSOLUTE "${path}")
    set(path "${WORK_DIR}/${path}")
  endif()
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "${LIST} ${i}: its scenario ${path} does not exist")
  endif()
  string(JSON shared TYPE "${json}" ${LIST} ${i} ${ITEM} same_scenario_as)
  if(shared STREQUAL "NULL")
    math(EXPR own "${own} + 1")
  elseif(ALL)
    message(FATAL_ERROR "${LIST} ${i} shares a scenario despite --all-reproducers")
  endif()
endforeach()
message("${violations} violations, ${own} with their own scenario, ${file_count} files")
if(NOT file_count EQUAL own)
  message(FATAL_ERROR "${file_count} files for ${own} violations with their own scenario")
endif()
if(NOT ALL AND own EQUAL violations)
  message(FATAL_ERROR "no violation shares a scenario: the test shows nothing")
endif()
