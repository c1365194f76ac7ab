# Shows that the one table of operations (vfs/internal/spillway/vfs/fault_ops.h) keeps its
# users in step at compile time: one CASE edits a copy of a header as a careless change
# would, and compiles real sources against it (-fsyntax-only, the copy shadowing the
# original). The unedited sources must compile first, so that a failure is the edit's.
#
#   cmake -DCASE=name -DSOURCE_DIR=dir -DWORK_DIR=dir -DCXX_COMPILER=c++ -P fault_ops_build.cmake
#
# Cases (each names what it edits and what must then happen):
#   opkind_order          the public OpKind with two enumerators swapped: the build fails
#   table_new_op          a row added to the table that no OpKind derives from: fails
#   table_duplicate_name  two rows of the table with one name: fails
#   table_duplicate_row   a row of the table twice: fails, in the shim too
#   table_reorder         two rows of the table swapped: still compiles (the engine, the
#                         shim and the filesystem all follow the table's order)
cmake_minimum_required(VERSION 3.25)
foreach(var CASE SOURCE_DIR WORK_DIR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "fault_ops_build.cmake: ${var} is not set")
  endif()
endforeach()

set(fis_cc vfs/op_kind.cc)
set(rules_cc vfs/fault_rules.cc)
set(shim_cc inject/shim_core.cc)
# A row of the table, the whole line: X(ID, ...) up to its continuation.
function(table_row out id)
  set(${out} "\n  X\\(${id},[^\n]*" PARENT_SCOPE)
endfunction()

# What is edited (a header, by its include path under its root): the table, unless the
# case says otherwise. `expect`: the error the build must break with; empty: it compiles.
set(header spillway/vfs/fault_ops.h)
set(root vfs/internal)
if(CASE STREQUAL "opkind_order")
  set(header spillway/vfs/fault_injecting_file_system.h)
  set(root vfs/include)
  set(swap "\n  kWrite,[^\n]*" "\n  kSync,[^\n]*")
  set(sources ${fis_cc})
  set(expect "OpKind \\(fault_injecting_file_system.h\\) and kOpKinds are in different orders")
elseif(CASE STREQUAL "table_new_op")
  table_row(before CLOSE)
  set(insert "\n  X(TRUNCATE, Truncate, \"truncate\", (EIO)) \\")
  set(sources ${fis_cc})
  set(expect "an operation of SPILLWAY_FAULT_OPS \\(fault_ops.h\\) is no OpKind, or two")
elseif(CASE STREQUAL "table_duplicate_name")
  set(replace "X(READ, Read, \"read\"," "X(READ, Read, \"write\",")
  set(sources ${rules_cc})
  set(expect "two rows of SPILLWAY_FAULT_OPS \\(fault_ops.h\\) share a name")
elseif(CASE STREQUAL "table_duplicate_row")
  table_row(duplicate WRITE)
  set(sources ${shim_cc})
  set(expect "SPW_WRITE")
elseif(CASE STREQUAL "table_reorder")
  table_row(first READ)
  table_row(second WRITE)
  set(swap "${first}" "${second}")
  set(sources ${rules_cc} ${fis_cc} ${shim_cc})
  set(expect "")
else()
  message(FATAL_ERROR "fault_ops_build.cmake: unknown CASE '${CASE}'")
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/include" "${WORK_DIR}/src")

# Compiles every source (copied into WORK_DIR/src, so that a header beside the original is
# not found before the shadowing copy); sets `ok` and `log`.
function(compile_all)
  set(ok TRUE)
  set(log "")
  foreach(source IN LISTS sources)
    get_filename_component(name "${source}" NAME)
    file(COPY_FILE "${SOURCE_DIR}/${source}" "${WORK_DIR}/src/${name}")
    execute_process(
      COMMAND "${CXX_COMPILER}" -std=c++20 -fsyntax-only -I "${WORK_DIR}/include"
              -I "${SOURCE_DIR}/vfs/include" -I "${SOURCE_DIR}/vfs/internal"
              -I "${SOURCE_DIR}/inject" -I "${SOURCE_DIR}/vfs" "${WORK_DIR}/src/${name}"
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(APPEND log "$ compile ${source}: exit ${rc}\n${out}${err}")
    if(NOT rc EQUAL 0)
      set(ok FALSE)
    endif()
  endforeach()
  set(ok ${ok} PARENT_SCOPE)
  set(log "${log}" PARENT_SCOPE)
endfunction()

compile_all()
if(NOT ok)
  message(FATAL_ERROR "the unedited sources do not compile:\n${log}")
endif()

# The edit, on a copy of the header; it must change the text, or the case shows nothing.
file(READ "${SOURCE_DIR}/${root}/${header}" original)
set(text "${original}")
if(DEFINED swap)
  list(GET swap 0 first_regex)
  list(GET swap 1 second_regex)
  string(REGEX MATCH "${first_regex}" first_line "${text}")
  string(REGEX MATCH "${second_regex}" second_line "${text}")
  if(first_line STREQUAL "" OR second_line STREQUAL "")
    message(FATAL_ERROR "${header}: no line matches '${first_regex}' and '${second_regex}'")
  endif()
  string(REPLACE "${first_line}" "\n@FIRST@" text "${text}")
  string(REPLACE "${second_line}" "${first_line}" text "${text}")
  string(REPLACE "\n@FIRST@" "${second_line}" text "${text}")
elseif(DEFINED insert)
  string(REGEX MATCH "${before}" line "${text}")
  string(REPLACE "${line}" "${insert}${line}" text "${text}")
elseif(DEFINED replace)
  list(GET replace 0 from)
  list(GET replace 1 to)
  string(REPLACE "${from}" "${to}" text "${text}")
elseif(DEFINED duplicate)
  string(REGEX MATCH "${duplicate}" line "${text}")
  string(REPLACE "${line}" "${line}${line}" text "${text}")
endif()
if(text STREQUAL original)
  message(FATAL_ERROR "the edit of ${header} for ${CASE} changed nothing")
endif()
file(WRITE "${WORK_DIR}/include/${header}" "${text}")

compile_all()
if(expect STREQUAL "")
  if(NOT ok)
    message(FATAL_ERROR "${CASE}: the edited ${header} should compile:\n${log}")
  endif()
elseif(ok)
  message(FATAL_ERROR "${CASE}: the edited ${header} compiled; it must break the build")
elseif(NOT log MATCHES "${expect}")
  message(FATAL_ERROR "${CASE}: the build broke, but not with '${expect}':\n${log}")
endif()
message("${CASE}: as expected\n${log}")
file(REMOVE_RECURSE "${WORK_DIR}")
