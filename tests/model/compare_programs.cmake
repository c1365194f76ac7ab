# trial_verb_test: a verb inserted in scenario::Verb changes no seeded program until the
# generator's weight table lists it. Runs the seeded-program printer built normally
# (NORMAL) and with the trial verb `note` first in Verb (TRIAL), and checks that the trial
# build really has the verb and that both print the same program and the same seeded
# simulate summary (`spillway simulate --seed 7 --steps 8000 --json`).
#
#   cmake -DNORMAL=exe -DTRIAL=exe -P compare_programs.cmake
cmake_minimum_required(VERSION 3.25)
foreach(exe NORMAL TRIAL)
  execute_process(COMMAND ${${exe}} RESULT_VARIABLE rc OUTPUT_VARIABLE out_${exe})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${${exe}} exited with ${rc}")
  endif()
  string(FIND "${out_${exe}}" "\n" first_end)
  string(SUBSTRING "${out_${exe}}" 0 ${first_end} verbs_${exe})
  string(SUBSTRING "${out_${exe}}" ${first_end} -1 program_${exe})
endforeach()
string(REPLACE "verbs: " "" normal_words "${verbs_NORMAL}")
if(NOT verbs_TRIAL STREQUAL "verbs: note ${normal_words}")
  message(FATAL_ERROR "the trial build's verbs are not `note` then the normal ones:\n"
                      "${verbs_TRIAL}\n${verbs_NORMAL}")
endif()
string(REGEX MATCHALL "\n" lines "${program_NORMAL}")
list(LENGTH lines count)
string(FIND "${program_NORMAL}" "\nsummary:\n{" summary_at)
if(summary_at EQUAL -1)
  message(FATAL_ERROR "the normal build printed no simulate summary")
endif()
if(count LESS 8000)
  message(FATAL_ERROR "the normal build printed ${count} lines, not 8000")
endif()
if(NOT program_TRIAL STREQUAL program_NORMAL)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/program_normal.txt "${program_NORMAL}")
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/program_trial.txt "${program_TRIAL}")
  message(FATAL_ERROR "the trial verb changed the seeded program or its simulate summary (program_normal.txt, "
                      "program_trial.txt in ${CMAKE_CURRENT_BINARY_DIR})")
endif()
