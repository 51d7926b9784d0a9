# The man page's option lists from the option tables (docs/man_options.awk):
# the build makes ${PROJECT_BINARY_DIR}/ldbench.1 from the template
# docs/ldbench.1.in and `ldbench --dump-options`; a table option without its
# description in the template (or a description of no option) fails it.
# docs/ldbench.1 is that output, checked in and installed;
# tests/integration/man_options.sh fails when the two differ.  After editing
# the template or a table: cmake --build build --target man-update (writes
# docs/ldbench.1).
find_program(LDB_AWK NAMES gawk mawk awk REQUIRED)
set(_man_in ${PROJECT_SOURCE_DIR}/docs/ldbench.1.in)
set(_man_gen ${PROJECT_SOURCE_DIR}/docs/man_options.awk)
set(_man_out ${PROJECT_BINARY_DIR}/ldbench.1)
add_custom_command(
  OUTPUT ${_man_out}
  COMMAND sh -c "\"$0\" --dump-options >\"$1.tsv\" && \"$2\" -f \"$3\" \"$1.tsv\" \"$4\" >\"$1.tmp\" && mv \"$1.tmp\" \"$1\""
          $<TARGET_FILE:ldbench> ${_man_out} ${LDB_AWK} ${_man_gen} ${_man_in}
  DEPENDS ldbench ${_man_in} ${_man_gen}
  COMMENT "Generating ldbench.1 (its option lists from the option tables)"
  VERBATIM)
add_custom_target(man ALL DEPENDS ${_man_out})
add_custom_target(man-update
  COMMAND ${CMAKE_COMMAND} -E copy ${_man_out} ${PROJECT_SOURCE_DIR}/docs/ldbench.1
  DEPENDS ${_man_out}
  COMMENT "docs/ldbench.1 from the build's"
  VERBATIM)
