# spillway_add_library(NAME SOURCES file... [PUBLIC lib...] [PRIVATE lib...]): the layer's
# static library spillway_NAME, linked by its ALIAS spillway::NAME, with its public headers
# in include/ (spillway/NAME/...), the libraries it links and the project's warnings.
function(spillway_add_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;PUBLIC;PRIVATE")
  add_library(spillway_${name} ${arg_SOURCES})
  add_library(spillway::${name} ALIAS spillway_${name})
  target_include_directories(spillway_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(spillway_${name} PUBLIC ${arg_PUBLIC} PRIVATE ${arg_PRIVATE})
  spillway_set_warnings(spillway_${name})
endfunction()
