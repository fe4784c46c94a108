// Connectionist temporal classification (CTC) decoding by prefix beam search: the most likely
// label sequences for each batch entry of a sequence model's output.
//
// data is [maxTime][batchSize][numClasses] log-probabilities (or logits), FLOAT or HALF;
// dataLengths [batchSize] UNSIGNED_INT: entry b decodes its first dataLengths[b] timesteps. Each
// step extends every beam by every class and merges candidates that collapse (merge repeats,
// drop blanks) to the same label sequence, tracking the probability of ending in a blank and in
// a non-blank; the beamwidth most probable survive (ties keep candidate order: beam, then the
// beam kept as is, then extensions by class). One vertex per batch entry on the plan's tile.
// Results: labelProbs [batchSize][topPaths] (log probability of each decoded sequence, in the
// input type; -inf past the surviving beams), labelLengths [batchSize][topPaths] and
// decodedLabels [batchSize][topPaths][maxTime] (UNSIGNED_INT; entries past a sequence's length
// hold blankClass). Errors throw poputil::poplibs_error naming the argument.
#pragma once

#include <cstddef>
#include <tuple>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popnn/CTCPlan.hpp>

namespace popnn {
namespace ctc_infer {

/// Plans beam search over inputs of type inType (FLOAT or HALF). Options: "partialsType"
/// (FLOAT; HALF is accepted only with HALF inputs and computed in FLOAT),
/// "availableMemoryProportion" (0 to 1, default 0.6).
ctc::Plan plan(const poplar::Graph &graph, const poplar::Type &inType, unsigned batchSize,
               unsigned maxTime, unsigned numClasses, unsigned beamwidth,
               const poplar::OptionFlags &options = {});

/// A new [maxTime][batchSize][numClasses] data tensor, batch entry b on the plan's tile for b.
poplar::Tensor createDataInput(poplar::Graph &graph, const poplar::Type &type,
                               const std::size_t batchSize, const std::size_t maxTime,
                               const std::size_t numClasses, const ctc::Plan &plan,
                               const poplar::DebugContext &debugContext = {});

/// The topPaths (<= beamwidth) most likely label sequences of each batch entry of logProbs:
/// (labelProbs, labelLengths, decodedLabels) as described above.
std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor> beamSearchDecoderLogProbabilities(
    poplar::Graph &graph, const poplar::Tensor &logProbs, const poplar::Tensor &dataLengths,
    poplar::program::Sequence &prog, unsigned blankClass, unsigned beamwidth, unsigned topPaths,
    const ctc::Plan &plan, const poplar::DebugContext &debugContext = {},
    const poplar::OptionFlags &options = {});

/// As above from logits: applies log-softmax over the classes first.
std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor>
beamSearchDecoderLogits(poplar::Graph &graph, const poplar::Tensor &logits,
                        const poplar::Tensor &dataLengths, poplar::program::Sequence &prog,
                        unsigned blankClass, unsigned beamwidth, unsigned topPaths,
                        const ctc::Plan &plan, const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {});

} // namespace ctc_infer
} // namespace popnn
