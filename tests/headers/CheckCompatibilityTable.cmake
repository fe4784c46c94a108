# Keeps docs/POPLAR_COMPATIBILITY.md true to an include tree (the source tree's, or an installed
# prefix's). Run as
#   cmake -DTABLE=docs/POPLAR_COMPATIBILITY.md -DINCLUDE_DIRS=dir,dir… [-DPREFIXES=poplar,gcl]
#         [-DTOP_LEVEL_HEADERS=ON] [-DALLOW_ABSENT=OFF] -P CheckCompatibilityTable.cmake
# The table's rows read "| `poplar/Engine.hpp` | partial | … |" with the status one of complete,
# partial, absent or extension. It fails when a header under one of PREFIXES (or, with
# TOP_LEVEL_HEADERS, a top-level codelet header such as print.h) is in the tree but not in the
# table, when a header the table says Tessera has (complete, partial, extension) is missing, when
# one it calls absent exists, or — with ALLOW_ABSENT=OFF — when any row still says absent.
cmake_minimum_required(VERSION 3.25)
foreach(var TABLE INCLUDE_DIRS)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "CheckCompatibilityTable.cmake: -D${var}=… is required")
  endif()
endforeach()

# Lists may be given with commas, which survive add_test and execute_process unsplit.
string(REPLACE "," ";" INCLUDE_DIRS "${INCLUDE_DIRS}")
if(DEFINED PREFIXES)
  string(REPLACE "," ";" PREFIXES "${PREFIXES}")
endif()
if(NOT DEFINED PREFIXES)
  set(PREFIXES poplar gcl)
endif()
if(NOT DEFINED ALLOW_ABSENT)
  set(ALLOW_ABSENT ON)
endif()

set(dirs "")
foreach(dir IN LISTS INCLUDE_DIRS) # absolute, so the globs below can be taken relative to them
  get_filename_component(dir "${dir}" ABSOLUTE)
  list(APPEND dirs "${dir}")
endforeach()
set(INCLUDE_DIRS "${dirs}")

# Only each row's "| `header` | status |" prefix is taken: the notes may hold ';' or '[', which
# would split or glue CMake list elements.
file(READ "${TABLE}" table_text)
string(REGEX MATCHALL "\n\\| `[^`\n]+\\.(hpp|h)` \\| [a-z]+ \\|" rows "${table_text}")
set(listed "")
set(problems "")
foreach(row IN LISTS rows)
  string(REGEX MATCH "\\| `([^`]+)` \\| ([a-z]+) \\|" _ "${row}")
  set(header "${CMAKE_MATCH_1}")
  set(status "${CMAKE_MATCH_2}")
  if(NOT status MATCHES "^(complete|partial|absent|extension)$")
    string(APPEND problems "  ${header}: unknown status '${status}'\n")
  endif()
  if(header IN_LIST listed)
    string(APPEND problems "  ${header}: listed twice\n")
  endif()
  list(APPEND listed "${header}")
  set(found FALSE)
  foreach(dir IN LISTS INCLUDE_DIRS)
    if(EXISTS "${dir}/${header}")
      set(found TRUE)
    endif()
  endforeach()
  if(status STREQUAL "absent" AND NOT ALLOW_ABSENT)
    string(APPEND problems "  ${header}: the table says absent (every header must be provided)\n")
  endif()
  if(status STREQUAL "absent" AND found)
    string(APPEND problems "  ${header}: the table says absent, but it is in the include tree\n")
  elseif(NOT status STREQUAL "absent" AND NOT found)
    string(APPEND problems "  ${header}: the table says ${status}, but it is not in the include tree\n")
  endif()
endforeach()

foreach(dir IN LISTS INCLUDE_DIRS)
  set(globs "")
  foreach(prefix IN LISTS PREFIXES)
    list(APPEND globs "${dir}/${prefix}/*")
  endforeach()
  file(GLOB_RECURSE present RELATIVE "${dir}" ${globs})
  set(top "")
  if(TOP_LEVEL_HEADERS)
    file(GLOB top RELATIVE "${dir}" "${dir}/*.h")
  endif()
  foreach(header IN LISTS present top)
    if(NOT header IN_LIST listed)
      string(APPEND problems "  ${header}: in the include tree (${dir}) but not in the table\n")
    endif()
  endforeach()
endforeach()

list(LENGTH listed count)
if(problems)
  message(FATAL_ERROR "${TABLE} does not match the include tree:\n${problems}")
endif()
message(STATUS "${TABLE}: ${count} headers, all consistent with ${INCLUDE_DIRS}")
