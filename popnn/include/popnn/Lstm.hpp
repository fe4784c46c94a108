// Long short-term memory layers (popnn::lstm): a basic LSTM cell (no peepholes, no projection)
// run over a whole sequence as one graph program loop, with its backward pass and weight update.
//
// For each step t, with gates computed from the input x_t and the previous output h_{t-1}:
//   f = σ(x_t·Wf + h_{t-1}·Uf + bf)    forget gate      (σ = recurrentActivation, default sigmoid)
//   i = σ(x_t·Wi + h_{t-1}·Ui + bi)    input gate
//   g = φ(x_t·Wg + h_{t-1}·Ug + bg)    candidate        (φ = activation, default tanh)
//   o = σ(x_t·Wo + h_{t-1}·Uo + bo)    output gate
//   c_t = f ∘ c_{t-1} + i ∘ g,   h_t = o ∘ φ(c_t)
// Shapes: input [timeSteps][batch][inputSize]; inputWeights [4][inputSize][outputSize];
// outputWeights [4][outputSize][outputSize]; biases [4][outputSize]; the outermost 4 follows
// LstmParams::cellOrder. States are [batch][outputSize].
//
// Options (every function takes the same table; unknown names throw poplar::invalid_option):
//   availableMemoryProportion (0..1), partialsType (half, float) [=float] — passed to the matrix
//   multiplications; inferenceOnly (true, false) [=false]; weightAccumulatorsType (half, float)
//   [=the data type] — type of the weight deltas lstmWU returns; preCalcWeights (true, false)
//   [=false]; recomputationMode (none, cellAndTanh, full) [=none]; rnnCodeReuse (true, false);
//   numShards (1 … timeSteps) [=1] — the step loop runs as that many consecutive chunks, with
//   the same results.
//   Tessera always multiplies the whole input sequence by the input weights before the loop and
//   keeps every intermediate, so preCalcWeights and recomputationMode change no result.
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
#include <popnn/LstmDef.hpp>
#include <popnn/NonLinearityDef.hpp>
#include <popnn/Rnn.hpp>

namespace popnn {
namespace lstm {

/// [forget gate, input gate, candidate, output gate]: the default meaning of the outermost
/// dimension of the weights and biases.
const std::vector<BasicLstmCellUnit> getDefaultBasicLstmCellOrder();

/// The shape and configuration of one LSTM layer.
struct LstmParams {
  rnn::RnnParams rnn;

  /// Deprecated copies of rnn.dataType, rnn.batchSize, rnn.timeSteps and rnn.layerSizes.
  poplar::Type dataType;
  std::size_t batchSize;
  std::size_t timeSteps;
  std::vector<std::size_t> layerSizes;
  /// If true lstmFwd returns every step's output [timeSteps][batch][outputSize]; otherwise only
  /// the last [batch][outputSize] (and the gradients take the same shape).
  bool outputFullSequence = true;
  /// If false the input weights are not applied (benchmarking only: the input is ignored).
  bool doInputWeightCalc = true;
  /// If false the backward pass does not compute input gradients.
  bool calcInputGradients = true;
  /// Which unit each slice of the weights' and biases' outermost dimension holds (a permutation
  /// of the four units; PyTorch's order is {INPUT, FORGET, CANDIDATE, OUTPUT}).
  std::vector<BasicLstmCellUnit> cellOrder = getDefaultBasicLstmCellOrder();
  /// φ, applied to the candidate and to the cell state.
  NonLinearityType activation = NonLinearityType::TANH;
  /// σ, applied to the three gates.
  NonLinearityType recurrentActivation = NonLinearityType::SIGMOID;

  LstmParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
             std::vector<std::size_t> layerSizes,
             NonLinearityType activation = NonLinearityType::TANH,
             NonLinearityType recurrentActivation = NonLinearityType::SIGMOID);

