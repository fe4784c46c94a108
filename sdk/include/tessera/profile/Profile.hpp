// Tessera extension: the contents of a graph profile and an execution profile, as plain C++.
//
// An Engine builds these from its compiled graph and the IPU cost model (ARCHITECTURE.md
// decision 8: two clocks — estimated IPU cycles and measured host time). They are written as
// Protocol Buffers files (with JSON renderings) by the `autoReport.*` engine options and read
// back with <tessera/profile/ProfileReader.hpp>.
#pragma once

#include <cstdint>
#if __cplusplus >= 201703L
#include <optional>
#endif
#include <string>
#include <vector>

namespace tessera {
namespace profile {

/// The IPU the profile was compiled for, with the cost model's parameters.
struct TargetInfo {
  std::string arch;
  unsigned numIPUs = 0;
  unsigned tilesPerIPU = 0;
  unsigned numTiles = 0;
  unsigned workerContexts = 0;
  std::uint64_t bytesPerTile = 0;
  double clockHz = 0;                 ///< Tile clock (cycles per second).
  unsigned exchangeBytesPerCycle = 0; ///< Per tile, in and out together.
  unsigned syncCycles = 0;            ///< One BSP synchronisation.
};

/// Bytes one tile uses, by category. `total()` is what the out-of-memory check compares with
/// the tile's capacity (and what `Engine::getTileMemoryUsed` returns).
struct TileMemory {
  std::uint64_t variables = 0;
  std::uint64_t vertexState = 0;
  std::uint64_t exchange = 0; ///< Exchange buffers (shared by every compute set).
  std::uint64_t padding = 0;  ///< Alignment gaps.
  std::uint64_t total() const { return variables + vertexState + exchange + padding; }
};

struct Variable {
  std::string name;
  std::string type; ///< "float", "half", …
  std::vector<std::uint64_t> shape;
  std::uint64_t bytes = 0;
  unsigned tiles = 0; ///< Tiles holding part of it.
  bool constant = false;
};

struct VertexTypeCount {
  std::string type;
  std::uint64_t count = 0;
};

/// One compute set a program executes, with its estimated cost per execution.
struct ComputeSet {
  std::string name;
  std::uint64_t vertices = 0;
  unsigned tiles = 0; ///< Tiles with at least one vertex.
  std::vector<VertexTypeCount> vertexTypes;
  std::uint64_t computeCycles = 0;  ///< The slowest tile's compute phase.
  std::uint64_t exchangeCycles = 0; ///< Exchange in and out (slowest tile).
  std::uint64_t syncCycles = 0;
  std::uint64_t exchangeBytes = 0;       ///< Bytes moved in and out, all tiles.
  unsigned slowestTile = 0;              ///< The tile that sets computeCycles.
  std::uint64_t exchangeBufferBytes = 0; ///< Exchange buffer bytes live while it runs.
  std::uint64_t totalCycles() const { return computeCycles + exchangeCycles + syncCycles; }
};

/// One step of the flattened programs.
struct Step {
  std::string kind;    ///< "Execute", "Copy", "StreamIn", "StreamOut" or a control step.
  std::string name;    ///< Compute set, copy or stream name.
  int computeSet = -1; ///< Index into GraphProfile::computeSets for Execute steps.
  std::uint64_t estimatedCycles = 0;
  std::uint64_t exchangeBytes = 0;
};

struct GraphProfile {
  unsigned formatVersion = 1;
  std::string sdkVersion;
  TargetInfo target;
  std::vector<TileMemory> tiles;   ///< One per tile.
  std::vector<Variable> variables; ///< Largest first (at most 1000).
  std::uint64_t numVariables = 0;  ///< Variables in the graph, listed or not.
  std::vector<ComputeSet> computeSets;
  std::vector<Step> steps;
  std::vector<std::uint64_t> programStart; ///< Entry step of each program.
  bool outOfMemory = false;
  std::string error; ///< The compilation error, when compilation failed.
  /// False until the Engine is loaded: vertex classes' own `cycleEstimate()` needs the
  /// constructed objects, so before `load` the model uses setPerfEstimate or its default.
  bool hasVertexTypeEstimates = false;
};

/// How often one step ran and what it cost, over every `run` so far.
struct StepRun {
  unsigned step = 0;
  std::uint64_t runs = 0;
  std::uint64_t estimatedCycles = 0; ///< Total over runs.
  std::uint64_t hostNs = 0;          ///< Measured host time, total (0 unless instrumented).
};

/// One execution of a step, placed on both clocks (first executions only; see truncated).
struct TimelineEvent {
  unsigned step = 0;
  std::uint64_t startCycle = 0;
  std::uint64_t cycles = 0;
  std::uint64_t hostStartNs = 0;
  std::uint64_t hostNs = 0;
};

/// One `Engine::run`: the program it ran and where its steps lie. Its steps are timeline events
/// [firstEvent, firstEvent + events): fewer than it executed once the timeline is truncated.
struct ProgramRun {
  unsigned program = 0; ///< Index of the Engine program run.
  std::uint64_t firstEvent = 0;
  std::uint64_t events = 0;
  std::uint64_t startCycle = 0; ///< On the estimated-cycle clock of the timeline.
  std::uint64_t cycles = 0;     ///< Estimated cycles of every step it ran.
};

struct ExecutionProfile {
  unsigned formatVersion = 1;
  std::uint64_t runs = 0;     ///< Engine::run calls.
  bool instrumented = false;  ///< debug.instrument: host times were measured.
  std::vector<StepRun> steps; ///< Steps that ran, by step index.
  std::vector<TimelineEvent> timeline;
  bool timelineTruncated = false;
  std::uint64_t totalEstimatedCycles = 0;
  std::uint64_t totalHostNs = 0;
  std::vector<ProgramRun> programRuns; ///< The first runs, in order (see programRunsTruncated).
  bool programRunsTruncated = false;
};

#if __cplusplus >= 201703L
/// What profile.pop holds: the graph profile and, once the engine has run with an execution
/// profile requested, the execution profile. Defined for C++17 and later only (it holds a
/// std::optional); C++11 and C++14 programs read profiles with pva.
struct ProfileReport {
  GraphProfile graph;
  std::optional<ExecutionProfile> execution;
};
#endif

} // namespace profile
} // namespace tessera
