// The k largest (or smallest) elements of each innermost row of a tensor.
//
// For input shape [..., n] results have shape [..., k]. Selection is deterministic: among
// equal values the lower index wins; NaN counts as larger than every number. One vertex per
// tile handles the rows whose first element that tile holds. Types: FLOAT, HALF, INT,
// UNSIGNED_INT. k == 0, k > n or an unsupported type throw poputil::poplibs_error.
#pragma once

#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/SortOrder.hpp>

namespace popops {

/// Parameters of the topK functions.
struct TopKParams {
  /// How many elements to return per row (1 <= k <= innermost dimension).
  unsigned k;
  /// True: the k largest; false: the k smallest.
  bool largest;
  /// Order of the k results. NONE returns the best first (as DESCENDING when largest, as
  /// ASCENDING otherwise). Ties always keep index order.
  SortOrder sortOrder;
  /// Accepted for source compatibility; results are always stable.
  bool stableSort;

  TopKParams(unsigned k, bool largest, SortOrder sortOrder, bool stableSort = false) noexcept;
};

/// The top k values of each innermost row of `t`.
poplar::Tensor topK(poplar::Graph &graph, poplar::program::Sequence &prog, const poplar::Tensor &t,
                    const TopKParams &params, const poplar::DebugContext &debugContext = {});

/// The top k values and their UNSIGNED_INT indices within the innermost dimension
/// (argMax is topKWithPermutation with k = 1).
std::pair<poplar::Tensor, poplar::Tensor>
topKWithPermutation(poplar::Graph &graph, poplar::program::Sequence &prog, const poplar::Tensor &t,
                    const TopKParams &params, const poplar::DebugContext &debugContext = {});

} // namespace popops
