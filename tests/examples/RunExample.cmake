# cmake -DPROGRAM=… -DSOURCE_DIR=… -DRUN_DIR=… -DDATA="a;b" -P RunExample.cmake
# Runs an example as its README says (from a directory holding its run-time files) and fails
# with both texts when its standard output differs from expected_output.txt.
file(REMOVE_RECURSE "${RUN_DIR}")
file(MAKE_DIRECTORY "${RUN_DIR}")
foreach(f IN LISTS DATA)
  file(COPY "${SOURCE_DIR}/${f}" DESTINATION "${RUN_DIR}")
endforeach()
# The examples' engines must not find executables cached by an earlier run or another test.
set(ENV{TESSERA_EXECUTABLE_CACHE} "${RUN_DIR}/executable-cache")
execute_process(COMMAND "${PROGRAM}" WORKING_DIRECTORY "${RUN_DIR}"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()
file(READ "${SOURCE_DIR}/expected_output.txt" expected)
if(NOT out STREQUAL expected)
  file(WRITE "${RUN_DIR}/actual_output.txt" "${out}")
  message(FATAL_ERROR "output differs from ${SOURCE_DIR}/expected_output.txt "
    "(actual output kept in ${RUN_DIR}/actual_output.txt)\n"
    "--- expected\n${expected}--- actual\n${out}--- stderr\n${err}")
endif()
