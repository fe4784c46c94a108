// The SDK's version, compiled in from the top-level VERSION file.
#pragma once

#include <string>

namespace poplar {

/// "Tessera 0.1.0 (<package hash>)".
std::string versionString();
/// The semantic version alone, e.g. "0.1.0".
std::string versionNumber();
/// A short hash identifying this build of the SDK (the VERSION plus the git commit at build time).
std::string packageHash();

} // namespace poplar
