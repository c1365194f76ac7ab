# Runs the parser fuzzer for a bounded number of inputs over a fresh copy of its seeds.
#
#   cmake -DFUZZER=exe -DSEEDS=a.scen|b.scen -DWORK_DIR=dir -DRUNS=N -DDICT=file
#         -P run_fuzzer.cmake
#
# The seeds are copied into WORK_DIR/corpus (libFuzzer adds what it finds there), so the
# source tree is never written; crashing inputs land in WORK_DIR/artifacts.
string(REPLACE "|" ";" seeds "${SEEDS}")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/corpus" "${WORK_DIR}/artifacts")
file(COPY ${seeds} DESTINATION "${WORK_DIR}/corpus")
execute_process(
  COMMAND "${FUZZER}" -runs=${RUNS} -max_len=4096 -dict=${DICT}
          -artifact_prefix=${WORK_DIR}/artifacts/ "${WORK_DIR}/corpus"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the fuzzer failed (exit ${rc}); see ${WORK_DIR}/artifacts")
endif()
