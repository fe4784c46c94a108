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
#include <mutex>
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

/// An entry compiled in this process and not yet written: encoding and writing ~100 MB takes
/// the better part of a second, which must not land inside the engine's runs (measured on 2
/// cores: a background writer cost a trainer's first run ~30 % of its images/s, even as a
/// SCHED_IDLE thread). So the engine writes it when it is destroyed; `lookUp` and the end of the
/// process write whatever is still pending.
class PendingStore {
public:
  PendingStore(std::shared_ptr<const Executable::Impl> exe, std::string path,
               std::uint64_t maxBytes);
  /// Encodes and writes the entry atomically, then evicts least recently used entries beyond
  /// the size cap. Once only; a failure is a warning (once per process), never an exception.
  void write();
  bool written() const;

private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Executable::Impl> exe_; ///< Null once written.
  std::string path_;
  std::uint64_t maxBytes_;
};

/// Prepares storing `exe` under `key` (creating the cache directory now, so a directory that
/// cannot be made warns at compile time) and returns the pending entry, or null after a warning.
/// `exe` must not change until it is written: the caller only reads it.
std::shared_ptr<PendingStore> store(const CacheSettings &settings, const std::string &key,
                                    std::shared_ptr<const Executable::Impl> exe);

/// Writes every entry still pending in this process.
void writePendingStores();

} // namespace poplar::executable
