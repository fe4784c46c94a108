# Installed files find each other relative to where they are ($ORIGIN), never by the install
# prefix, so the prefix can be anywhere outside the loader's default paths and even be moved after
# install (tests/install moves it before running a consumer).
include(GNUInstallDirs)

# Every library and the codelet library behind it (a private dependency a consumer does not
# link) are installed in one directory: each finds the others beside itself. Set before any
# target is created, so it is every target's INSTALL_RPATH; tessera_install_tool gives the
# installed executables theirs.
set(CMAKE_INSTALL_RPATH "$ORIGIN")

# Installs executable `target` in the binary directory; it finds the libraries in the library
# directory as seen from there ("$ORIGIN/../lib" for the usual layout).
function(tessera_install_tool target)
  file(RELATIVE_PATH bin_to_lib "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${bin_to_lib}")
  install(TARGETS ${target} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()
