// Tessera extension: which build of the SDK this process runs.
#pragma once

#include <string>

namespace tessera {

/// The identity of this build of the SDK's code (the poplar library's GNU build id, derived from
/// its contents, never from a commit). Serialized executables and the executable cache record
/// it: an executable only runs on the build that compiled it.
const std::string &sdkBuildId();

/// The same identity for any loaded object: the program or shared library whose code contains
/// `address` (a function of it). Programs that cache what they build key it on their own build
/// this way, e.g. `tessera::buildIdOf(reinterpret_cast<const void *>(&someFunctionOfMine))`.
std::string buildIdOf(const void *address);

} // namespace tessera
