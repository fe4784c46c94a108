// Changing how a tensor's elements are grouped in memory (e.g. from groups of 16 channels to
// groups of 16 along another dimension) by copies and per-tile transposition vertices, and the
// helpers that decide when that pays off.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poputil/VarStructure.hpp>

namespace popops {
namespace rearrange {

/// Whether the fast transposition path applies to `numTranspositions` matrices of
/// `numRows` x `numColumns` elements of `type`: 2-byte types, both sizes multiples of 4, and
/// counts within the target's repeat-count and stride limits.
bool canUseFastTranspose(const poplar::Target &target, const poplar::Type &type, unsigned numRows,
                         unsigned numColumns, unsigned numTranspositions);

/// Adds to `cs` the vertices that transpose a set of `rows` x `cols` matrices of `dType`:
/// mapping[tile] lists the indices of the matrices worked on at `tile`, and getInOut(index)
/// gives matrix `index`'s input and output, each flattened to one dimension. Each output is
/// mapped to the tile that transposes it. Throws poputil::poplibs_error for a type without
/// transposition vertices (HALF, FLOAT, SHORT, UNSIGNED_SHORT, INT, UNSIGNED_INT have them)
/// or sizes above 65535.
void addTransposeVertices(
    poplar::Graph &graph, const poplar::ComputeSet &cs, const poplar::Type &dType, unsigned rows,
    unsigned cols, const poplar::Graph::TileToTensorMapping &mapping,
    std::function<std::pair<const poplar::Tensor, const poplar::Tensor>(std::size_t)> getInOut,
    const poplar::DebugContext &debugContext = {});

/// A new tensor holding `in` with its two innermost dimensions transposed, filled by vertices
/// added to `cs`; each matrix is transposed on the tile holding its first element.
poplar::Tensor partialTranspose(poplar::Graph &graph, const poplar::Tensor &in,
                                const poplar::ComputeSet &cs,
                                const poplar::DebugContext &debugContext = {});

/// The smallest group size the transposition vertices handle efficiently for `type`:
/// 4 for 2-byte types, 2 for 4-byte types, 1 otherwise.
unsigned getMinimumRegroupGrainSize(const poplar::Type &type);

/// The (from, to) groupings regroupTensor actually uses: the given ones, or both reduced by a
/// common factor when smaller transpositions spread better over the target's tiles and workers.
std::pair<poputil::GroupingInfo, poputil::GroupingInfo>
updateGrouping(const poplar::Graph &graph, const poplar::Tensor &t,
               const poputil::GroupingInfo &from, const poputil::GroupingInfo &to);

/// A tensor with `t`'s shape and values laid out with grouping `to` ((dimension, group size):
/// runs of that many consecutive elements of the dimension contiguous in memory), given that
/// `t` is laid out with grouping `from`. Appends the copies that gather each transposition's
/// elements to `copies` and the transposition vertices to `transposeCS`; run the copies first.
/// A tensor of rank <= 1 is returned as it is. Throws poputil::poplibs_error when a grouping
/// names a dimension `t` lacks or does not divide it, or for a type without transpositions.
poplar::Tensor regroupTensor(poplar::Graph &graph, const poplar::Tensor &t,
                             std::vector<poplar::program::Copy> &copies,
                             const poplar::ComputeSet &transposeCS,
                             const poputil::GroupingInfo &from, const poputil::GroupingInfo &to,
                             const poplar::DebugContext &debugContext = {});

/// As above with the copies appended to the sequence `copies`.
poplar::Tensor regroupTensor(poplar::Graph &graph, const poplar::Tensor &t,
                             poplar::program::Sequence &copies,
                             const poplar::ComputeSet &transposeCS,
                             const poputil::GroupingInfo &from, const poputil::GroupingInfo &to,
                             const poplar::DebugContext &debugContext = {});

/// Regroups `t` to `to` from its detected innermost grouping, appending the copies and the
/// transposition to `prog`, when that is possible (valid `to`, an innermost grouping that is a
/// multiple of the grain size and differs from `to`'s dimension); otherwise returns `t`.
poplar::Tensor regroupIfPossible(poplar::Graph &graph, const poplar::Tensor &t,
                                 poplar::program::Sequence &prog, const poputil::GroupingInfo &to,
                                 const poplar::DebugContext &debugContext = {});

/// Regroups `in` to the innermost grouping detected on `ref` (same shape) when both are
/// multiples of the grain size and name different dimensions; otherwise returns `in`. The
/// copies go to `preTranspose`, the vertices to `transposeCS`. Throws poputil::poplibs_error
/// when the shapes differ.
poplar::Tensor regroupIfBeneficial(poplar::Graph &graph, const poplar::Tensor &in,
                                   const poplar::Tensor &ref,
                                   std::vector<poplar::program::Copy> &preTranspose,
                                   poplar::ComputeSet transposeCS,
                                   const poplar::DebugContext &debugContext = {});

/// As above, appending the copies and the transposition to `prog`.
poplar::Tensor regroupIfBeneficial(poplar::Graph &graph, const poplar::Tensor &in,
                                   const poplar::Tensor &ref, poplar::program::Sequence &prog,
                                   const poplar::DebugContext &debugContext = {});

/// As above with the target grouping (innermost dimension, `preferredGrouping`). Throws
/// poputil::poplibs_error when `preferredGrouping` does not divide the innermost dimension.
poplar::Tensor regroupIfBeneficial(poplar::Graph &graph, const poplar::Tensor &in,
                                   std::size_t preferredGrouping, poplar::program::Sequence &prog,
                                   const poplar::DebugContext &debugContext = {});

} // namespace rearrange
} // namespace popops
