# find_package(poplar) for projects written for Graphcore's Poplar SDK: the targets `poplar` and
# `gcl` (and, as in Poplar, the SDK's headers on their include path), each standing for the
# Tessera library of the same name. Found next to Tessera's own package in lib/cmake.
include(CMakeFindDependencyMacro)
find_dependency(Tessera CONFIG PATHS "${CMAKE_CURRENT_LIST_DIR}/../Tessera" NO_DEFAULT_PATH)

foreach(_tessera_compat_target IN ITEMS poplar gcl)
  if(NOT TARGET ${_tessera_compat_target})
    add_library(${_tessera_compat_target} INTERFACE IMPORTED)
    target_link_libraries(${_tessera_compat_target} INTERFACE Tessera::${_tessera_compat_target})
  endif()
endforeach()
unset(_tessera_compat_target)
set(poplar_FOUND TRUE)
