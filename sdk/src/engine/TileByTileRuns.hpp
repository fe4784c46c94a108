// The engine's view of the compiler's tile-by-tile runs (Step::count): which tiles take part
// and, per tile, its work in each compute set of the run, so run() iterates without look-ups.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "compiler/CompiledGraph.hpp"

namespace poplar::engine {

/// One maximal run of Execute steps: the tiles in ascending order and, per tile, its TileWork
/// in each step of the run (entries [entryBegin[u], entryBegin[u + 1]), in step order).
struct TileByTileRun {
  struct Entry {
    std::size_t position; ///< Step within the run.
    std::size_t work;     ///< Index into that compute set's tiles.
  };
  std::vector<unsigned> tiles;
  std::vector<std::size_t> entryBegin;
  std::vector<Entry> entries;
};

struct TileByTileRuns {
  std::vector<TileByTileRun> runs;
  /// Per step: its run in `runs` and its position in it (meaningful when Step::count > 1).
  std::vector<std::pair<std::size_t, std::size_t>> stepRun;
};

TileByTileRuns buildTileByTileRuns(const compiler::CompiledGraph &plan);

} // namespace poplar::engine
