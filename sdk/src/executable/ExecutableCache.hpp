// The on-disk cache of compiled executables (ARCHITECTURE.md decision 11).
//
// An entry is <dir>/<key>.tessera-exe where the key hashes the graph's content, the programs,
// the options that change compilation, the target and the SDK build (never a commit). Entries
// are written under a temporary name and renamed into place, so concurrent processes never read
// half a file; the directory is kept under a size cap by evicting the least recently used
// entries. A cache that cannot be read or written never stops a compile: it warns once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "executable/ExecutableData.hpp"

namespace poplar::executable {

struct CacheSettings {
  bool enabled = true;
  /// Empty: $TESSERA_EXECUTABLE_CACHE, else $XDG_CACHE_HOME/tessera/executables, else
  /// ~/.cache/tessera/executables.
  std::string directory;
  std::uint64_t maxBytes = std::uint64_t(2) << 30;
};

/// The directory `settings` name (not created).
std::string cacheDirectory(const CacheSettings &settings);

/// The cached executable under `key`, or nothing (missing, unreadable, corrupt, or from another
/// build: such an entry is removed).
std::unique_ptr<Executable::Impl> lookUp(const CacheSettings &settings, const std::string &key);

/// Stores `exe` under `key`, then evicts least recently used entries beyond the size cap. A
/// background thread encodes and writes it (joined before the process exits, or by
/// `waitForStores`), so `exe` must not change meanwhile: the caller only reads it.
void store(const CacheSettings &settings, const std::string &key,
           std::shared_ptr<const Executable::Impl> exe);

/// Returns once every store started so far has finished.
void waitForStores();

} // namespace poplar::executable
