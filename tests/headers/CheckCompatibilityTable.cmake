# Keeps docs/POPLAR_COMPATIBILITY.md true to an include tree (the source tree's, or an installed
# prefix's). Run as
#   cmake -DTABLE=docs/POPLAR_COMPATIBILITY.md -DINCLUDE_DIRS="dir;dir…" -P CheckCompatibilityTable.cmake
# The table's rows read "| `poplar/Engine.hpp` | partial | … |" with the status one of complete,
# partial, absent or extension. It fails when a header under poplar/, poputil/ or gcl/ (or a
# top-level codelet header such as print.h) is in the tree but not in the table, when a header the
# table says Tessera has (complete, partial, extension) is missing, or when one it calls absent
# exists.
cmake_minimum_required(VERSION 3.25)
foreach(var TABLE INCLUDE_DIRS)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "CheckCompatibilityTable.cmake: -D${var}=… is required")
  endif()
endforeach()

set(dirs "")
foreach(dir IN LISTS INCLUDE_DIRS) # absolute, so the globs below can be taken relative to them
  get_filename_component(dir "${dir}" ABSOLUTE)
  list(APPEND dirs "${dir}")
endforeach()
set(INCLUDE_DIRS "${dirs}")

file(STRINGS "${TABLE}" rows REGEX "^\\| `[^`]+\\.(hpp|h)` \\| [a-z]+ \\|")
set(listed "")
set(problems "")
foreach(row IN LISTS rows)
  string(REGEX MATCH "^\\| `([^`]+)` \\| ([a-z]+) \\|" _ "${row}")
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
  if(status STREQUAL "absent" AND found)
    string(APPEND problems "  ${header}: the table says absent, but it is in the include tree\n")
  elseif(NOT status STREQUAL "absent" AND NOT found)
    string(APPEND problems "  ${header}: the table says ${status}, but it is not in the include tree\n")
  endif()
endforeach()

foreach(dir IN LISTS INCLUDE_DIRS)
  file(GLOB_RECURSE present RELATIVE "${dir}" "${dir}/poplar/*" "${dir}/poputil/*" "${dir}/gcl/*")
  file(GLOB top RELATIVE "${dir}" "${dir}/*.h")
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
