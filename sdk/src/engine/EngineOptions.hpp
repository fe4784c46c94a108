// The Engine's option table: Poplar's documented names, typed, with unknown keys rejected.
#pragma once

#include <cstdint>
#include <string>

#include <poplar/OptionFlags.hpp>

namespace poplar::engine {

struct EngineOptions {
  unsigned hostThreads = 0; ///< 0: one per core.
  bool allowOutOfMemory = false;
  /// debug.runtimeVerify: vertices may check their inputs and fail with a reason.
  bool runtimeVerify = false;
  bool outputGraphProfile = false;     ///< autoReport.outputGraphProfile (or autoReport.all)
  bool outputExecutionProfile = false; ///< autoReport.outputExecutionProfile (or .all)
  bool instrument = false;             ///< debug.instrument (or autoReport.all)
  std::string reportDirectory = ".";   ///< autoReport.directory
  /// exchange.enablePrefetch: ask StreamCallbacks for the next transfer's data ahead of time.
  bool prefetch = true;
  /// executableCache.*: look compiled graphs up (and store them) in the executable cache.
  bool executableCache = true;
  std::string executableCacheDirectory; ///< Empty: $TESSERA_EXECUTABLE_CACHE or the default.
  std::uint64_t executableCacheMaxBytes = std::uint64_t(2) << 30;
};

/// Reads `flags` (then `POPLAR_ENGINE_OPTIONS`, which overrides them). Throws `invalid_option`
/// for an unknown key (suggesting the nearest known one) or a malformed value.
EngineOptions parseEngineOptions(const OptionFlags &flags);

} // namespace poplar::engine
