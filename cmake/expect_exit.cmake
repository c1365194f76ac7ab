# Runs a command and checks its exact exit code, and optionally what it printed. A test
# that only knew "non-zero" (WILL_FAIL) could not tell an unmet expectation (1) from a
# malformed input (2).
#
#   cmake -DCOMMAND=a|b|c -DEXPECTED_EXIT=N [-DSTDERR_MATCHES=regex]
#         [-DSTDERR_NOT_MATCHES=regex] [-DSTDOUT_MATCHES=regex] [-DOUTPUT_MATCHES=regex]
#         [-DOUT_DIR=dir] [-DREPLAY=ON] -P expect_exit.cmake
#
# COMMAND separates its words with '|' so that it survives add_test(); its first word is
# the `spillway` executable when REPLAY is on. OUTPUT_MATCHES must match stdout and stderr
# together. With OUT_DIR, the directory is emptied first and `--out OUT_DIR` is added.
# With REPLAY, every scenario the sweep printed as failing as expected is replayed with
# `spillway run`, which must exit 1; there must be at least one.
cmake_minimum_required(VERSION 3.25)
foreach(var COMMAND EXPECTED_EXIT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "expect_exit.cmake: ${var} is not set")
  endif()
endforeach()

string(REPLACE "|" ";" command "${COMMAND}")
if(DEFINED OUT_DIR)
  file(REMOVE_RECURSE "${OUT_DIR}")
  list(APPEND command --out "${OUT_DIR}")
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(report "command: ${command}\nexit code: ${rc}\nstdout:\n${out}\nstderr:\n${err}")
if(NOT rc STREQUAL "${EXPECTED_EXIT}")
  message(FATAL_ERROR "expected exit code ${EXPECTED_EXIT}, got ${rc}\n${report}")
endif()
# Each check: its variable, the text it looks at, and whether it must match.
function(expect_match check text must_match)
  if(NOT DEFINED ${check})
    return()
  endif()
  set(matches FALSE)
  if(text MATCHES "${${check}}")
    set(matches TRUE)
  endif()
  if(NOT matches STREQUAL must_match)
    message(FATAL_ERROR "${check} \"${${check}}\" does not hold\n${report}")
  endif()
endfunction()
expect_match(STDERR_MATCHES "${err}" TRUE)
expect_match(STDERR_NOT_MATCHES "${err}" FALSE)
expect_match(STDOUT_MATCHES "${out}" TRUE)
expect_match(OUTPUT_MATCHES "${out}${err}" TRUE)
message("${report}")

if(REPLAY)
  # "  reproduce: spillway run --fs FS PATH" followed by "  replay: fails as expected: ...".
  list(GET command 0 spillway)
  string(REGEX MATCHALL "reproduce: spillway run --fs [a-z]+ [^\n]+\n  replay: fails as expected"
         blocks "${out}")
  list(LENGTH blocks count)
  if(count EQUAL 0)
    message(FATAL_ERROR "no violation printed a scenario that fails as expected")
  endif()
  foreach(block IN LISTS blocks)
    string(REGEX REPLACE "reproduce: spillway run --fs ([a-z]+) ([^\n]+)\n.*" "\\1;\\2"
           parts "${block}")
    list(GET parts 0 fs)
    list(GET parts 1 path)
    execute_process(COMMAND "${spillway}" run --fs "${fs}" "${path}"
                    RESULT_VARIABLE replay_rc OUTPUT_VARIABLE replay_out
                    ERROR_VARIABLE replay_err)
    message("$ spillway run --fs ${fs} ${path}\n${replay_out}${replay_err}")
    if(NOT replay_rc STREQUAL "1")
      message(FATAL_ERROR "replaying ${path} exited with '${replay_rc}', expected 1")
    endif()
  endforeach()
endif()
