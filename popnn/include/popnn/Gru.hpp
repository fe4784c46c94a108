// Gated recurrent units (popnn::gru): a basic GRU cell run over a whole sequence as one graph
// program loop, with its backward pass and weight update.
//
// For each step t, from the input x_t and the previous output h_{t-1}:
//   r = σ(x_t·Wr + h_{t-1}·Ur + br)          reset gate   (σ = recurrentActivation, sigmoid)
//   u = σ(x_t·Wu + h_{t-1}·Uu + bu)          update gate
//   c = φ(x_t·Wc + (r ∘ h_{t-1})·Uc + bc)    candidate    (φ = activation, tanh)
//   h_t = u ∘ h_{t-1} + (1 − u) ∘ c
// With resetAfter the reset gate is applied after the recurrent weights, each unit having an
// input bias b[.][0] and a recurrent bias b[.][1] (PyTorch's nn.GRU formula):
//   r = σ(x_t·Wr + b[r][0] + h_{t-1}·Ur + b[r][1]),  u likewise,
//   c = φ(x_t·Wc + b[c][0] + r ∘ (h_{t-1}·Uc + b[c][1])).
// Shapes: input [timeSteps][batch][inputSize]; inputWeights [3][inputSize][outputSize];
// outputWeights [3][outputSize][outputSize]; biases [3][outputSize] ([3][2][outputSize] with
// resetAfter); the outermost 3 follows GruParams::cellOrder. The state is [batch][outputSize].
// Options: as popnn/Lstm.hpp (availableMemoryProportion, inferenceOnly, partialsType,
// weightAccumulatorsType, preCalcWeights, recomputationMode, rnnCodeReuse, numShards).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/MatMul.hpp>
#include <popnn/GruDef.hpp>
#include <popnn/NonLinearityDef.hpp>
#include <popnn/Rnn.hpp>

namespace popnn {
namespace gru {

/// [reset gate, update gate, candidate]: the default meaning of the outermost dimension of the
/// weights and biases.
const std::vector<BasicGruCellUnit> getDefaultBasicGruCellOrder();

/// The shape and configuration of one GRU layer.
struct GruParams {
  rnn::RnnParams rnn;

  /// Deprecated copies of rnn.dataType, rnn.batchSize, rnn.timeSteps and rnn.layerSizes.
  poplar::Type dataType;
  std::size_t batchSize;
  std::size_t timeSteps;
  std::vector<std::size_t> layerSizes;
  /// If true gruFwd returns every step's output [timeSteps][batch][outputSize]; otherwise only
  /// the last [batch][outputSize] (and the gradients take the same shape).
  bool outputFullSequence = true;
  /// If false the backward pass does not compute input gradients.
  bool calcInputGradients = true;
  /// Which unit each slice of the weights' and biases' outermost dimension holds (a permutation
  /// of the three units; PyTorch's order is {RESET, UPDATE, CANDIDATE}).
  std::vector<BasicGruCellUnit> cellOrder = getDefaultBasicGruCellOrder();
  /// Apply the reset gate after the candidate's recurrent weights and bias (see above).
  bool resetAfter = false;
  /// φ, applied to the candidate.
  NonLinearityType activation = NonLinearityType::TANH;
  /// σ, applied to the two gates.
  NonLinearityType recurrentActivation = NonLinearityType::SIGMOID;

  GruParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
            std::vector<std::size_t> layerSizes,
            NonLinearityType activation = NonLinearityType::TANH,
            NonLinearityType recurrentActivation = NonLinearityType::SIGMOID);

  /// With run-time step counts `timeSteps` ({batchSize} or {1}, INT or UNSIGNED_INT) of at most
  /// `maxTimeSteps`: past a sequence's end its gates are zero, its outputs are zero and its
  /// state stops updating (see rnn::RnnParams::varTimeSteps).
  GruParams(poplar::Type dataType, std::size_t batchSize, std::size_t maxTimeSteps,
            const poplar::Tensor &timeSteps, std::vector<std::size_t> layerSizes,
            NonLinearityType activation = NonLinearityType::TANH,
            NonLinearityType recurrentActivation = NonLinearityType::SIGMOID);

