# spillway_add_test(NAME SOURCES src... LABELS label... [LIBS lib...])
#
# One GoogleTest executable per subject, linked with the shared test support
# (spillway::test_support, tests/support/). Each TEST becomes a ctest test carrying LABELS
# (unit, property, scenario, soak, ...), discovered when ctest runs so that a sanitizer
# build does not run binaries at build time.
function(spillway_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LABELS;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} spillway::test_support GTest::gmock
                                        GTest::gtest_main)
  spillway_set_warnings(${name})
  # After the build type's flags, so it wins; the same as the precompiled header's.
  target_compile_options(${name} PRIVATE ${SPILLWAY_TEST_OPTIMIZATION})
  target_precompile_headers(${name} REUSE_FROM spillway_test_support)
  # In a sanitized build the slowest tests run on less data (#ifdef SPILLWAY_SANITIZED):
  # memory and thread errors show without the default build's volume.
  if(SPILLWAY_SANITIZE)
    target_compile_definitions(${name} PRIVATE SPILLWAY_SANITIZED)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    TEST_LIST ${name}_TESTS
    PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  # Labels are set by a script ctest includes after the discovered tests: passed through
  # gtest_discover_tests' PROPERTIES, a list of several labels loses its ';' and only the
  # first label survives.
  set(labels_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
  file(GENERATE OUTPUT "${labels_file}" CONTENT
    "if(${name}_TESTS)\n  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${ARG_LABELS}\")\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_file}")
  # The tsan run builds only what it runs: `--target spillway_concurrency_tests`.
  if("concurrency" IN_LIST ARG_LABELS)
    if(NOT TARGET spillway_concurrency_tests)
      add_custom_target(spillway_concurrency_tests)
    endif()
    add_dependencies(spillway_concurrency_tests ${name})
  endif()
endfunction()
