# Installs a Tessera build into a scratch prefix, moves the prefix somewhere else, then configures,
# builds and runs the out-of-tree consumer project against the moved prefix — with CMake, then
# with a plain Makefile after sourcing the installed enable.sh (RunEnableScripts.sh). Run as
#   cmake -DTESSERA_BUILD_DIR=… -DCONSUMER_SOURCE_DIR=… -DWORK_DIR=… -DGENERATOR=Ninja
#         [-DCXX_COMPILER=…] [-DCOMPILER_LAUNCHER=…] [-DSANITIZER_FLAGS=…] -P RunConsumerTest.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var TESSERA_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "RunConsumerTest.cmake: -D${var}=… is required")
  endif()
endforeach()

# Installed here, then moved to `prefix` (another depth too): nothing installed may depend on the
# path it was installed to, only on where it is now.
set(install_prefix "${WORK_DIR}/installed")
set(prefix "${WORK_DIR}/moved/tessera")
set(consumer_build "${WORK_DIR}/consumer-build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/moved")

# Runs one step; stops the test with its output if it fails.
function(run_step name)
  execute_process(COMMAND ${ARGN}
                  RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: ${name} failed (${rc})\n"
                        "command: ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "install_consumer: ${name} ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

run_step("install" "${CMAKE_COMMAND}" --install "${TESSERA_BUILD_DIR}" --prefix "${install_prefix}")
file(RENAME "${install_prefix}" "${prefix}")
file(REAL_PATH "${prefix}" prefix)

# Programs run as a user would, from a prefix outside the loader's default paths: no
# LD_LIBRARY_PATH, no TESSERA_INCLUDE_DIR pointing at headers, a fresh codelet cache (so the
# consumer's codelet is compiled against the headers libpoplar finds, not loaded from an old run).
set(clean_env "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH --unset=TESSERA_INCLUDE_DIR
    "TESSERA_CODELET_CACHE=${WORK_DIR}/codelet-cache")

# The installed headers are the ones docs/POPLAR_COMPATIBILITY.md describes.
run_step("compatibility table against the installed headers" "${CMAKE_COMMAND}"
         "-DTABLE=${CONSUMER_SOURCE_DIR}/../../../docs/POPLAR_COMPATIBILITY.md"
         "-DINCLUDE_DIRS=${prefix}/include" -DPREFIXES=poplar,gcl -DTOP_LEVEL_HEADERS=ON
         -P "${CONSUMER_SOURCE_DIR}/../../headers/CheckCompatibilityTable.cmake")
run_step("PopLibs compatibility table against the installed headers" "${CMAKE_COMMAND}"
         "-DTABLE=${CONSUMER_SOURCE_DIR}/../../../docs/POPLIBS_COMPATIBILITY.md"
         "-DINCLUDE_DIRS=${prefix}/include" -DPREFIXES=poputil,popops,poprand,poplin,popnn,popfloat
         -P "${CONSUMER_SOURCE_DIR}/../../headers/CheckCompatibilityTable.cmake")

# The installed tools start from the moved prefix.
file(GLOB installed_tools "${prefix}/bin/*")
if(NOT installed_tools)
  message(FATAL_ERROR "install_consumer: nothing was installed in ${prefix}/bin")
endif()
foreach(tool IN LISTS installed_tools)
  get_filename_component(tool_name "${tool}" NAME)
  run_step("${tool_name} --help" ${clean_env} "${tool}" --help)
endforeach()

# The consumer asks for the installed release's major.minor, as a project pinned to it would.
file(STRINGS "${prefix}/share/tessera/VERSION" installed_version LIMIT_COUNT 1)
string(REGEX MATCH "^[0-9]+\\.[0-9]+" requested_version "${installed_version}")
set(configure_args -S "${CONSUMER_SOURCE_DIR}" -B "${consumer_build}" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release
    "-DTESSERA_REQUESTED_VERSION=${requested_version}")
if(CXX_COMPILER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
if(COMPILER_LAUNCHER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${COMPILER_LAUNCHER}")
endif()
if(SANITIZER_FLAGS)
  # A sanitized libpoplar.so needs a sanitized executable (the runtime must come first).
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS=${SANITIZER_FLAGS}"
       "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZER_FLAGS}")
endif()
run_step("configure consumer" "${CMAKE_COMMAND}" ${configure_args})
run_step("build consumer" "${CMAKE_COMMAND}" --build "${consumer_build}")

# The version find_package reported must be the one the package installed.
set(version_file "${prefix}/share/tessera/VERSION")
if(NOT EXISTS "${version_file}")
  message(FATAL_ERROR "install_consumer: ${version_file} was not installed")
endif()
file(STRINGS "${version_file}" installed_version LIMIT_COUNT 1)
file(STRINGS "${consumer_build}/tessera_version.txt" found_version LIMIT_COUNT 1)
if(NOT installed_version STREQUAL found_version)
  message(FATAL_ERROR "install_consumer: share/tessera/VERSION says '${installed_version}' but "
                      "find_package(Tessera) reported Tessera_VERSION '${found_version}'")
endif()

# The consumer prints the SDK version and where its run-time codelet found poplar/Vertex.hpp:
# both must come from the installed prefix.
function(check_consumer_output how output)
  message(STATUS "${output}")
  if(NOT output MATCHES "Tessera ${installed_version}")
    message(FATAL_ERROR "install_consumer (${how}): poplar::versionString() does not name "
                        "version ${installed_version}:\n${output}")
  endif()
  string(FIND "${output}" "codelet header: ${prefix}/include/poplar/Vertex.hpp" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "install_consumer (${how}): the run-time codelet was not compiled "
                        "against ${prefix}/include/poplar/Vertex.hpp:\n${output}")
  endif()
endfunction()

run_step("run consumer" ${clean_env} "${consumer_build}/consumer")
check_consumer_output("CMake" "${step_output}")

# Graphcore's package names: find_package(poplar) and find_package(poplibs) with plain targets.
set(gc_args "")
foreach(arg IN LISTS configure_args) # the same settings, another source and build directory
  if("${arg}" STREQUAL "${CONSUMER_SOURCE_DIR}")
    set(arg "${CONSUMER_SOURCE_DIR}/../graphcore_packages")
  elseif("${arg}" STREQUAL "${consumer_build}")
    set(arg "${WORK_DIR}/graphcore-packages-build")
  elseif(arg MATCHES "^-DTESSERA_REQUESTED_VERSION=")
    continue()
  endif()
  list(APPEND gc_args "${arg}")
endforeach()
run_step("configure find_package(poplar/poplibs) project" "${CMAKE_COMMAND}" ${gc_args})
run_step("build find_package(poplar/poplibs) project"
         "${CMAKE_COMMAND}" --build "${WORK_DIR}/graphcore-packages-build")
run_step("run find_package(poplar/poplibs) project"
         ${clean_env} "${WORK_DIR}/graphcore-packages-build/graphcore_packages")
if(NOT step_output STREQUAL "ok\n")
  message(FATAL_ERROR "install_consumer: the find_package(poplar/poplibs) project printed:\n"
                      "${step_output}")
endif()

# The same program from a plain Makefile after `source enable.sh` (-lpoplar -lpoputil …), and
# the enable scripts of each shell: nothing on the search paths but what they set.
set(makefile_dir "${CONSUMER_SOURCE_DIR}/../makefile")
set(makefile_cxx "${CXX_COMPILER}")
if(NOT makefile_cxx)
  set(makefile_cxx c++)
endif()
if(COMPILER_LAUNCHER)
  set(makefile_cxx "${COMPILER_LAUNCHER} ${makefile_cxx}")
endif()
run_step("make consumer after enable.sh"
         ${clean_env} --unset=CPATH --unset=LIBRARY_PATH --unset=CMAKE_PREFIX_PATH
         --unset=POPLAR_SDK_ENABLED
         # Its own codelet cache, so this build's codelet is compiled (and says against what).
         "TESSERA_CODELET_CACHE=${WORK_DIR}/makefile-codelet-cache"
         bash "${CONSUMER_SOURCE_DIR}/../RunEnableScripts.sh" "${prefix}"
         "${makefile_dir}/Makefile" "${CONSUMER_SOURCE_DIR}" "${WORK_DIR}/makefile-build"
         "${makefile_cxx}" "${SANITIZER_FLAGS}")
check_consumer_output("Makefile" "${step_output}")
