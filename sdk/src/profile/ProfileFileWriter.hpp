// Every profile file goes through here: written under a temporary name beside its target and
// renamed into place, so a reader (pva, tessera-profile, a browser) polling the report directory
// while the engine runs never sees half a file.
#pragma once

#include <string>

namespace poplar::profile {

/// Writes `contents` to `path` atomically; throws poplar::runtime_error naming `path` when it
/// cannot be written (the temporary file is removed).
void writeProfileFile(const std::string &path, const std::string &contents);

} // namespace poplar::profile
