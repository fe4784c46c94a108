# find_package(poplibs) for projects written for Graphcore's PopLibs: the targets `poputil`,
# `popops`, `poprand`, `poplin`, `popnn` and `popfloat`, each standing for the Tessera library of the same
# name (PopLibs' own package brings in poplar first, and so does this one).
include(CMakeFindDependencyMacro)
find_dependency(poplar CONFIG PATHS "${CMAKE_CURRENT_LIST_DIR}/../poplar" NO_DEFAULT_PATH)

foreach(_tessera_compat_target IN ITEMS poputil popops poprand poplin popnn popfloat)
  if(NOT TARGET ${_tessera_compat_target})
    add_library(${_tessera_compat_target} INTERFACE IMPORTED)
    target_link_libraries(${_tessera_compat_target} INTERFACE Tessera::${_tessera_compat_target})
  endif()
endforeach()
unset(_tessera_compat_target)
set(poplibs_FOUND TRUE)
