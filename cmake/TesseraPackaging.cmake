# Installs the package config so outside projects can `find_package(Tessera CONFIG REQUIRED)`
# and link Tessera::poplar, Tessera::popops, Tessera::poprand, Tessera::poplin, Tessera::popnn and
# Tessera::pva.
include(CMakePackageConfigHelpers)

set(TESSERA_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/Tessera")

configure_package_config_file(
  "${CMAKE_CURRENT_SOURCE_DIR}/cmake/TesseraConfig.cmake.in"
  "${CMAKE_CURRENT_BINARY_DIR}/TesseraConfig.cmake"
  INSTALL_DESTINATION "${TESSERA_CMAKE_DIR}")
write_basic_package_version_file(
  "${CMAKE_CURRENT_BINARY_DIR}/TesseraConfigVersion.cmake"
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)

install(FILES
  "${CMAKE_CURRENT_BINARY_DIR}/TesseraConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/TesseraConfigVersion.cmake"
  DESTINATION "${TESSERA_CMAKE_DIR}")
install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/VERSION" DESTINATION "${CMAKE_INSTALL_DATADIR}/tessera")

# Graphcore's package names, for projects that say find_package(poplar) / find_package(poplibs)
# and link the plain target names (poplar, poputil, popops, …): thin packages over Tessera's.
install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/cmake/compat/poplarConfig.cmake"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/poplar")
install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/cmake/compat/poplibsConfig.cmake"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/poplibs")
