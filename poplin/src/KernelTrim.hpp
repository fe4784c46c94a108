// Kernel taps that only ever meet padding: a convolution whose kernel is wider than its padded
// input's real part (a 5x5 depthwise kernel over the 1x1 or 2x2 fields late in EfficientNet,
// padding 2) multiplies those taps by zeros at every output. Dropping them, with the padding
// they covered, gives the same outputs from a smaller kernel: far less work, and the weight
// gradient of a dropped tap is exactly zero.
#pragma once

#include <optional>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/ConvParams.hpp>

namespace poplin::detail {

struct KernelTrim {
  /// Per field dimension, the taps dropped from the start and from the end of the kernel.
  std::vector<unsigned> lower, upper;
  /// The convolution with the smaller kernel and correspondingly less input padding.
  ConvParams params;
};

/// The taps of `params`' kernel that never meet a real input element, when there are any and
/// the transforms are simple enough to tell (input: padding only; kernel: none; output: any
/// truncation, stride and padding); nullopt otherwise.
std::optional<KernelTrim> trimUnusedKernelTaps(const ConvParams &params);

/// `weights` ([G][OC][IC][kernel...]) restricted to the taps `trim` keeps (a view).
poplar::Tensor keptTaps(const poplar::Tensor &weights, const KernelTrim &trim);

/// Weight deltas for the whole kernel from `kept` (the kept taps' deltas): the dropped taps'
/// deltas, zero at every step, are variables zeroed in `prog`, so a caller may update the result
/// in place as it would any deltas tensor.
poplar::Tensor withDroppedTapsZero(poplar::Graph &graph, const poplar::Tensor &kept,
                                   const KernelTrim &trim, poplar::program::Sequence &prog,
                                   const std::string &name);

} // namespace poplin::detail
