// How a tensor's elements are grouped and partitioned: detecting the groups of consecutive
// elements a layout keeps together (so vertices can work on whole groups), and creating or
// walking tensors cut into blocks along every dimension.
//
// PopLibs 3.x's poputil/VarStructure.hpp, with its names, signatures and defaults.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace poputil {

/// The grouping of `t`'s innermost dimension: the largest g dividing that dimension's size such
/// that every aligned group of g consecutive innermost elements (elements [k*g, (k+1)*g) of a
/// row, in every row) is one contiguous run of one variable on one tile. 1 means no grouping;
/// an empty tensor also gives 1. Unmapped elements count as one more tile, so an unmapped
/// variable is grouped by its layout alone. Throws poplibs_error if `t` has rank 0.
unsigned detectInnermostGrouping(const poplar::Graph &graph, const poplar::Tensor &t);

/// (dimension of `t`, grouping) pairs.
using GroupingInfo = std::pair<unsigned, unsigned>;

/// Every grouping of `t`, innermost first. Each round looks, in each dimension d of size
/// above 1, for a group of consecutive d-elements that, together with the groups already found,
/// keeps to one contiguous run on one tile (detectInnermostGrouping on d moved innermost), and
/// takes the dimension with the largest such group (the lowest d on a tie), until no
/// dimension gives more than 1. The same dimension can appear more than once: a layout
/// [C/8][H][W][8] of an [H][W][C] tensor on one tile gives (2, 8) then, for the contiguous
/// W × 8 blocks, (1, W), and so on. Throws poplibs_error if `t` has rank 0.
std::vector<GroupingInfo> detectDimGroupings(const poplar::Graph &graph, const poplar::Tensor &t);

/// A new, unmapped variable of `shape` laid out so that each block of a partition of it with
/// nPartitions[d] parts in dimension d is one contiguous region. Dimension d (size n) is cut
/// into parts of ceil(n / nPartitions[d]) elements, the last non-empty part holding what is
/// left and any further parts empty — the same cuts iterateTensorPartitions makes.
/// Throws poplibs_error if shape and nPartitions differ in length or a partition count is 0.
poplar::Tensor createPartitionableTensor(poplar::Graph &graph, const poplar::Type &type,
                                         const std::vector<std::size_t> &shape,
                                         const std::vector<std::size_t> &nPartitions,
                                         const poplar::DebugContext &debugContext = {});

/// Calls `f(i, s)` for every block of `t` partitioned as createPartitionableTensor describes:
/// `i` holds the block's index in each dimension (0 ≤ i[d] < nPartitions[d]) and `s` is the
/// block, a view of `t` (possibly empty). Blocks come with i[0] varying fastest. Throws
/// poplibs_error if t's rank differs from nPartitions' length or a partition count is 0.
void iterateTensorPartitions(
    const poplar::Tensor &t, const std::vector<std::size_t> &nPartitions,
    const std::function<void(const std::vector<std::size_t> &i, const poplar::Tensor &s)> &f);

} // namespace poputil
