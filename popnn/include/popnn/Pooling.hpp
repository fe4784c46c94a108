// Max, average and sum pooling over the field dimensions of [batch][channels][field…] tensors
// (1, 2 or 3 field dimensions), forward and input gradient.
//
// Windows start at `inputTruncationOrPaddingLower` (negative: that many leading elements are
// dropped; positive: implicit padding) and step by `stride`. Padding never contributes: MAX
// ignores it and AVG divides each output by the number of real input elements in its window.
// Non-overlapping windows (stride == kernel, no padding, field divisible by the kernel, e.g.
// global average pooling) are computed by one reduction; other windows by one pass per kernel
// offset over strided views of the input. FLOAT and HALF.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <popnn/PoolingDef.hpp>

namespace popnn {
namespace pooling {

/// What a pooling operation does and the shapes it applies to.
struct PoolParams {
  /// MAX, AVG or SUM.
  PoolingType poolingType;
  /// The input's field shape (without batch and channel dimensions).
  std::vector<std::size_t> inputFieldShape;
  /// The window's shape, one entry per field dimension.
  std::vector<std::size_t> kernelShape;
  /// The step between windows, one entry per field dimension.
  std::vector<unsigned> stride;
  /// Implicit padding (positive) or truncation (negative) before each field dimension.
  std::vector<int> inputTruncationOrPaddingLower;
  /// Implicit padding (positive) or truncation (negative) after each field dimension.
  std::vector<int> inputTruncationOrPaddingUpper;
  std::size_t numChannels;
  std::size_t batchSize;
  poplar::Type dType;

  PoolParams(PoolingType poolingType, std::vector<std::size_t> inputFieldShape,
             std::vector<std::size_t> kernelShape, std::vector<unsigned> stride,
             std::vector<int> inputTruncationOrPaddingLower,
             std::vector<int> inputTruncationOrPaddingUpper, std::size_t numChannels,
             std::size_t batchSize, poplar::Type dType)
      : poolingType(poolingType), inputFieldShape(std::move(inputFieldShape)),
        kernelShape(std::move(kernelShape)), stride(std::move(stride)),
        inputTruncationOrPaddingLower(std::move(inputTruncationOrPaddingLower)),
        inputTruncationOrPaddingUpper(std::move(inputTruncationOrPaddingUpper)),
        numChannels(numChannels), batchSize(batchSize), dType(dType) {}

  std::size_t getNumFieldDims() const { return inputFieldShape.size(); }
  /// floor((field + lower + upper - kernel) / stride) + 1 per field dimension.
  std::vector<std::size_t> getOutputFieldShape() const;
};

std::ostream &operator<<(std::ostream &o, const PoolParams &params);

/// "MAX", "AVG" or "SUM".
const char *asString(const PoolingType &method);

std::vector<std::size_t> getOutputFieldShape(const PoolParams &params);

/// Element operations of the forward / backward pass (one per window element and output).
std::uint64_t getFwdFlops(const PoolParams &params);
std::uint64_t getBwdFlops(const PoolParams &params);

/// The cycles those element operations take on `graph`'s target if every tile's every worker
/// does one vector (getVectorWidth(dType) elements) per cycle: a lower bound for comparison.
double getFwdPerfectCycleCount(const poplar::Graph &graph, const PoolParams &params);
double getBwdPerfectCycleCount(const poplar::Graph &graph, const PoolParams &params);

/// Pools `in` ([batchSize][numChannels][inputFieldShape…], of type dType). Returns
/// [batchSize][numChannels][outputFieldShape…]. Throws poputil::poplibs_error naming the
/// parameter at fault: mismatched dimension counts, a zero kernel or stride, a window larger
/// than the padded field, an input whose shape or type disagrees with `params`.
poplar::Tensor pool(poplar::Graph &graph, const PoolParams &params, const poplar::Tensor &in,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                    const poplar::OptionFlags &options = {});

/// Gradient with respect to the pooling input, for MAX (and AVG/SUM, where `in` and `pooled` are
/// only shape-checked). For MAX the gradient of each output goes to every input element equal to
/// it; with `useScaledGradient` it is divided by the number of such elements in the window.
poplar::Tensor poolInputGradient(poplar::Graph &graph, const PoolParams &params,
                                 const poplar::Tensor &in, const poplar::Tensor &pooled,
                                 const poplar::Tensor &pooledGradient, bool useScaledGradient,
                                 poplar::program::Sequence &prog,
                                 const poplar::DebugContext &debugContext = {},
                                 const poplar::OptionFlags &options = {});

/// Gradient with respect to the pooling input for AVG and SUM (throws for MAX, which needs the
/// forward tensors). `fwdChansPerGroup` is accepted for compatibility (layout hint only).
poplar::Tensor poolInputGradient(poplar::Graph &graph, const PoolParams &params,
                                 const unsigned fwdChansPerGroup,
                                 const poplar::Tensor &pooledGradient,
                                 poplar::program::Sequence &prog,
                                 const poplar::DebugContext &debugContext = {},
                                 const poplar::OptionFlags &options = {});

} // namespace pooling
} // namespace popnn
