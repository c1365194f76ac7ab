# Runs `spillway` and checks its exact exit code (WILL_FAIL cannot tell 1 from 2).
#
#   cmake -DSPILLWAY=<path> -DARGS="<arguments>" -DEXPECT=<code>
#         [-DOUT=<dir>] [-DMATCH=<regex>] [-DREPLAY=ON] -P expect_exit.cmake
#
# ARGS is split like a shell command line. With OUT, the directory is emptied first and
# `--out OUT` is added. MATCH must occur in what the command printed (stdout and stderr).
# With REPLAY, every scenario the sweep printed as failing as expected is replayed with
# `spillway run`, which must exit 1; there must be at least one.
foreach(var SPILLWAY ARGS EXPECT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "expect_exit.cmake: ${var} is not set")
  endif()
endforeach()

separate_arguments(args UNIX_COMMAND "${ARGS}")
if(DEFINED OUT)
  file(REMOVE_RECURSE "${OUT}")
  list(APPEND args --out "${OUT}")
endif()

execute_process(COMMAND "${SPILLWAY}" ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("$ spillway ${args}\n${out}${err}")
if(NOT rc STREQUAL "${EXPECT}")
  message(FATAL_ERROR "spillway exited with '${rc}', expected ${EXPECT}")
endif()
if(DEFINED MATCH AND NOT "${out}${err}" MATCHES "${MATCH}")
  message(FATAL_ERROR "the output does not match '${MATCH}'")
endif()

if(REPLAY)
  # "  reproduce: spillway run --fs FS PATH" followed by "  replay: fails as expected: ...".
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
    execute_process(COMMAND "${SPILLWAY}" run --fs "${fs}" "${path}"
                    RESULT_VARIABLE replay_rc OUTPUT_VARIABLE replay_out
                    ERROR_VARIABLE replay_err)
    message("$ spillway run --fs ${fs} ${path}\n${replay_out}${replay_err}")
    if(NOT replay_rc STREQUAL "1")
      message(FATAL_ERROR "replaying ${path} exited with '${replay_rc}', expected 1")
    endif()
  endforeach()
endif()