  GruParams(const GruParams &other);
};

/// Floating-point operations of the forward pass over the sequence (multiply-adds count 2).
uint64_t getBasicGruCellFwdFlops(const GruParams &params);
/// Floating-point operations of the backward pass.
uint64_t getBasicGruCellBwdFlops(const GruParams &params);
/// Floating-point operations of the weight update.
uint64_t getBasicGruCellWuFlops(const GruParams &params);

/// An input tensor [timeSteps][batch][inputSize], each step spread over the tiles.
poplar::Tensor createInput(poplar::Graph &graph, const GruParams &params,
                           const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options = {},
                           poplin::PlanningCache *planningCache = nullptr);

/// The initial output h_{-1} [batch][outputSize].
poplar::Tensor createInitialState(poplar::Graph &graph, const GruParams &params,
                                  const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options, poplin::PlanningCache *cache);

/// The parameters of a GRU cell, or their gradients.
struct GruWeights {
  poplar::Tensor inputWeights;  ///< [3][inputSize][outputSize]
  poplar::Tensor outputWeights; ///< [3][outputSize][outputSize]
  poplar::Tensor biases;        ///< [3][outputSize], or [3][2][outputSize] with resetAfter
};

/// The input and recurrent weight kernels (first and second of the pair).
std::pair<poplar::Tensor, poplar::Tensor> createWeightsKernel(
    poplar::Graph &graph, const GruParams &params, const poplar::DebugContext &debugContext,
    const poplar::OptionFlags &options = {}, poplin::PlanningCache *planningCache = nullptr);

/// The biases.
poplar::Tensor createWeightsBiases(poplar::Graph &graph, const GruParams &params,
                                   const poplar::DebugContext &debugContext,
                                   const poplar::OptionFlags &options = {},
                                   poplin::PlanningCache *planningCache = nullptr);

/// Kernels and biases together.
GruWeights createWeights(poplar::Graph &graph, const GruParams &params,
                         const poplar::DebugContext &debugContext,
                         const poplar::OptionFlags &options = {},
                         poplin::PlanningCache *planningCache = nullptr);

/// An attention tensor [batch][timeSteps] for the AUGRU functions.
poplar::Tensor createAttention(poplar::Graph &graph, const GruParams &params,
                               const poplar::DebugContext &debugContext,
                               const poplar::OptionFlags &options = {});

/// Runs the GRU over `in` from `stateInit`; returns the outputs (see outputFullSequence). If
/// `intermediates` is not null it receives what the backward pass needs ([timeSteps][5][batch]
/// [outputSize] in Tessera: r, u, c, h_t and r ∘ h_{t-1} (resetAfter: h_{t-1}·Uc + b[c][1])).
/// Throws poputil::poplibs_error naming the argument whose shape or type is wrong.
poplar::Tensor
gruFwd(poplar::Graph &graph, const GruParams &params, const poplar::Tensor &stateInit,
       const poplar::Tensor &in, const GruWeights &weights, poplar::Tensor *intermediates,
       poplar::program::Sequence &fwdProg, const poplar::DebugContext &debugContext = {},
       const poplar::OptionFlags &options = {}, poplin::PlanningCache *planningCache = nullptr);

/// Backpropagates `gradLayerNext` (shaped like gruFwd's output) through the sequence, last step
/// first. Writes the input gradients to `*inputGrad` if not null (and calcInputGradients) and
/// what the weight update needs to `*bwdIntermediates` if not null. Returns the gradient of the
/// initial output.
poplar::Tensor gruBwd(poplar::Graph &graph, const GruParams &params,
                      poplar::program::Sequence &prog, const poplar::Tensor &fwdOutputInit,
                      const poplar::Tensor &fwdIntermediatesSeq, const GruWeights &weights,
                      const poplar::Tensor &fwdInputSeq, const poplar::Tensor &fwdOutput,
                      const poplar::Tensor &gradLayerNext, poplar::Tensor *inputGrad,
                      poplar::Tensor *bwdIntermediates, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options_, poplin::PlanningCache *planningCache);

/// The weight gradients (summed over batch and time), in the weights' layout and cellOrder.
GruWeights gruWU(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                 const poplar::Tensor &fwdOutputInit, const poplar::Tensor &fwdIntermediates,
                 const poplar::Tensor &bwdIntermediates, const GruWeights &weights,
                 const poplar::Tensor &input, const poplar::Tensor &output,
                 const poplar::DebugContext &debugContext, const poplar::OptionFlags &options_,
                 poplin::PlanningCache *planningCache);

/// gruBwd followed by gruWU; the weight gradients go to `weightsGrad`.
poplar::Tensor gruBwdWithWU(poplar::Graph &graph, const GruParams &params,
                            poplar::program::Sequence &prog, const poplar::Tensor &fwdOutputInit,
                            const poplar::Tensor &fwdIntermediates, const GruWeights &weights,
                            const poplar::Tensor &input, const poplar::Tensor &output,
                            const poplar::Tensor &outputGrad, poplar::Tensor *inputGrad,
                            GruWeights &weightsGrad, const poplar::DebugContext &debugContext,
                            const poplar::OptionFlags &options_,
                            poplin::PlanningCache *planningCache);

// AUGRU (GRU with an attentional update gate): as the GRU, with the update gate scaled by one
// attention score a per batch entry and step before the state update:
//   u' = (1 − a_t) ∘ u,  h_t = u' ∘ h_{t-1} + (1 − u') ∘ c.
// attScores / attentions are [batch][timeSteps]; the intermediates have the GRU's layout.

/// The AUGRU forward pass (see gruFwd).
poplar::Tensor auGruFwd(poplar::Graph &graph, const GruParams &params,
                        const poplar::Tensor &stateInit, const poplar::Tensor &in,
                        const GruWeights &weights, poplar::Tensor *intermediates,
                        const poplar::Tensor &attScores, poplar::program::Sequence &fwdProg,
                        const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {},
                        poplin::PlanningCache *planningCache = nullptr);

/// The AUGRU backward pass (see gruBwd); writes the attention gradients [batch][timeSteps] to
/// `*attentionsGrad` if not null.
poplar::Tensor auGruBwd(poplar::Graph &graph, const GruParams &params,
                        poplar::program::Sequence &prog, const poplar::Tensor &fwdOutputInit,
                        const poplar::Tensor &fwdIntermediatesSeq, const GruWeights &weights,
                        const poplar::Tensor &fwdInputSeq, const poplar::Tensor &fwdOutput,
                        const poplar::Tensor &gradLayerNext, poplar::Tensor *inputGrad,
                        poplar::Tensor *bwdIntermediates, const poplar::Tensor &attentions,
                        poplar::Tensor *attentionsGrad, const poplar::DebugContext &debugContext,
                        const poplar::OptionFlags &options_, poplin::PlanningCache *planningCache);

/// The AUGRU weight update (see gruWU).
GruWeights auGruWU(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
                   const poplar::Tensor &fwdOutputInit, const poplar::Tensor &fwdIntermediates,
                   const poplar::Tensor &bwdIntermediates, const GruWeights &weights,
                   const poplar::Tensor &input, const poplar::Tensor &output,
                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options_,
                   poplin::PlanningCache *planningCache);

/// auGruBwd followed by auGruWU.
poplar::Tensor
auGruBwdWithWU(poplar::Graph &graph, const GruParams &params, poplar::program::Sequence &prog,
               const poplar::Tensor &fwdOutputInit, const poplar::Tensor &fwdIntermediates,
               const GruWeights &weights, const poplar::Tensor &input, const poplar::Tensor &output,
               const poplar::Tensor &outputGrad, poplar::Tensor *inputGrad, GruWeights &weightsGrad,
               const poplar::Tensor &attentions, poplar::Tensor *attentionsGrad,
               const poplar::DebugContext &debugContext, const poplar::OptionFlags &options_,
               poplin::PlanningCache *planningCache);

// Deprecated forms taking the run-time sequence lengths `realTimeSteps` ({batch} or {1}, INT or
// UNSIGNED_INT) as an argument: each is the form above run with params.rnn.varTimeSteps =
// realTimeSteps.

poplar::Tensor gruFwd(poplar::Graph &graph, const GruParams &params,
                      const poplar::Tensor &stateInit, const poplar::Tensor &in,
                      const poplar::Tensor &realTimeSteps, const GruWeights &weights,
                      poplar::Tensor *intermediates, poplar::program::Sequence &fwdProg,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {},
                      poplin::PlanningCache *planningCache = nullptr);

poplar::Tensor
auGruFwd(poplar::Graph &graph, const GruParams &params, const poplar::Tensor &stateInit,
         const poplar::Tensor &in, const poplar::Tensor &realTimeSteps, const GruWeights &weights,
         poplar::Tensor *intermediates, const poplar::Tensor &attScores,
         poplar::program::Sequence &fwdProg, const poplar::DebugContext &debugContext = {},
         const poplar::OptionFlags &options = {}, poplin::PlanningCache *planningCache = nullptr);

poplar::Tensor gruBwd(poplar::Graph &graph, const GruParams &params,
                      poplar::program::Sequence &prog, const poplar::Tensor &fwdOutputInit,
                      const poplar::Tensor &fwdIntermediatesSeq, const GruWeights &weights,
                      const poplar::Tensor &fwdInputSeq, const poplar::Tensor &realTimeSteps,
                      const poplar::Tensor &fwdOutput, const poplar::Tensor &gradLayerNext,
                      poplar::Tensor *inputGrad, poplar::Tensor *bwdIntermediates,
                      const poplar::DebugContext &debugContext, const poplar::OptionFlags &options_,
                      poplin::PlanningCache *planningCache);

poplar::Tensor auGruBwd(poplar::Graph &graph, const GruParams &params,
                        poplar::program::Sequence &prog, const poplar::Tensor &fwdOutputInit,
                        const poplar::Tensor &fwdIntermediatesSeq, const GruWeights &weights,
                        const poplar::Tensor &fwdInputSeq, const poplar::Tensor &realTimeSteps,
                        const poplar::Tensor &fwdOutput, const poplar::Tensor &gradLayerNext,
                        poplar::Tensor *inputGrad, poplar::Tensor *bwdIntermediates,
                        const poplar::Tensor &attentions, poplar::Tensor *attentionsGrad,
                        const poplar::DebugContext &debugContext,
                        const poplar::OptionFlags &options_, poplin::PlanningCache *planningCache);

poplar::Tensor gruBwdWithWU(poplar::Graph &graph, const GruParams &params,
                            poplar::program::Sequence &prog, const poplar::Tensor &fwdOutputInit,
                            const poplar::Tensor &fwdIntermediates, const GruWeights &weights,
                            const poplar::Tensor &input, const poplar::Tensor &realTimeSteps,
                            const poplar::Tensor &output, const poplar::Tensor &outputGrad,
                            poplar::Tensor *inputGrad, GruWeights &weightsGrad,
                            const poplar::DebugContext &debugContext,
                            const poplar::OptionFlags &options_,
                            poplin::PlanningCache *planningCache);

poplar::Tensor auGruBwdWithWU(poplar::Graph &graph, const GruParams &params,
                              poplar::program::Sequence &prog, const poplar::Tensor &fwdOutputInit,
                              const poplar::Tensor &fwdIntermediates, const GruWeights &weights,
                              const poplar::Tensor &input, const poplar::Tensor &realTimeSteps,
                              const poplar::Tensor &output, const poplar::Tensor &outputGrad,
                              poplar::Tensor *inputGrad, GruWeights &weightsGrad,
                              const poplar::Tensor &attentions, poplar::Tensor *attentionsGrad,
                              const poplar::DebugContext &debugContext,
                              const poplar::OptionFlags &options_,
                              poplin::PlanningCache *planningCache);

} // namespace gru
} // namespace popnn