  /// With run-time step counts `timeSteps` ({batchSize} or {1}, INT or UNSIGNED_INT) of at most
  /// `maxTimeSteps` (see rnn::RnnParams::varTimeSteps for what happens past a sequence's end).
  LstmParams(poplar::Type dataType, std::size_t batchSize, std::size_t maxTimeSteps,
             const poplar::Tensor &timeSteps, std::vector<std::size_t> layerSizes,
             NonLinearityType activation = NonLinearityType::TANH,
             NonLinearityType recurrentActivation = NonLinearityType::SIGMOID);
};

/// The state of an LSTM cell (output h and cell state c, each [batch][outputSize]), or its
/// gradient.
struct LstmState {
  poplar::Tensor output;
  poplar::Tensor cellState;

  /// [2][batch][outputSize]: output then cell state.
  poplar::Tensor getAsTensor() const;
};

/// The matrix multiplications lstmFwd, lstmBwd and lstmWU plan for `params` and `opts` (the
/// same option table), each with the matMul options it is planned with, so a caller can plan
/// them ahead (poplin::preplanMatMuls) into the PlanningCache later passed to those functions.
/// With inferenceOnly only the forward multiplies are listed.
std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>>
getMatMulPrePlanParameters(LstmParams params, poplar::OptionFlags opts);

/// Floating-point operations of the forward pass over the whole sequence (multiply-adds count 2).
uint64_t getBasicLstmCellFwdFlops(const LstmParams &params);
/// Floating-point operations of the backward pass (input and state gradients).
uint64_t getBasicLstmCellBwdFlops(const LstmParams &params);
/// Floating-point operations of the weight update.
uint64_t getBasicLstmCellWuFlops(const LstmParams &params);

/// An input tensor [timeSteps][batch][inputSize], each step spread over the tiles.
poplar::Tensor createInput(poplar::Graph &graph, const LstmParams &params,
                           const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options = {},
                           poplin::matmul::PlanningCache *planningCache = nullptr);

/// The initial output h_{-1} [batch][outputSize].
poplar::Tensor createInitialOutput(poplar::Graph &graph, const LstmParams &params,
                                   const poplar::DebugContext &debugContext,
                                   const poplar::OptionFlags &options = {},
                                   poplin::matmul::PlanningCache *planningCache = nullptr);

/// The initial cell state c_{-1} [batch][outputSize].
poplar::Tensor createInitialCellState(poplar::Graph &graph, const LstmParams &params,
                                      const poplar::DebugContext &debugContext,
                                      const poplar::OptionFlags &options = {},
                                      poplin::matmul::PlanningCache *planningCache = nullptr);

/// Both initial tensors; write them or call zeroInitialState().
LstmState createInitialState(poplar::Graph &graph, const LstmParams &params,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options = {},
                             poplin::matmul::PlanningCache *planningCache = nullptr);

/// Adds to `prog` the zeroing of both parts of `initialState`.
void zeroInitialState(poplar::Graph &graph, const LstmState &initialState,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {});

/// The parameters of an LSTM cell, or their gradients.
struct LstmWeights {
  poplar::Tensor inputWeights;  ///< [4][inputSize][outputSize]
  poplar::Tensor outputWeights; ///< [4][outputSize][outputSize]
  poplar::Tensor biases;        ///< [4][outputSize]
};

/// The input and recurrent weight kernels (first and second of the pair).
std::pair<poplar::Tensor, poplar::Tensor>
createWeightsKernel(poplar::Graph &graph, const LstmParams &params,
                    const poplar::DebugContext &debugContext,
                    const poplar::OptionFlags &options = {},
                    poplin::matmul::PlanningCache *planningCache = nullptr);

/// The biases [4][outputSize].
poplar::Tensor createWeightsBiases(poplar::Graph &graph, const LstmParams &params,
                                   const poplar::DebugContext &debugContext,
                                   const poplar::OptionFlags &options = {},
                                   poplin::matmul::PlanningCache *planningCache = nullptr);

/// Kernels and biases together.
LstmWeights createWeights(poplar::Graph &graph, const LstmParams &params,
                          const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options = {},
                          poplin::matmul::PlanningCache *planningCache = nullptr);

/// Runs the LSTM over the sequence `in` from `stateInit`; returns the outputs (see
/// outputFullSequence). If `intermediates` is not null it receives what the backward pass and
/// weight update need ([timeSteps][7][batch][outputSize] in Tessera: f, i, g, o, c_t, φ(c_t),
/// h_t). Throws poputil::poplibs_error naming the argument whose shape or type is wrong.
poplar::Tensor lstmFwd(poplar::Graph &graph, const LstmParams &params,
                       poplar::program::Sequence &prog, const LstmState &stateInit,
                       const LstmWeights &weights, const poplar::Tensor &in,
                       poplar::Tensor *intermediates, const poplar::DebugContext &debugContext = {},
                       const poplar::OptionFlags &options = {},
                       poplin::matmul::PlanningCache *planningCache = nullptr);

/// Deprecated form: returns (outputs, final cell state).
std::pair<poplar::Tensor, poplar::Tensor>
lstmFwd(poplar::Graph &graph, const LstmParams &params, const LstmState &stateInit,
        const poplar::Tensor &in, const LstmWeights &weights, poplar::Tensor *intermediates,
        poplar::program::Sequence &fwdProg, const poplar::DebugContext &debugContext = {},
        const poplar::OptionFlags &options = {},
        poplin::matmul::PlanningCache *planningCache = nullptr);

/// Backpropagates `outputGrad` (shaped like lstmFwd's output) and, if not null,
/// `lastCellStateGrad` [batch][outputSize] through the sequence, last step first. Writes the
/// input gradients [timeSteps][batch][inputSize] to `*inputGrad` if not null (and
/// calcInputGradients), and the gate gradients the weight update needs to `*bwdIntermediates`
/// if not null. Returns the gradient of the initial state.
LstmState lstmBwd(poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
                  const LstmState &fwdStateInit, const poplar::Tensor &fwdIntermediates,
                  const LstmWeights &weights, const poplar::Tensor &input,
                  const poplar::Tensor &output, const poplar::Tensor &outputGrad,
                  const poplar::Tensor *lastCellStateGrad, poplar::Tensor *inputGrad,
                  poplar::Tensor *bwdIntermediates, const poplar::DebugContext &debugContext = {},
                  const poplar::OptionFlags &options = {},
                  poplin::matmul::PlanningCache *planningCache = nullptr);

/// The weight gradients (summed over batch and time) from the forward and backward
/// intermediates, in the weights' own layout and cellOrder.
LstmWeights lstmWU(poplar::Graph &graph, const LstmParams &params, poplar::program::Sequence &prog,
                   const LstmState &fwdStateInit, const poplar::Tensor &fwdIntermediates,
                   const poplar::Tensor &bwdIntermediates, const LstmWeights &weights,
                   const poplar::Tensor &input, const poplar::Tensor &output,
                   const poplar::DebugContext &debugContext = {},
                   const poplar::OptionFlags &options = {},
                   poplin::matmul::PlanningCache *planningCache = nullptr);

/// lstmBwd followed by lstmWU; the weight gradients go to `weightsGrad`.
LstmState lstmBwdWithWU(poplar::Graph &graph, const LstmParams &params,
                        poplar::program::Sequence &prog, const LstmState &fwdStateInit,
                        const poplar::Tensor &fwdIntermediates, const LstmWeights &weights,
                        const poplar::Tensor &input, const poplar::Tensor &output,
                        const poplar::Tensor &outputGrad, const poplar::Tensor *lastCellStateGrad,
                        poplar::Tensor *inputGrad, LstmWeights &weightsGrad,
                        const poplar::DebugContext &debugContext = {},
                        const poplar::OptionFlags &options = {},
                        poplin::matmul::PlanningCache *planningCache = nullptr);

} // namespace lstm
} // namespace popnn
