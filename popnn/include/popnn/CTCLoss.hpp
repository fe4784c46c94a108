// Connectionist temporal classification (CTC) loss and its gradient, for sequence models whose
// output alignment to the label is unknown (speech, handwriting).
//
// data is [maxTime][batchSize][numClasses] log-probabilities (or logits), FLOAT or HALF; labels
// [batchSize][maxLabelLength], dataLengths and labelLengths [batchSize], all UNSIGNED_INT: entry
// b uses the first dataLengths[b] timesteps and labelLengths[b] labels. The loss of entry b is
// -log P(label | data), by the alpha-beta recursions in log space, one vertex per batch entry on
// the tile the plan gives it. An impossible alignment (too few timesteps) has loss +inf and a
// zero gradient; timesteps from dataLengths[b] on have a zero gradient. Errors (types, shapes,
// blankClass out of range, unknown options) throw poputil::poplibs_error naming the argument.
#pragma once

#include <cstddef>
#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popnn/CTCPlan.hpp>

namespace popnn {
namespace ctc {

/// Plans CTC loss for inputs of type inType and results of type outType (FLOAT or HALF).
/// Options: "partialsType" (FLOAT, the type of the recursions; HALF is accepted only with HALF
/// inputs and computed in FLOAT), "availableMemoryProportion" (0 to 1, default 0.6).
Plan plan(const poplar::Graph &graph, const poplar::Type &inType, const poplar::Type &outType,
          unsigned batchSize, unsigned maxTime, unsigned maxLabelLength, unsigned numClasses,
          const poplar::OptionFlags &options = {});

/// A new [maxTime][batchSize][numClasses] data tensor, batch entry b on the plan's tile for b.
poplar::Tensor createDataInput(poplar::Graph &graph, const poplar::Type &type,
                               const std::size_t batchSize, const std::size_t maxTime,
                               const std::size_t numClasses, const Plan &plan,
                               const poplar::DebugContext &debugContext = {});

/// A new [batchSize][maxLabelLength] labels tensor, row b on the plan's tile for b.
poplar::Tensor createLabelsInput(poplar::Graph &graph, const poplar::Type &type,
                                 const std::size_t batchSize, const std::size_t maxLabelLength,
                                 const Plan &plan, const poplar::DebugContext &debugContext = {});

/// Returns (loss [batchSize], gradient [maxTime][batchSize][numClasses]), both outType, from
/// log-probabilities. Option "includeSoftmaxGradient" (default true): the gradient with respect
/// to the logits the log-probabilities came from by log-softmax, exp(logProbs) - γ; false gives
/// the gradient with respect to logProbs, -γ (γ the posterior occupancy of each class).
std::pair<poplar::Tensor, poplar::Tensor> calcLossAndGradientLogProbabilities(
    poplar::Graph &graph, const poplar::Type &outType, const poplar::Tensor &logProbs,
    const poplar::Tensor &labels, const poplar::Tensor &dataLengths,
    const poplar::Tensor &labelLengths, poplar::program::Sequence &prog, const unsigned blankClass,
    const Plan &plan, const poplar::DebugContext &debugContext = {},
    const poplar::OptionFlags &options = {});

/// As above from logits: applies log-softmax over the classes first; the gradient is with
/// respect to the logits.
std::pair<poplar::Tensor, poplar::Tensor> calcLossAndGradientLogits(
    poplar::Graph &graph, const poplar::Type &outType, const poplar::Tensor &logits,
    const poplar::Tensor &labels, const poplar::Tensor &dataLengths,
    const poplar::Tensor &labelLengths, poplar::program::Sequence &prog, const unsigned blankClass,
    const Plan &plan, const poplar::DebugContext &debugContext = {},
    const poplar::OptionFlags &options = {});

} // namespace ctc
} // namespace popnn
