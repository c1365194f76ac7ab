# Runs a command and checks its exact exit code, and optionally what it printed.
#
#   cmake -DCOMMAND=a|b|c -DEXPECTED_EXIT=N [-DSTDERR_MATCHES=regex]
#         [-DSTDERR_NOT_MATCHES=regex] [-DSTDOUT_MATCHES=regex] -P expect_exit.cmake
#
# COMMAND separates its words with '|' so that it survives add_test(). A test that only
# knew "non-zero" could not tell an unmet expectation (1) from a malformed file (2).
string(REPLACE "|" ";" command "${COMMAND}")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(report "command: ${command}\nexit code: ${rc}\nstdout:\n${out}\nstderr:\n${err}")
if(NOT rc STREQUAL "${EXPECTED_EXIT}")
  message(FATAL_ERROR "expected exit code ${EXPECTED_EXIT}, got ${rc}\n${report}")
endif()
if(DEFINED STDERR_MATCHES AND NOT err MATCHES "${STDERR_MATCHES}")
  message(FATAL_ERROR "stderr does not match \"${STDERR_MATCHES}\"\n${report}")
endif()
if(DEFINED STDERR_NOT_MATCHES AND err MATCHES "${STDERR_NOT_MATCHES}")
  message(FATAL_ERROR "stderr matches \"${STDERR_NOT_MATCHES}\"\n${report}")
endif()
if(DEFINED STDOUT_MATCHES AND NOT out MATCHES "${STDOUT_MATCHES}")
  message(FATAL_ERROR "stdout does not match \"${STDOUT_MATCHES}\"\n${report}")
endif()
