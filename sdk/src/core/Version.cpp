#include <poplar/Version.hpp>

// TESSERA_VERSION and TESSERA_GIT_COMMIT come from the build (the top-level VERSION file).
#ifndef TESSERA_VERSION
#error "TESSERA_VERSION must be defined by the build"
#endif
#ifndef TESSERA_GIT_COMMIT
#define TESSERA_GIT_COMMIT "unknown"
#endif

namespace poplar {

std::string versionNumber() { return TESSERA_VERSION; }
std::string packageHash() { return TESSERA_GIT_COMMIT; }
std::string versionString() { return "Tessera " + versionNumber() + " (" + packageHash() + ")"; }

} // namespace poplar
