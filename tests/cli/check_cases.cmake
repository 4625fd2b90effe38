# Fails when tests/CMakeLists.txt's CAIRN_CLI_CASES and the case_* functions
# of cli_test.sh differ, so a case written but not registered is noticed.
file(STRINGS ${SCRIPT} lines REGEX "^case_[a-z0-9_]+\\(\\)")
set(defined "")
foreach(l ${lines})
  string(REGEX REPLACE "^case_([a-z0-9_]+)\\(\\).*" "\\1" name "${l}")
  list(APPEND defined ${name})
endforeach()
list(SORT defined)
set(registered ${CASES})
list(SORT registered)
if(NOT defined STREQUAL registered)
  message(FATAL_ERROR "cli_test.sh defines: ${defined}\ntests/CMakeLists.txt registers: ${registered}")
endif()
