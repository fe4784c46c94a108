// Histograms of tensor values, e.g. to choose a scaling from the distribution of gradients.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// A new rank-1 tensor of levels.numElements() + 1 counts: bin 0 counts the elements of
/// `input` below levels[0], bin k those in [levels[k-1], levels[k]), the last bin those at or
/// above the last level (levels ascending; an element counts in bin k when it is below exactly
/// the levels from k on, so NaN counts in the last bin). With `absoluteOfInput`, |x| is
/// compared. `input` and `levels` are FLOAT or HALF of the same type; each tile counts the
/// elements it holds, then one vertex sums the per-tile counts (on tile 0, like the result).
/// Option `useFloatArithmetic` ("true"/"false", default false): count in FLOAT and return
/// FLOAT instead of UNSIGNED_INT (exact up to 2^24). Throws poputil::poplibs_error naming the
/// argument whose type or rank does not fit, poplar::invalid_option for a bad option.
poplar::Tensor histogram(poplar::Graph &graph, const poplar::Tensor &input,
                         const poplar::Tensor &levels, bool absoluteOfInput,
                         poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {},
                         const poplar::OptionFlags &options = {});

/// As above into `output` (levels.numElements() + 1 elements, UNSIGNED_INT or FLOAT, which
/// selects the arithmetic), adding to its values when `updateOutput` so that histograms
/// accumulate over calls.
void histogram(poplar::Graph &graph, const poplar::Tensor &input, poplar::Tensor &output,
               bool updateOutput, const poplar::Tensor &levels, bool absoluteOfInput,
               poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace popops
