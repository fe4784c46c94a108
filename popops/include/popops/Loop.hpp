// Counted loops of programs: a counter tensor the loop body can read (to slice by it, say),
// kept and advanced on the device by small counter vertices.
#pragma once

#include <cstddef>
#include <functional>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// Builds the loop body from the counter tensor it may read.
using CountedLoopBodyType = std::function<poplar::program::Program(const poplar::Tensor &)>;

/// The program `for (i = begin; i < end; i += step) body(i)`: i is a one-element UNSIGNED_INT
/// tensor on tile 0, passed to `body` once when the loop is built; it holds begin, begin+step, …
/// on the successive passes, ceil((end - begin) / step) of them (a Repeat). Throws
/// poputil::poplibs_error when `step` is 0 or when `begin` is not below `end`.
poplar::program::Sequence countedLoop(poplar::Graph &graph, std::size_t begin, std::size_t end,
                                      size_t step, const CountedLoopBodyType &body,
                                      const poplar::DebugContext &debugContext = {});

/// The program `for (i = 0; i != count; ++i) body(i)`, as above (count must be positive).
poplar::program::Sequence countedLoop(poplar::Graph &graph, std::size_t count,
                                      const CountedLoopBodyType &body,
                                      const poplar::DebugContext &debugContext = {});

/// Appends to `prog` a compute set with one counter vertex on `tile` that adds `countStep` to
/// the scalar `count` and returns a new UNSIGNED_INT scalar (on `tile`) set to 1 when the new
/// count differs from `countLimit`, else 0: the condition of countedForLoop's RepeatWhileTrue.
poplar::Tensor addForLoopCounterVertex(poplar::Graph &graph, const poplar::Tensor &count,
                                       const poplar::Tensor &countLimit, int countStep,
                                       unsigned tile, poplar::program::Sequence &prog,
                                       const poplar::DebugContext &di);

/// The program `for (count = initialCount; count != countLimit; count += countStep) body`, the
/// limit being read on the device each pass, so the number of passes is known only at run time.
/// `count` (the caller's, visible to `body`) and `countLimit` are one-element tensors of the
/// same type, INT or UNSIGNED_INT. A limit the count never equals loops forever, as the C loop
/// would. Throws poputil::poplibs_error naming the tensor when the types differ or are not
/// integers, or when a tensor has more than one element.
poplar::program::Sequence countedForLoop(poplar::Graph &graph, const poplar::Tensor &count,
                                         int initialCount, const poplar::Tensor &countLimit,
                                         int countStep, const poplar::program::Program &body,
                                         const poplar::DebugContext &debugContext = {});

/// As above with a counter of countLimit's type that the loop creates (on tile 0) and `body`
/// cannot see.
poplar::program::Sequence countedForLoop(poplar::Graph &graph, int initialCount,
                                         const poplar::Tensor &countLimit, int countStep,
                                         const poplar::program::Program &body,
                                         const poplar::DebugContext &debugContext = {});

} // namespace popops
