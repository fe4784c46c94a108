#include "executable/ExecutableCache.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <vector>

#include <poplar/exceptions.hpp>

#include "codelet/CodeletCache.hpp"

namespace poplar::executable {

namespace fs = std::filesystem;

namespace {

constexpr const char *kExtension = ".tessera-exe";

/// One warning per process: a broken cache must be visible, not flood every compile.
void warnOnce(const std::string &what) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true))
    std::cerr << "tessera: executable cache: " << what
              << "; compiling without it (set TESSERA_EXECUTABLE_CACHE to a writable directory, "
                 "or the engine option executableCache.enable to false)\n";
}

/// Entries not yet written. Whatever the engines have not written by then is written before
/// the process exits (a static's destructor), so a normal exit loses no entry; a killed process
/// loses its entry (the next run compiles again) or leaves at most a temporary file, which
/// eviction removes later.
class PendingWrites {
public:
  void add(std::shared_ptr<PendingStore> store) {
    std::lock_guard lock(mutex_);
    std::erase_if(stores_, [](const auto &s) { return s->written(); });
    stores_.push_back(std::move(store));
  }
  void writeAll() {
    std::vector<std::shared_ptr<PendingStore>> stores;
    {
      std::lock_guard lock(mutex_);
      stores.swap(stores_);
    }
    for (auto &s : stores)
      s->write();
  }
  ~PendingWrites() { writeAll(); }

private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<PendingStore>> stores_;
};

PendingWrites &pendingWrites() {
  static PendingWrites pending;
  return pending;
}

fs::path entryPath(const CacheSettings &settings, const std::string &key) {
  return fs::path(cacheDirectory(settings)) / (key + kExtension);
}

void evictBeyondCap(const fs::path &dir, const fs::path &keep, std::uint64_t maxBytes) {
  struct Entry {
    fs::path path;
    fs::file_time_type used;
    std::uint64_t bytes;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (const auto &e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != kExtension) {
      // A temporary file an hour old belongs to a writer that was killed.
      std::error_code statError;
      if (e.path().filename().string().find(std::string(kExtension) + ".tmp-") !=
              std::string::npos &&
          now - e.last_write_time(statError) > std::chrono::hours(1) && !statError)
        fs::remove(e.path(), statError);
      continue;
    }
    std::error_code statError;
    const auto bytes = e.file_size(statError);
    const auto used = e.last_write_time(statError);
    if (statError)
      continue; // removed by another process meanwhile
    entries.push_back({e.path(), used, bytes});
    total += bytes;
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.used < b.used; });
  for (const auto &e : entries) {
    if (total <= maxBytes)
      break;
    if (e.path == keep)
      continue;
    std::error_code removeError;
    if (fs::remove(e.path, removeError))
      total -= e.bytes;
  }
}

} // namespace

std::string cacheDirectory(const CacheSettings &settings) {
  if (!settings.directory.empty())
    return settings.directory;
  return codelet::userCacheDirectory("TESSERA_EXECUTABLE_CACHE", "executables");
}

std::unique_ptr<Executable::Impl> lookUp(const CacheSettings &settings, const std::string &key) {
  writePendingStores(); // this process's own entries first (a second Engine in one program)
  const fs::path path = entryPath(settings, key);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return nullptr;
  try {
    auto exe = std::make_unique<Executable::Impl>(read(in));
    std::error_code ec;
    fs::last_write_time(path, fs::file_time_type::clock::now(), ec); // recently used
    return exe;
  } catch (const poplar_error &) {
    // Damaged, or written by another build under a colliding name: compile again.
    std::error_code ec;
    fs::remove(path, ec);
    return nullptr;
  }
}

PendingStore::PendingStore(std::shared_ptr<const Executable::Impl> exe, std::string path,
                           std::uint64_t maxBytes)
    : exe_(std::move(exe)), path_(std::move(path)), maxBytes_(maxBytes) {}

bool PendingStore::written() const {
  std::lock_guard lock(mutex_);
  return !exe_;
}

void PendingStore::write() {
  std::lock_guard lock(mutex_);
  if (!exe_)
    return;
  try {
    const std::string data = Encoded(*exe_).bytes();
    if (data.size() <= maxBytes_) { // else it would evict everything else and still not fit
      codelet::writeFileAtomically(path_, data);
      evictBeyondCap(fs::path(path_).parent_path(), path_, maxBytes_);
    }
  } catch (const std::exception &e) {
    warnOnce(e.what());
  }
  exe_.reset();
}

std::shared_ptr<PendingStore> store(const CacheSettings &settings, const std::string &key,
                                    std::shared_ptr<const Executable::Impl> exe) {
  try {
    const fs::path path = entryPath(settings, key);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (!fs::is_directory(path.parent_path()))
      throw runtime_error("cannot create '" + path.parent_path().string() + "'" +
                          (ec ? ": " + ec.message() : std::string()));
    auto pending = std::make_shared<PendingStore>(std::move(exe), path.string(), settings.maxBytes);
    pendingWrites().add(pending);
    return pending;
  } catch (const std::exception &e) {
    warnOnce(e.what());
    return nullptr;
  }
}

void writePendingStores() { pendingWrites().writeAll(); }

} // namespace poplar::executable
