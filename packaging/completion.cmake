# Writes the bash completion from the option tables themselves, so it cannot
# drift from them: the long and short options of the load's option table
# (src/cli/option_table.c), and the -e keywords of src/cli/keywords.c (a keyword
# that takes a value is offered as "name=").  Included by CMakeLists.txt at
# configure time; tests/integration/package.sh checks the result against the
# binary (every option of --help offered, every offered name accepted).
set(_src ${PROJECT_SOURCE_DIR}/src/cli)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${_src}/option_table.c ${_src}/keywords.c ${CMAKE_CURRENT_LIST_DIR}/ldbench.bash.in)

# the rows of the load's option table (util/optable.h): { "name", LETTER, ... } or { NULL, 'x', ... }
file(STRINGS ${_src}/option_table.c _rows REGEX "^[\t ]*\\{ (NULL|\"[a-z0-9-]+\"), ")
set(LDB_LONG_OPTIONS "")
set(LDB_SHORT_OPTIONS "")
foreach(_r ${_rows})
  if(_r MATCHES "\\{ \"([a-z0-9-]+)\", ")
    string(APPEND LDB_LONG_OPTIONS " --${CMAKE_MATCH_1}")
  endif()
  if(_r MATCHES "\\{ (NULL|\"[a-z0-9-]+\"), '([A-Za-z])'")
    string(APPEND LDB_SHORT_OPTIONS " -${CMAKE_MATCH_2}")
  endif()
endforeach()

file(STRINGS ${PROJECT_SOURCE_DIR}/src/cli/keywords.c _kws REGEX "^\t\\{ \"[A-Za-z0-9_]+\", KW_[A-Z0-9_]+, ARG_")
set(LDB_KEYWORDS "")
foreach(_r ${_kws})
  string(REGEX MATCH "\\{ \"([A-Za-z0-9_]+)\", KW_([A-Z0-9_]+), ARG_([A-Z]+)" _m "${_r}")
  if(CMAKE_MATCH_2 STREQUAL "LATER")
    continue() # accepted by ldclt, not implemented: not offered
  endif()
  if(CMAKE_MATCH_3 STREQUAL "NEED")
    string(APPEND LDB_KEYWORDS " ${CMAKE_MATCH_1}=")
  else()
    string(APPEND LDB_KEYWORDS " ${CMAKE_MATCH_1}")
  endif()
endforeach()
string(STRIP "${LDB_LONG_OPTIONS}" LDB_LONG_OPTIONS)
string(STRIP "${LDB_SHORT_OPTIONS}" LDB_SHORT_OPTIONS)
string(STRIP "${LDB_KEYWORDS}" LDB_KEYWORDS)
configure_file(${CMAKE_CURRENT_LIST_DIR}/ldbench.bash.in ${PROJECT_BINARY_DIR}/ldbench.bash-completion @ONLY)
