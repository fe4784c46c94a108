// Tessera extension: the executable cache, for programs that can skip building their graph.
//
// `Engine(graph, programs, options)` stores what it compiles in the executable cache under a key
// derived from the graph's content, and looks it up there first (see README, "Executables and
// the executable cache"). Computing that key needs the graph. A program that can tell from its
// own configuration that it is about to build a graph it built before — a trainer run again with
// the same settings — can instead remember the key of the earlier run's engine
// (`Engine::executableCacheKey()`) and load the executable by that key, without building the
// graph at all:
//
//   tessera::ExecutableCache cache(engineOptions);
//   if (auto exe = cache.load(rememberedKey))
//     engine = std::make_unique<poplar::Engine>(std::move(*exe), engineOptions);
//   else
//     … build the graph, construct the Engine, remember engine.executableCacheKey() …
//
// The program is responsible for the remembered key meaning the same graph: its configuration,
// and the build of its own code, must be part of what it keys the key on.
#pragma once

#if __cplusplus >= 201703L
#include <optional>
#endif
#include <string>

#include <poplar/Executable.hpp>
#include <poplar/OptionFlags.hpp>

namespace tessera {

class ExecutableCache {
public:
  /// The cache an Engine constructed with `engineOptions` uses (`executableCache.enable`,
  /// `executableCache.directory`, `$TESSERA_EXECUTABLE_CACHE`, `POPLAR_ENGINE_OPTIONS`). Throws
  /// `poplar::invalid_option` for options an Engine would reject.
  explicit ExecutableCache(const poplar::OptionFlags &engineOptions = {});

  /// False when `executableCache.enable` is false: load finds nothing.
  bool enabled() const { return enabled_; }
  /// The cache directory (it may not exist yet).
  const std::string &directory() const { return directory_; }

#if __cplusplus >= 201703L
  /// The executable stored under `key` by an earlier Engine of this SDK build, or nothing when
  /// there is none (never stored, evicted, damaged or from another build). Declared for C++17
  /// and later only (it returns a std::optional).
  std::optional<poplar::Executable> load(const std::string &key) const;
#endif

private:
  bool enabled_;
  std::string directory_;
};

} // namespace tessera
