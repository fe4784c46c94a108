// A vanilla recurrent layer (popnn::rnn), in pieces a caller can schedule step by step or run
// over a whole sequence:
//   y_s = NL(x_s · Wff + y_{s-1} · Wfb + b)
// with x [numSteps][batch][inputSize], Wff [inputSize][outputSize] ("input weights"),
// Wfb [outputSize][outputSize] ("feedback weights"), b [outputSize] and y_{-1} the forward state
// [batch][outputSize]. The input product can be done for any number of steps at once
// (forwardWeightInput); the feedback part runs one step at a time (forwardIterate, a Repeat
// loop over dynamic slices). Backward: backwardGradientStep per step and paramDeltaUpdate to
// accumulate weight deltas, or rnnBwdSequence for the whole sequence.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/MatMul.hpp>
#include <popnn/NonLinearity.hpp>

namespace popnn {
namespace rnn {

/// The matrix multiplications this layer's functions plan for these sizes (forwardWeightInput,
/// the per-step products of rnnFwdSequence and, unless inferenceOnly, of rnnBwdSequence and
/// paramDeltaUpdate), each with its matMul options, for poplin::preplanMatMuls. Without
/// hasFeedforwardWeights the input weighting and the input gradient are left out.
std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>>
getMatMulPrePlanParameters(std::size_t numSteps, std::size_t batchSize, std::size_t inputSize,
                           std::size_t outputSize, const poplar::Type &dType,
                           const poplar::Type &partialsType = poplar::FLOAT,
                           bool inferenceOnly = false, bool hasFeedforwardWeights = true);

/// Floating-point operations of the forward pass (multiplies and adds), without the
/// non-linearity; `weightInput` counts the input weighting too.
uint64_t getFwdFlops(unsigned sequenceSize, unsigned batchSize, unsigned inputSize,
                     unsigned outputSize, bool weightInput = true);
/// Floating-point operations of the backward pass; `calcInputGrad` counts the input gradients.
uint64_t getBwdFlops(unsigned sequenceSize, unsigned batchSize, unsigned inputSize,
                     unsigned outputSize, bool calcInputGrad = true);
/// Floating-point operations of the weight update.
uint64_t getWuFlops(unsigned sequenceSize, unsigned batchSize, unsigned inputSize,
                    unsigned outputSize);

/// An input tensor [numSteps][batchSize][inputSize], each step spread over the tiles.
poplar::Tensor createInput(poplar::Graph &graph, unsigned numSteps, unsigned batchSize,
                           unsigned inputSize, unsigned outputSize, const poplar::Type &dType,
                           const poplar::Type &partialsType = poplar::FLOAT,
                           bool inferenceOnly = false,
                           const poplar::DebugContext &debugContext = {},
                           poplin::matmul::PlanningCache *planningCache = nullptr);

/// The forward state [batchSize][outputSize] (the previous output); zeroed in `prog` if
/// `initState`.
poplar::Tensor createFwdState(poplar::Graph &graph, const poplar::Type &dType, unsigned batchSize,
                              unsigned outputSize, poplar::program::Sequence &prog, bool initState,
                              bool inferenceOnly, const poplar::DebugContext &debugContext = {},
                              poplin::matmul::PlanningCache *planningCache = nullptr);

/// The previous output held by a forward state (the state itself: a view, writable).
poplar::Tensor getOutputFromFwdState(const poplar::Tensor &fwdState);

/// The input weights Wff [inputSize][outputSize].
poplar::Tensor createWeightsInput(poplar::Graph &graph, unsigned sequenceSize, unsigned batchSize,
                                  unsigned inputSize, unsigned outputSize,
                                  const poplar::Type &dType,
                                  const poplar::Type &partialsType = poplar::FLOAT,
                                  bool inferenceOnly = false,
                                  const poplar::DebugContext &debugContext = {},
                                  poplin::matmul::PlanningCache *planningCache = nullptr);

/// The feedback weights Wfb [outputSize][outputSize].
poplar::Tensor createWeightsFeedback(poplar::Graph &graph, unsigned batchSize, unsigned outputSize,
                                     const poplar::Type &dType,
                                     const poplar::Type &partialsType = poplar::FLOAT,
                                     bool inferenceOnly = false,
                                     const poplar::DebugContext &debugContext = {},
                                     poplin::matmul::PlanningCache *planningCache = nullptr);

/// x · Wff for every step: actIn [numSteps][batch][inputSize] → [numSteps][batch][outputSize].
poplar::Tensor forwardWeightInput(poplar::Graph &graph, const poplar::Tensor &actIn,
                                  const poplar::Tensor &weights, poplar::program::Sequence &prog,
                                  const poplar::Type &partialsType = poplar::FLOAT,
                                  bool inferenceOnly = false,
                                  const poplar::DebugContext &debugContext = {},
                                  poplin::matmul::PlanningCache *planningCache = nullptr);

/// The feedback part over every step of feedFwdIn [numSteps][batch][outputSize] (the output of
/// forwardWeightInput): y_s = NL(feedFwdIn[s] + y_{s-1} · Wfb + b), y_{-1} = initState.
/// Returns y [numSteps][batch][outputSize].
poplar::Tensor forwardIterate(poplar::Graph &graph, const poplar::Tensor &feedFwdIn,
                              const poplar::Tensor &initState,
                              const poplar::Tensor &feedbackWeights, const poplar::Tensor &biases,
                              poplar::program::Sequence &prog,
                              popnn::NonLinearityType nonLinearityType,
                              const poplar::Type &partialsType = poplar::FLOAT,
                              bool inferenceOnly = false,
                              const poplar::DebugContext &debugContext = {},
                              poplin::matmul::PlanningCache *planningCache = nullptr);

/// The backward state [batchSize][outputSize] for the last step, zeroed in `prog`.
poplar::Tensor createBwdState(poplar::Graph &graph, const poplar::Type &dType, unsigned batchSize,
                              unsigned outputSize, poplar::program::Sequence &prog,
                              const poplar::DebugContext &debugContext = {},
                              poplin::matmul::PlanningCache *planningCache = nullptr);

/// One backward step: the gradient at the adder, d = NL'(actOut) ∘ (nextLayerGrad + bwdState ·
/// Wfbᵀ), is the new backward state (second of the pair); the first is the gradient at the
/// step's input, d · Wffᵀ [batch][inputSize]. `actOut` is this step's output y_s.
std::pair<poplar::Tensor, poplar::Tensor>
backwardGradientStep(poplar::Graph &graph, const poplar::Tensor &nextLayerGrad,
                     const poplar::Tensor &bwdState, const poplar::Tensor &actOut,
                     const poplar::Tensor &weightsInput, const poplar::Tensor &weightsFeedback,
                     poplar::program::Sequence &prog, popnn::NonLinearityType nonLinearityType,
                     const poplar::Type &partialsType = poplar::FLOAT,
                     const poplar::DebugContext &debugContext = {},
                     poplin::matmul::PlanningCache *planningCache = nullptr);

/// As above without the input gradient: returns the new backward state.
poplar::Tensor backwardGradientStep(poplar::Graph &graph, const poplar::Tensor &nextLayerGrad,
                                    const poplar::Tensor &bwdState, const poplar::Tensor &actOut,
                                    const poplar::Tensor &weightsFeedback,
                                    poplar::program::Sequence &prog,
                                    popnn::NonLinearityType nonLinearityType,
                                    const poplar::Type &partialsType = poplar::FLOAT,
                                    const poplar::DebugContext &debugContext = {},
                                    poplin::matmul::PlanningCache *planningCache = nullptr);

/// Adds one step's weight deltas to the accumulators (zero them before the first step):
/// Wff += actInᵀ · bwdState, Wfb += prevOutᵀ · bwdState, b += Σ_batch bwdState. actIn is the
/// step's input [batch][inputSize], prevOut the previous step's output y_{s-1}.
void paramDeltaUpdate(poplar::Graph &graph, const poplar::Tensor &bwdState,
                      const poplar::Tensor &actIn, const poplar::Tensor &prevOut,
                      poplar::Tensor &weightsInputDeltasAcc,
                      poplar::Tensor &weightsFeedbackDeltasAcc, poplar::Tensor &biasDeltasAcc,
                      poplar::program::Sequence &prog,
                      const poplar::Type &partialsType = poplar::FLOAT,
                      const poplar::DebugContext &debugContext = {},
                      poplin::matmul::PlanningCache *planningCache = nullptr);

/// The whole forward layer over prevLayerActs [numSteps][batch][inputSize], one Repeat loop:
/// each step weights its input (or takes weightedIn[s] if `weightedIn` is not null) and runs the
/// feedback part from the previous state (fwdStateInit first). Returns y [numSteps][batch]
/// [outputSize].
poplar::Tensor rnnFwdSequence(poplar::Graph &graph, poplar::program::Sequence &prog,
                              const poplar::Tensor &fwdStateInit, const poplar::Tensor *weightedIn,
                              const poplar::Tensor &biases, const poplar::Tensor &feedFwdWeights,
                              const poplar::Tensor &feedbackWeights,
                              const poplar::Tensor &prevLayerActs,
                              const popnn::NonLinearityType &nonLinearityType,
                              const poplar::Type &partialsType, bool inferenceOnly,
                              const poplar::DebugContext &debugContext = {},
                              poplin::matmul::PlanningCache *planningCache = nullptr);

/// The whole backward layer, last step first, from fwdState = rnnFwdSequence's result and
/// outGradient [batch][numSteps][outputSize] (batch outermost, as PopLibs slices it). Returns
/// (gradients for the previous layer [numSteps][batch][inputSize] — or, if
/// ignoreInputGradientCalc, an unwritten [numSteps][batch][outputSize] tensor —, Wff deltas,
/// Wfb deltas, bias deltas); the deltas are null tensors unless doWU.
std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor, poplar::Tensor>
rnnBwdSequence(poplar::Graph &graph, bool doWU, bool ignoreInputGradientCalc,
               poplar::program::Sequence &prog, const poplar::Tensor &fwdStateInit,
               const poplar::Tensor &fwdState, const poplar::Tensor &biases,
               const poplar::Tensor &feedFwdWeights, const poplar::Tensor &feedbackWeights,
               const poplar::Tensor &outGradient, const poplar::Tensor &actIn,
               const popnn::NonLinearityType &nonLinearityType, const poplar::Type &partialsType,
               const poplar::DebugContext &debugContext = {},
               poplin::matmul::PlanningCache *planningCache = nullptr);

} // namespace rnn
} // namespace popnn
