// Helpers for spreading tensors over tiles.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/TensorCloneMethod.hpp>
#include <poplar/Type.hpp>

namespace poputil {

/// Splits `shape`'s elements into runs of whole grains (`grainSize` elements), giving each
/// tile in turn the same number of grains but never fewer than `minElementsPerTile` elements
/// (so small tensors use few tiles). The last tile used may get less.
std::vector<std::vector<poplar::Interval>> calcLinearTileMapping(const poplar::Graph &graph,
                                                                 std::vector<std::size_t> shape,
                                                                 unsigned minElementsPerTile,
                                                                 unsigned grainSize);
/// As above for `t`, with Poplar's defaults: 128 elements minimum, the vector width as grain.
std::vector<std::vector<poplar::Interval>> calcLinearTileMapping(const poplar::Graph &graph,
                                                                 const poplar::Tensor &t);

/// Maps `t` with `calcLinearTileMapping`.
void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile,
                       unsigned grainSize);
void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t);

/// How many more elements the fullest tile holds than it would under a linear mapping with
/// the same grain and minimum: 0 for a perfectly balanced tensor.
unsigned getTileImbalance(const poplar::Graph &graph, const poplar::Tensor &t,
                          unsigned minElementsPerTile = 0, unsigned grainSize = 1);
/// The same for a tensor's tile mapping (one list of intervals per tile; its length is taken as
/// the number of tiles).
unsigned getTileImbalance(const std::vector<std::vector<poplar::Interval>> &mapping,
                          unsigned minElementsPerTile = 0, unsigned grainSize = 1);

/// Tiles that hold at least one element of `t`, in increasing order.
std::vector<unsigned> getTilesUsed(const poplar::Graph &graph, const poplar::Tensor &t);

/// Whether some line of `t` along `dimension` (every index of that dimension, the others fixed)
/// has elements on more than one tile. Throws poplibs_error if `dimension` is not below t's rank,
/// or invalid_tile_mapping if an element of `t` is unmapped.
bool dimIsSplitOverTiles(const poplar::Graph &graph, const poplar::Tensor &t, unsigned dimension);

/// As dimIsSplitOverTiles, counting tiles of the same IPU as one (always false on one IPU).
bool dimIsSplitOverIPUs(const poplar::Graph &graph, const poplar::Tensor &t, unsigned dimension);

/// A new 1-D variable of `type` with fullTensor.dim(dim) elements, for use as the operand
/// broadcast along the other dimensions of `fullTensor` (a bias or a per-channel scale).
/// Element i is mapped to the tiles holding elements of fullTensor's slice i along `dim`:
/// consecutive elements used by the same tiles are shared out evenly between those tiles, in
/// grains of the data path width, so an element-wise operation needs little exchange.
/// `ditherMapping` rotates the whole mapping by a number of tiles derived from fullTensor's
/// shape, so that many small operands of different shapes do not all land on the same tiles.
/// Throws poplibs_error if `dim` is not below fullTensor's rank, or invalid_tile_mapping if
/// fullTensor is not completely mapped.
poplar::Tensor createBroadcastOperand(poplar::Graph &graph, const poplar::Tensor &fullTensor,
                                      const poplar::Type &type, unsigned dim,
                                      bool ditherMapping = false,
                                      const poplar::DebugContext &debugContext = {});

class TensorUseTrackerState;

/// Records which tiles use which elements of variables (for example the tiles of the vertices
/// that will read a tensor), then maps those elements onto the tiles that use them: elements
/// used by one tile go there; consecutive elements used by the same several tiles are shared
/// out evenly between those tiles. Copies are independent; moves leave an empty tracker.
class TensorUseTracker {
  std::unique_ptr<TensorUseTrackerState> st;

public:
  /// A tracker for tiles 0 … numTiles-1 (usually the graph's target's number of tiles).
  TensorUseTracker(unsigned numTiles);
  TensorUseTracker(const TensorUseTracker &other);
  TensorUseTracker(TensorUseTracker &&other);
  TensorUseTracker &operator=(const TensorUseTracker &other);
  TensorUseTracker &operator=(TensorUseTracker &&other);
  ~TensorUseTracker();

