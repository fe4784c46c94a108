// The Engine's option table: Poplar's documented names, typed, with unknown keys rejected.
#pragma once

#include <string>

#include <poplar/OptionFlags.hpp>

namespace poplar::engine {

struct EngineOptions {
  unsigned hostThreads = 0; ///< 0: one per core.
  bool allowOutOfMemory = false;
};

/// Reads `flags` (then `POPLAR_ENGINE_OPTIONS`, which overrides them). Throws `invalid_option`
/// for an unknown key (suggesting the nearest known one) or a malformed value.
EngineOptions parseEngineOptions(const OptionFlags &flags);

} // namespace poplar::engine
