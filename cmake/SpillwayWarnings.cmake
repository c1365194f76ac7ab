# spillway_set_warnings(target): the project's warning flags, and its sanitizers.
function(spillway_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                           -Wnon-virtual-dtor -Wold-style-cast
                                           -Woverloaded-virtual -Wimplicit-fallthrough)
  if(SPILLWAY_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(SPILLWAY_SANITIZE)
  add_compile_options(-fsanitize=${SPILLWAY_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SPILLWAY_SANITIZE})
  # GCC 12 with the sanitizers at -O1 warns -Wmaybe-uninitialized inside libstdc++'s
  # <regex> (a false positive of its instrumented code); the default build keeps the warning.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()
