// How poplin splits a (grouped) matrix multiply over tiles — a Tessera extension that makes the
// planner's decision inspectable; `matMulReportPlan` prints the same information.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Type.hpp>

namespace poplin {

class PlanningCache;

/// What the planner minimises among the splits that fit the memory budget (Tessera option
/// `planObjective`): the IPU Model's estimated cycles ("ipuCycles", the slowest tile), or the
/// estimated time of the host running the model ("hostTime", the default: the total work of all
/// tiles, so it prefers fewer, larger blocks that exchange and reduce less).
enum class PlanObjective { HOST_TIME, IPU_CYCLES };

/// A plan for C[G][M][N] = A[G][M][K] · B[G][K][N]. The problem is cut into work units of
/// `groupsPerBlock × rowsPerBlock × colsPerBlock × innerPerBlock` (the last blocks may be
/// smaller); each unit runs on its own tile. When `innerBlocks > 1` every unit writes fp32
/// partial products and a second compute set sums the `innerBlocks` partials of each output
/// element in block order (a fixed order, so results never depend on the host threads).
/// When `innerSteps > 1` each unit walks its inner block in that many serial steps (one compute
/// set each, accumulating into its fp32 partials), so only one step's operand slices are
/// exchanged at a time; the operand blocks are then spread over the tiles that share them.
struct MatMulPlan {
  std::size_t groups = 0, rows = 0, cols = 0, inner = 0; ///< G, M, N, K
  std::size_t groupsPerBlock = 0, rowsPerBlock = 0, colsPerBlock = 0, innerPerBlock = 0;
  std::size_t groupBlocks = 0, rowBlocks = 0, colBlocks = 0, innerBlocks = 0;
  std::size_t innerSteps = 1; ///< Serial steps per inner block, each of innerPerStep.
  std::size_t innerPerStep = 0;
  /// With serial steps, the operands' step slices either live on the work units that share them
  /// (0) or, when there are tiles to spare, round-robin on this many tiles after the work units
  /// (`storageTileOf`): each unit then only holds its output block and one step's slices, so
  /// blocks can be larger — fewer units, less exchange in total.
  std::size_t storageTiles = 0;
  poplar::Type inputType = poplar::FLOAT;
  poplar::Type outputType = poplar::FLOAT;
  poplar::Type partialsType = poplar::FLOAT;
  unsigned tilesUsed = 0;
  /// Bytes the busiest tile holds for this operation (operand blocks, outputs or partials,
  /// exchanged partials) and the budget it had to fit: availableMemoryProportion × bytes/tile.
  std::uint64_t bytesPerTile = 0;
  std::uint64_t bytesBudget = 0;
  /// False when no split fits the budget; the plan is then the one needing least memory.
  bool fitsBudget = true;
  /// The cost model's estimate (IPU cycles): compute, exchange and partials reduction.
  std::uint64_t computeCycles = 0, exchangeCycles = 0, reduceCycles = 0, totalCycles = 0;
  /// The host cost model's estimate of one run on the host (nanoseconds, rough).
  std::uint64_t hostNanoseconds = 0;
  PlanObjective objective = PlanObjective::HOST_TIME;
  /// Where the plan's tiles start: unit u (then the storage tiles) sits on tile
  /// (firstTile + u) mod numTiles. The planner leaves it 0; matMul moves it by a hash of the
  /// operation's name, so a model's many multiplies, each on a few tiles, do not all pile their
  /// outputs onto the first tiles.
  unsigned firstTile = 0;
  unsigned numTiles = 0; ///< The target's tiles (0: no wrapping).

  /// The tile of the plan's `index`-th tile slot.
  unsigned placed(std::size_t index) const {
    return static_cast<unsigned>(numTiles ? (firstTile + index) % numTiles : index);
  }

  /// The tile of work unit (group block, row block, column block, inner block).
  unsigned tileOf(std::size_t g, std::size_t i, std::size_t j, std::size_t p) const {
    return placed(unitOf(g, i, j, p));
  }
  /// The index of work unit (group block, row block, column block, inner block), from 0.
  std::size_t unitOf(std::size_t g, std::size_t i, std::size_t j, std::size_t p) const {
    return ((g * rowBlocks + i) * colBlocks + j) * innerBlocks + p;
  }

  /// When storageTiles > 0: the tile holding step `s` of operand block (g, outer, inner) — for
  /// the LHS (row block, inner block), for the RHS (inner block, column block).
  unsigned storageTileOf(bool lhs, std::size_t g, std::size_t outer, std::size_t inner,
                         std::size_t s) const {
    const std::size_t lhsSlices = groupBlocks * rowBlocks * innerBlocks * innerSteps;
    const std::size_t slice =
        lhs ? ((g * rowBlocks + outer) * innerBlocks + inner) * innerSteps + s
            : lhsSlices + ((g * innerBlocks + outer) * colBlocks + inner) * innerSteps + s;
    return placed(tilesUsed + slice % storageTiles);
  }
};

/// Prints the plan in a few lines (split, block sizes, tiles, memory, cycle estimate).
std::ostream &operator<<(std::ostream &os, const MatMulPlan &plan);

/// The plan matMul / matMulGrouped would use for these shapes: 2-D shapes {M,K} × {K,N} or
/// grouped 3-D shapes {G,M,K} × {G,K,N}. Throws poputil::poplibs_error for inconsistent shapes
/// and poplar::invalid_option for bad options.
MatMulPlan getMatMulPlan(const poplar::Graph &graph, const poplar::Type &inputType,
                         const poplar::Type &outputType, const std::vector<std::size_t> &aShape,
                         const std::vector<std::size_t> &bShape,
                         const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

} // namespace poplin
