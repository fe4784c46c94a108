// The on-disk cache of compiled codelet objects, shared by every process of the user.
//
// An object is stored as <dir>/<key>.so where the key hashes everything the object depends
// on: the source file and every file it includes with `#include "…"` (resolved recursively,
// relative to the including file, then to `-I` directories), the SDK version, the SDK's
// vertex ABI headers, the compile flags and the compiler. Objects are written under a
// temporary name and renamed into place, so concurrent processes never see half a file.
#pragma once

#include <string>
#include <vector>

namespace poplar::codelet {

/// A per-user cache directory of the SDK (not created): $`variable`, else
/// $XDG_CACHE_HOME/tessera/<kind>, else ~/.cache/tessera/<kind>, else a temporary directory
/// named after the user. Shared by the codelet and executable caches.
std::string userCacheDirectory(const char *variable, const std::string &kind);

/// $TESSERA_CODELET_CACHE, else $XDG_CACHE_HOME/tessera/codelets, else
/// ~/.cache/tessera/codelets; created if missing.
std::string cacheDirectory();

/// The cache key (16 hex digits) of compiling `sourcePath` (absolute) with `flags` by
/// `compiler` against the SDK headers in `sdkIncludeDir`.
std::string cacheKey(const std::string &sourcePath, const std::string &flags,
                     const std::vector<std::string> &compiler, const std::string &sdkIncludeDir);

/// A fresh path in `dir` for a file that will be renamed into place ("<stem>.tmp-<pid>-<n>").
std::string temporaryPath(const std::string &dir, const std::string &stem);

/// Writes `contents` to `path` atomically (temporary file + rename).
void writeFileAtomically(const std::string &path, const std::string &contents);

/// The whole file, or throws graph_object_load_error naming `path` and `what` it is.
std::string readFile(const std::string &path, const std::string &what);

} // namespace poplar::codelet
