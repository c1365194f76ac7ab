# Checks `spillway bench`'s command line. Run as:
#   cmake -DSPILLWAY=<spillway> -DFS=posix|mem -DROOT=<scratch dir> -P check_bench_json.cmake
#   cmake -DSPILLWAY=<spillway> -DCHECK=bad_input -DROOT=<scratch dir> -P ...
# The JSON check runs a tiny measurement and holds its output to the documented shape:
# {"results": [{"mode", "fs", "dirs", "threads", "ns_per_plan", "fs_calls_per_plan",
# "plans_per_s", ...}, ...], "first_spill": [{"dirs", "all_ns", ...}, ...]}, one result per
# mode, local dir count and thread count asked for, and one first spill per local dir
# count, each mode with its own figures; and --root's private directory is gone. What the
# measurements must find (calls per plan, a first spill's mkdirs) is tests/bench/'s, on
# the library.
# The bad-input check wants exit code 2 and a one-line error for each malformed command.
cmake_minimum_required(VERSION 3.25)

foreach(var SPILLWAY ROOT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "pass -D${var}=...")
  endif()
endforeach()

function(fail what)
  message(FATAL_ERROR "spillway bench: ${what}")
endfunction()

if(CHECK STREQUAL "bad_input")
  set(work "${ROOT}/bench-bad-input")
  file(REMOVE_RECURSE "${work}")
  file(MAKE_DIRECTORY "${work}")
  file(TOUCH "${work}/a-file")
  set(cases
    "--fs;nfs"
    "--dirs;0"
    "--dirs;1,x"
    "--threads;0"
    "--plans;0"
    "--repetitions;-1"
    "--root;${work}/missing"
    "--root;${work}/a-file"
    "--fs;mem;--root;${work}"
    "--no-such-flag")
  foreach(case IN LISTS cases)
    execute_process(COMMAND "${SPILLWAY}" bench ${case} --plans 1
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(STRIP "${err}" err)
    if(NOT rc EQUAL 2)
      fail("`bench ${case}` exited ${rc}, want 2 (stderr: ${err})")
    endif()
    if(err STREQUAL "" OR err MATCHES "\n")
      fail("`bench ${case}` should print one line on stderr, printed: [${err}]")
    endif()
    if(NOT out STREQUAL "")
      fail("`bench ${case}` printed on stdout: ${out}")
    endif()
  endforeach()
  file(REMOVE_RECURSE "${work}")
  return()
endif()

if(NOT FS MATCHES "^(posix|mem)$")
  message(FATAL_ERROR "pass -DFS=posix or -DFS=mem")
endif()

set(dirs_asked 1 3)
set(threads_asked 1 2)
set(args bench --fs ${FS} --dirs 1,3 --threads 1,2 --plans 3 --lazy-plans 50
    --repetitions 2 --json)
set(work "${ROOT}/bench-json-${FS}")
if(FS STREQUAL "posix")
  file(REMOVE_RECURSE "${work}")
  file(MAKE_DIRECTORY "${work}")
  list(APPEND args --root "${work}")
endif()

execute_process(COMMAND "${SPILLWAY}" ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  fail("exited ${rc}: ${err}")
endif()

string(JSON results_type ERROR_VARIABLE json_error TYPE "${out}" results)
if(json_error)
  fail("output is not JSON with a \"results\" member (${json_error}):\n${out}")
endif()
if(NOT results_type STREQUAL "ARRAY")
  fail("\"results\" is ${results_type}, want ARRAY")
endif()
string(JSON count LENGTH "${out}" results)
if(NOT count EQUAL 8)
  fail("${count} results, want 8 (2 modes x 2 dir counts x 2 thread counts)")
endif()

set(seen "")
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  foreach(field mode fs)
    string(JSON type TYPE "${out}" results ${i} ${field})
    if(NOT type STREQUAL "STRING")
      fail("results[${i}].${field} is ${type}, want STRING")
    endif()
    string(JSON ${field} GET "${out}" results ${i} ${field})
  endforeach()
  foreach(field dirs threads ns_per_plan fs_calls_per_plan plans_per_s)
    string(JSON type TYPE "${out}" results ${i} ${field})
    if(NOT type STREQUAL "NUMBER")
      fail("results[${i}].${field} is ${type}, want NUMBER")
    endif()
    string(JSON ${field} GET "${out}" results ${i} ${field})
  endforeach()

  if(NOT mode MATCHES "^(eager|lazy)$")
    fail("results[${i}].mode is \"${mode}\"")
  endif()
  if(NOT fs STREQUAL FS)
    fail("results[${i}].fs is \"${fs}\", want \"${FS}\"")
  endif()
  if(NOT dirs IN_LIST dirs_asked OR NOT threads IN_LIST threads_asked)
    fail("results[${i}] has dirs=${dirs} threads=${threads}, not asked for")
  endif()
  set(key "${mode}/${dirs}/${threads}")
  if(key IN_LIST seen)
    fail("results has ${key} twice")
  endif()
  list(APPEND seen "${key}")
  # Each mode's own figures: a lazy plan's 0 filesystem calls, an eager plan's more.
  if(mode STREQUAL "lazy" AND NOT fs_calls_per_plan EQUAL 0)
    fail("results[${i}] (${key}) has fs_calls_per_plan=${fs_calls_per_plan}, want 0")
  endif()
  if(mode STREQUAL "eager" AND NOT fs_calls_per_plan GREATER 0)
    fail("results[${i}] (${key}) has fs_calls_per_plan=${fs_calls_per_plan}, want > 0")
  endif()
endforeach()

string(JSON count ERROR_VARIABLE json_error LENGTH "${out}" first_spill)
if(json_error OR NOT count EQUAL 2)
  fail("\"first_spill\" should have 2 entries (2 dir counts): ${json_error}")
endif()
foreach(i RANGE 1)
  foreach(field dirs all_ns each_ns all_over_each all_mkdirs each_mkdirs all_creates
          each_creates all_fs_calls each_fs_calls)
    string(JSON ${field} GET "${out}" first_spill ${i} ${field})
  endforeach()
  list(GET dirs_asked ${i} want_dirs)
  if(NOT dirs EQUAL want_dirs)
    fail("first_spill[${i}].dirs is ${dirs}, want ${want_dirs}")
  endif()
endforeach()

if(FS STREQUAL "posix")
  # The private directory was removed: `work` is empty again.
  execute_process(COMMAND ls -A "${work}" OUTPUT_VARIABLE left RESULT_VARIABLE ls_rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT ls_rc EQUAL 0)
    fail("cannot list ${work}")
  endif()
  if(NOT left STREQUAL "")
    fail("left behind in ${work}: ${left}")
  endif()
  file(REMOVE_RECURSE "${work}")
endif()
message(STATUS "spillway bench --fs ${FS}: the JSON has its shape")
