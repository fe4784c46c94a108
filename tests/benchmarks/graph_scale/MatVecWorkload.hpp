// One measured point of graph_scale_bench's matrix-vector workloads, run inside the child
// process: build the tutorial-style graph, compile it, serialize the executable, start it again
// from the bytes alone and run it once, checking y against a host loop.
#pragma once

#include <cstddef>
#include <string>

namespace graph_scale {

/// Where the vector x lives: one element per tile (spread) or all on tile 0 (local).
enum class VectorPlacement { Spread, Local };

struct MatVecConfig {
  VectorPlacement placement = VectorPlacement::Spread;
  std::size_t rows = 1000;
  std::size_t cols = 1000;
  unsigned columnBlocks = 7;
  unsigned tiles = 1216;
  unsigned hostThreads = 0; ///< 0: the engine's default (all cores)
  /// Stop once compiled: no serialization, warm start or run (to profile the compile alone).
  bool stopAfterCompile = false;
};

/// What one point measured. Seconds are wall-clock (steady_clock).
struct MatVecMeasurement {
  double codeletSeconds = 0; ///< graph.addCodelets (a codelet-cache hit after the first run)
  double buildSeconds = 0;   ///< variables, mappings, vertices and the program
  double compileSeconds = 0; ///< poplar::compileGraph
  double serializeSeconds = 0;
  std::size_t executableBytes = 0;
  double warmStartSeconds = 0; ///< deserialize + Engine construction + load
  double runSeconds = 0;       ///< one Engine::run, streams included
  double compilePeakMiB = 0;   ///< this process's peak RSS once compiled
  double serializePeakMiB = 0; ///< and once serialized too
  std::size_t vertices = 0;
  double maxRelativeError = 0; ///< of y against the double-precision host loop
};

/// Runs one point; throws std::runtime_error when y differs from the host loop by more than
/// 1e-3 relative in any row (naming the row).
MatVecMeasurement measureMatVec(const MatVecConfig &config);

/// Compiles the codelet file into the codelet cache (so measured children never start the
/// compiler, whose memory would count in their peak RSS).
void warmCodeletCache();

} // namespace graph_scale