  /// How resolve() treats elements used by several tiles.
  enum class MappingMethod {
    /// A run used by several tiles next to a run used by only some of them (a halo between
    /// the regions of neighbouring tiles) goes whole to the lowest tile of that neighbour,
    /// instead of being cut into small pieces.
    OptimizeHaloRegions,
    /// Elements only ever go to tiles that use them.
    ConstrainMappingToUsedTiles,
    /// No preference (Tessera maps to tiles that use the elements, as above).
    None
  };

  /// Records that `tile` uses every element of `t`. Throws poplibs_error if tile is not below
  /// the tracker's number of tiles.
  void add(const poplar::Graph &graph, unsigned tile, const poplar::Tensor &t);

  /// Adds every use recorded by `other`. Throws poplibs_error if it tracks another number of
  /// tiles.
  void add(TensorUseTracker other);

  /// Decides a tile for every used element: runs of consecutive elements of a variable with the
  /// same users are split between those users in grains of `grainSize` elements, at least
  /// `minElementsPerTile` each where there are enough. With `extendPartialUsage`, the unused
  /// elements of each tracked variable are treated as used by the users of the nearest used
  /// run before them (or after them, at the start), so the whole variable gets mapped. The
  /// uses are replaced by the decision. Throws poplibs_error if grainSize is 0.
  void
  resolve(const poplar::Graph &graph, unsigned grainSize, unsigned minElementsPerTile,
          bool extendPartialUsage = false,
          TensorUseTracker::MappingMethod mappingMethod = TensorUseTracker::MappingMethod::None);

  /// resolve(), then sets the tile mapping of every element it decided on.
  void mapTensorsByUse(
      poplar::Graph &graph, unsigned grainSize, unsigned minElementsPerTile,
      bool extendPartialUsage = false,
      TensorUseTracker::MappingMethod mappingMethod = TensorUseTracker::MappingMethod::None);

  /// Whether no use has been recorded.
  bool empty() const;
};

/// A clone of `t` (see Graph::clone for `method`) mapped on IPU `dstIPU` of a multi-IPU graph:
/// each element goes to the tile with the same index within dstIPU as its source element's
/// tile has within its own IPU. No data is copied. Throws poplibs_error if dstIPU is not an
/// IPU of the target, or invalid_tile_mapping if `t` is not completely mapped.
poplar::Tensor cloneToIpu(
    poplar::Graph &graph, const poplar::Tensor &t, unsigned dstIPU,
    const poplar::DebugContext &debugContext = {},
    poplar::TensorCloneMethod method = poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);

/// cloneToIpu, plus a copy of `t` into the clone appended to `prog`; returns the clone.
poplar::Tensor copyToIpu(
    poplar::Graph &masterGraph, const poplar::Tensor &t, poplar::program::Sequence &prog,
    unsigned dstIPU, const poplar::DebugContext &debugContext = {},
    poplar::TensorCloneMethod method = poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);

/// cloneToIpu without the copy: sets `copySrc` and `copyDst` to the tensors a Copy program
/// must take to move `t` there (the caller adds it where it wants) and returns the clone.
poplar::Tensor createIpuCopy(
    poplar::Graph &graph, const poplar::Tensor &t, unsigned dstIpu, poplar::Tensor &copySrc,
    poplar::Tensor &copyDst, const poplar::DebugContext &debugContext = {},
    poplar::TensorCloneMethod method = poplar::TensorCloneMethod::PRESERVE_ORDER_AND_ALIASES);

/// Tessera extension, for vertices that work on whole rows of a [rows][n] tensor (softmax,
/// losses, top-k): the tile to work on each row. A row held whole by one tile is worked on
/// there. Rows spread over several tiles are dealt out evenly over all the target's tiles in row
/// order — the tile of their first element is often the same for every row, and gathering them
/// all there would overflow it. Throws invalid_tile_mapping if an element is unmapped.
std::vector<unsigned> wholeRowTiles(const poplar::Graph &graph, const poplar::Tensor &rows2d);

} // namespace poputil
