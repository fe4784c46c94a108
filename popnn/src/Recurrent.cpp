// popnn::rnn vanilla recurrent layer: input weighting as one matrix multiplication over the
// steps, the feedback part and the whole-sequence passes as Repeat loops over dynamic slices.
#include <popnn/Recurrent.hpp>
#include <popnn/Rnn.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>
#include <poputil/exceptions.hpp>

#include "NnChecks.hpp"
#include "RnnCommon.hpp"

namespace popnn::rnn {

using namespace popnn::rnn_detail;
using poplar::Tensor;
using poplar::program::Copy;
using poplar::program::Repeat;
using poplar::program::Sequence;
namespace pe = popops::expr;

namespace {

poplar::OptionFlags mmOptions(const std::string &fn, const poplar::Type &partialsType) {
  if (partialsType != poplar::FLOAT && partialsType != poplar::HALF)
    throw poputil::poplibs_error(
        detail::cat(fn, ": partialsType must be FLOAT or HALF, not ", partialsType.toString()));
  return {{"partialsType", partialsType == poplar::HALF ? "half" : "float"}};
}

void requireRank(const std::string &fn, const std::string &name, const Tensor &t, unsigned rank) {
  if (!t.valid())
    throw poputil::poplibs_error(detail::cat(fn, ": argument '", name, "' is not a tensor"));
  if (t.rank() != rank)
    detail::fail(fn, name, t, detail::cat("must have rank ", rank));
  detail::requireFloatType(fn, name, t);
}

void requireDataType(const std::string &fn, const poplar::Type &type) {
  if (type != poplar::FLOAT && type != poplar::HALF)
    throw poputil::poplibs_error(
        detail::cat(fn, ": dType must be FLOAT or HALF, not ", type.toString()));
}

Tensor created(poplar::Graph &graph, const poplar::Type &type,
               const std::vector<std::size_t> &shape, const poplar::DebugContext &dc,
               const std::string &name) {
  requireDataType("rnn::" + name, type);
  return newMapped(graph, type, shape, poplar::DebugContext(dc, name).getPathName());
}

/// y = NL(ff + state · Wfb + b) for one step; returns a new tensor [batch][out].
Tensor feedbackStep(poplar::Graph &graph, const Tensor &ff, const Tensor &state,
                    const Tensor &feedbackWeights, const Tensor &biases, NonLinearityType nl,
                    Sequence &prog, const poplar::OptionFlags &mm,
                    poplin::matmul::PlanningCache *cache, const poplar::DebugContext &dc) {
  Tensor y = poplin::matMul(graph, state, feedbackWeights, prog, state.elementType(),
                            {dc, "feedback"}, mm, cache);
  popops::mapInPlace(graph, pe::_1 + pe::_2 + pe::_3,
                     {y, ff, biases.expand({0}).broadcast(static_cast<unsigned>(y.dim(0)), 0)},
                     prog, {dc, "sum"});
  nonLinearityInPlace(graph, nl, y, prog, {dc, "nonLinearity"});
  return y;
}

void checkFeedback(const std::string &fn, const Tensor &state, const Tensor &feedbackWeights,
                   const Tensor &biases) {
  requireRank(fn, "feedbackWeights", feedbackWeights, 2);
  const std::size_t out = feedbackWeights.dim(1);
  requireTensor(fn, "feedbackWeights", feedbackWeights, {out, out}, feedbackWeights.elementType());
  requireTensor(fn, "biases", biases, {out}, feedbackWeights.elementType());
  requireRank(fn, "initState", state, 2);
  requireTensor(fn, "initState", state, {state.dim(0), out}, feedbackWeights.elementType());
}

} // namespace

std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>>
getMatMulPrePlanParameters(std::size_t numSteps, std::size_t batchSize, std::size_t inputSize,
                           std::size_t outputSize, const poplar::Type &dType,
                           const poplar::Type &partialsType, bool inferenceOnly,
                           bool hasFeedforwardWeights) {
  const std::string fn = "rnn::getMatMulPrePlanParameters";
  requireDataType(fn, dType);
  const auto mm = mmOptions(fn, partialsType);
  std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>> result;
  auto add = [&](std::vector<std::size_t> a, std::vector<std::size_t> b) {
    poplin::MatMulParams p{dType, dType, std::move(a), std::move(b)};
    for (const auto &known : result)
      if (!(known.first < p) && !(p < known.first))
        return; // one plan serves both uses
    result.push_back({std::move(p), mm});
  };
  if (hasFeedforwardWeights) {
    add({numSteps * batchSize, inputSize}, {inputSize, outputSize}); // forwardWeightInput
    add({batchSize, inputSize}, {inputSize, outputSize});            // one step's input weighting
  }
  add({batchSize, outputSize}, {outputSize, outputSize}); // feedback (and its gradient)
  if (inferenceOnly)
    return result;
  if (hasFeedforwardWeights) {
    add({batchSize, outputSize}, {outputSize, inputSize}); // input gradient
    add({inputSize, batchSize}, {batchSize, outputSize});  // input weight deltas
  }
  add({outputSize, batchSize}, {batchSize, outputSize}); // feedback weight deltas
  return result;
}

uint64_t getFwdFlops(unsigned sequenceSize, unsigned batchSize, unsigned inputSize,
                     unsigned outputSize, bool weightInput) {
  const uint64_t rows = uint64_t(sequenceSize) * batchSize;
  const uint64_t input = weightInput ? rows * outputSize * (2 * uint64_t(inputSize) - 1) : 0;
  return input + rows * outputSize * (2 * uint64_t(outputSize) - 1) + 2 * rows * outputSize;
}

uint64_t getBwdFlops(unsigned sequenceSize, unsigned batchSize, unsigned inputSize,
                     unsigned outputSize, bool calcInputGrad) {
  const uint64_t rows = uint64_t(sequenceSize) * batchSize;
  const uint64_t input = calcInputGrad ? rows * inputSize * (2 * uint64_t(outputSize) - 1) : 0;
  return input + rows * outputSize * (2 * uint64_t(outputSize) - 1) + rows * outputSize;
}

uint64_t getWuFlops(unsigned sequenceSize, unsigned batchSize, unsigned inputSize,
                    unsigned outputSize) {
  const uint64_t rows = uint64_t(sequenceSize) * batchSize;
  return 2 * rows * outputSize * (uint64_t(inputSize) + outputSize + 1);
}

Tensor createInput(poplar::Graph &graph, unsigned numSteps, unsigned batchSize, unsigned inputSize,
                   unsigned, const poplar::Type &dType, const poplar::Type &partialsType, bool,
                   const poplar::DebugContext &debugContext, poplin::matmul::PlanningCache *) {
  mmOptions("rnn::createInput", partialsType);
  requireDataType("rnn::createInput", dType);
  RnnParams params(dType, batchSize, numSteps, {inputSize, 1});
  return createInputTensor(graph, params, 1, {debugContext, "input"});
}

Tensor createFwdState(poplar::Graph &graph, const poplar::Type &dType, unsigned batchSize,
                      unsigned outputSize, Sequence &prog, bool initState, bool,
                      const poplar::DebugContext &debugContext, poplin::matmul::PlanningCache *) {
  Tensor state = created(graph, dType, {batchSize, outputSize}, debugContext, "fwdState");
  if (initState)
    popops::zero(graph, state, prog, {debugContext, "zeroFwdState"});
  return state;
}

Tensor getOutputFromFwdState(const Tensor &fwdState) { return fwdState; }

Tensor createWeightsInput(poplar::Graph &graph, unsigned, unsigned, unsigned inputSize,
                          unsigned outputSize, const poplar::Type &dType,
                          const poplar::Type &partialsType, bool,
                          const poplar::DebugContext &debugContext,
                          poplin::matmul::PlanningCache *) {
  mmOptions("rnn::createWeightsInput", partialsType);
  return created(graph, dType, {inputSize, outputSize}, debugContext, "weightsInput");
}

Tensor createWeightsFeedback(poplar::Graph &graph, unsigned, unsigned outputSize,
                             const poplar::Type &dType, const poplar::Type &partialsType, bool,
                             const poplar::DebugContext &debugContext,
                             poplin::matmul::PlanningCache *) {
  mmOptions("rnn::createWeightsFeedback", partialsType);
  return created(graph, dType, {outputSize, outputSize}, debugContext, "weightsFeedback");
}

Tensor forwardWeightInput(poplar::Graph &graph, const Tensor &actIn, const Tensor &weights,
                          Sequence &prog, const poplar::Type &partialsType, bool,
                          const poplar::DebugContext &debugContext,
                          poplin::matmul::PlanningCache *cache) {
  const std::string fn = "rnn::forwardWeightInput";
  const auto mm = mmOptions(fn, partialsType);
  requireRank(fn, "actIn", actIn, 3);
  requireRank(fn, "weights", weights, 2);
  requireTensor(fn, "weights", weights, {actIn.dim(2), weights.dim(1)}, actIn.elementType());
  const std::size_t steps = actIn.dim(0), batch = actIn.dim(1);
  return poplin::matMul(graph, actIn.reshape({steps * batch, actIn.dim(2)}), weights, prog,
                        actIn.elementType(), {debugContext, "feedForward"}, mm, cache)
      .reshape({steps, batch, weights.dim(1)});
}

Tensor forwardIterate(poplar::Graph &graph, const Tensor &feedFwdIn, const Tensor &initState,
                      const Tensor &feedbackWeights, const Tensor &biases, Sequence &prog,
                      NonLinearityType nonLinearityType, const poplar::Type &partialsType, bool,
                      const poplar::DebugContext &debugContext,
                      poplin::matmul::PlanningCache *cache) {
  const std::string fn = "rnn::forwardIterate";
  const auto mm = mmOptions(fn, partialsType);
  checkFeedback(fn, initState, feedbackWeights, biases);
  requireRank(fn, "feedFwdIn", feedFwdIn, 3);
  const std::size_t steps = feedFwdIn.dim(0), batch = initState.dim(0),
                    out = feedbackWeights.dim(0);
  requireTensor(fn, "feedFwdIn", feedFwdIn, {steps, batch, out}, initState.elementType());
  const poplar::DebugContext dc(debugContext, "rnnFwd");
  const std::string name = dc.getPathName();
  Tensor outputs = newMapped(graph, initState.elementType(), {steps, batch, out}, name + "/out");
  Tensor state = copyToNew(graph, initState, prog, name + "/state");
  Tensor index = newStepIndex(graph, 0, prog, name + "/step");
  Sequence body;
  Tensor ff = sliceStep(graph, feedFwdIn, index, body, name + "/stepInput");
  Tensor y = feedbackStep(graph, ff, state, feedbackWeights, biases, nonLinearityType, body, mm,
                          cache, dc);
  body.add(Copy(y, state));
  updateStep(graph, outputs, y, index, body, name + "/saveOutput");
  advanceStepIndex(graph, index, true, body);
  prog.add(Repeat(static_cast<unsigned>(steps), body, {dc, "loop"}));
  return outputs;
}

Tensor createBwdState(poplar::Graph &graph, const poplar::Type &dType, unsigned batchSize,
                      unsigned outputSize, Sequence &prog, const poplar::DebugContext &debugContext,
                      poplin::matmul::PlanningCache *) {
  Tensor state = created(graph, dType, {batchSize, outputSize}, debugContext, "bwdState");
  popops::zero(graph, state, prog, {debugContext, "zeroBwdState"});
  return state;
}

namespace {

std::pair<Tensor, Tensor>
backwardStep(poplar::Graph &graph, const Tensor &nextLayerGrad, const Tensor &bwdState,
             const Tensor &actOut, const Tensor *weightsInput, const Tensor &weightsFeedback,
             Sequence &prog, NonLinearityType nl, const poplar::Type &partialsType,
             const poplar::DebugContext &dc, poplin::matmul::PlanningCache *cache) {
  const std::string fn = "rnn::backwardGradientStep";
  const auto mm = mmOptions(fn, partialsType);
  requireRank(fn, "bwdState", bwdState, 2);
  const auto type = bwdState.elementType();
  const std::size_t batch = bwdState.dim(0), out = bwdState.dim(1);
  requireTensor(fn, "nextLayerGrad", nextLayerGrad, {batch, out}, type);
  requireTensor(fn, "actOut", actOut, {batch, out}, type);
  requireTensor(fn, "weightsFeedback", weightsFeedback, {out, out}, type);
  if (weightsInput) {
    requireRank(fn, "weightsInput", *weightsInput, 2);
    requireTensor(fn, "weightsInput", *weightsInput, {weightsInput->dim(0), out}, type);
  }
  Tensor sum = poplin::matMul(graph, bwdState, weightsFeedback.transpose(), prog, type,
                              {dc, "feedbackGrad"}, mm, cache);
  popops::mapInPlace(graph, pe::_1 + pe::_2, {sum, nextLayerGrad}, prog, {dc, "addOutGrad"});
  Tensor state = nonLinearityInputGradient(graph, nl, actOut, sum, prog, {dc, "nonLinearity"});
  Tensor inputGrad;
  if (weightsInput)
    inputGrad = poplin::matMul(graph, state, weightsInput->transpose(), prog, type,
                               {dc, "inputGrad"}, mm, cache);
  return {inputGrad, state};
}

} // namespace

std::pair<Tensor, Tensor> backwardGradientStep(
    poplar::Graph &graph, const Tensor &nextLayerGrad, const Tensor &bwdState, const Tensor &actOut,
    const Tensor &weightsInput, const Tensor &weightsFeedback, Sequence &prog,
    NonLinearityType nonLinearityType, const poplar::Type &partialsType,
    const poplar::DebugContext &debugContext, poplin::matmul::PlanningCache *cache) {
  return backwardStep(graph, nextLayerGrad, bwdState, actOut, &weightsInput, weightsFeedback, prog,
                      nonLinearityType, partialsType, {debugContext, "rnnBwd"}, cache);
}

Tensor backwardGradientStep(poplar::Graph &graph, const Tensor &nextLayerGrad,
                            const Tensor &bwdState, const Tensor &actOut,
                            const Tensor &weightsFeedback, Sequence &prog,
                            NonLinearityType nonLinearityType, const poplar::Type &partialsType,
                            const poplar::DebugContext &debugContext,
                            poplin::matmul::PlanningCache *cache) {
  return backwardStep(graph, nextLayerGrad, bwdState, actOut, nullptr, weightsFeedback, prog,
                      nonLinearityType, partialsType, {debugContext, "rnnBwd"}, cache)
      .second;
}

void paramDeltaUpdate(poplar::Graph &graph, const Tensor &bwdState, const Tensor &actIn,
                      const Tensor &prevOut, Tensor &weightsInputDeltasAcc,
                      Tensor &weightsFeedbackDeltasAcc, Tensor &biasDeltasAcc, Sequence &prog,
                      const poplar::Type &partialsType, const poplar::DebugContext &debugContext,
                      poplin::matmul::PlanningCache *cache) {
  const std::string fn = "rnn::paramDeltaUpdate";
  const auto mm = mmOptions(fn, partialsType);
  requireRank(fn, "bwdState", bwdState, 2);
  requireRank(fn, "actIn", actIn, 2);
  const auto type = bwdState.elementType();
  const std::size_t batch = bwdState.dim(0), out = bwdState.dim(1), in = actIn.dim(1);
  requireTensor(fn, "actIn", actIn, {batch, in}, type);
  requireTensor(fn, "prevOut", prevOut, {batch, out}, type);
  requireTensor(fn, "weightsInputDeltasAcc", weightsInputDeltasAcc, {in, out}, type);
  requireTensor(fn, "weightsFeedbackDeltasAcc", weightsFeedbackDeltasAcc, {out, out}, type);
  requireTensor(fn, "biasDeltasAcc", biasDeltasAcc, {out}, type);
  const poplar::DebugContext dc(debugContext, "rnnDeltas");
  poplin::matMulAcc(graph, weightsInputDeltasAcc, 1.0f, actIn.transpose(), bwdState, prog,
                    {dc, "weightsInput"}, mm, cache);
  poplin::matMulAcc(graph, weightsFeedbackDeltasAcc, 1.0f, prevOut.transpose(), bwdState, prog,
                    {dc, "weightsFeedback"}, mm, cache);
  popops::reduceWithOutput(graph, bwdState, biasDeltasAcc, {0}, {popops::Operation::ADD, true},
                           prog, {dc, "bias"});
}

Tensor rnnFwdSequence(poplar::Graph &graph, Sequence &prog, const Tensor &fwdStateInit,
                      const Tensor *weightedIn, const Tensor &biases, const Tensor &feedFwdWeights,
                      const Tensor &feedbackWeights, const Tensor &prevLayerActs,
                      const NonLinearityType &nonLinearityType, const poplar::Type &partialsType,
                      bool, const poplar::DebugContext &debugContext,
                      poplin::matmul::PlanningCache *cache) {
  const std::string fn = "rnn::rnnFwdSequence";
  const auto mm = mmOptions(fn, partialsType);
  checkFeedback(fn, fwdStateInit, feedbackWeights, biases);
  requireRank(fn, "prevLayerActs", prevLayerActs, 3);
  const auto type = fwdStateInit.elementType();
  const std::size_t steps = prevLayerActs.dim(0), batch = fwdStateInit.dim(0),
                    out = feedbackWeights.dim(0), in = prevLayerActs.dim(2);
  requireTensor(fn, "prevLayerActs", prevLayerActs, {steps, batch, in}, type);
  if (weightedIn)
    requireTensor(fn, "weightedIn", *weightedIn, {steps, batch, out}, type);
  else
    requireTensor(fn, "feedFwdWeights", feedFwdWeights, {in, out}, type);
  const poplar::DebugContext dc(debugContext, "rnnFwdSequence");
  const std::string name = dc.getPathName();
  Tensor fwdState = newMapped(graph, type, {steps, batch, out}, name + "/fwdState");
  Tensor state = copyToNew(graph, fwdStateInit, prog, name + "/state");
  Tensor index = newStepIndex(graph, 0, prog, name + "/step");
  Sequence body;
  Tensor ff;
  if (weightedIn) {
    ff = sliceStep(graph, *weightedIn, index, body, name + "/stepInput");
  } else {
    Tensor x = sliceStep(graph, prevLayerActs, index, body, name + "/stepInput");
    ff = poplin::matMul(graph, x, feedFwdWeights, body, type, {dc, "feedForward"}, mm, cache);
  }
  Tensor y = feedbackStep(graph, ff, state, feedbackWeights, biases, nonLinearityType, body, mm,
                          cache, dc);
  body.add(Copy(y, state));
  updateStep(graph, fwdState, y, index, body, name + "/saveState");
  advanceStepIndex(graph, index, true, body);
  prog.add(Repeat(static_cast<unsigned>(steps), body, {dc, "loop"}));
  return fwdState;
}

std::tuple<Tensor, Tensor, Tensor, Tensor>
rnnBwdSequence(poplar::Graph &graph, bool doWU, bool ignoreInputGradientCalc, Sequence &prog,
               const Tensor &fwdStateInit, const Tensor &fwdState, const Tensor &biases,
               const Tensor &feedFwdWeights, const Tensor &feedbackWeights,
               const Tensor &outGradient, const Tensor &actIn,
               const NonLinearityType &nonLinearityType, const poplar::Type &partialsType,
               const poplar::DebugContext &debugContext, poplin::matmul::PlanningCache *cache) {
  const std::string fn = "rnn::rnnBwdSequence";
  mmOptions(fn, partialsType);
  checkFeedback(fn, fwdStateInit, feedbackWeights, biases);
  requireRank(fn, "actIn", actIn, 3);
  const auto type = fwdStateInit.elementType();
  const std::size_t steps = actIn.dim(0), batch = fwdStateInit.dim(0), out = feedbackWeights.dim(0),
                    in = actIn.dim(2);
  requireTensor(fn, "actIn", actIn, {steps, batch, in}, type);
  requireTensor(fn, "fwdState", fwdState, {steps, batch, out}, type);
  requireTensor(fn, "outGradient", outGradient, {batch, steps, out}, type);
  requireTensor(fn, "feedFwdWeights", feedFwdWeights, {in, out}, type);
  const poplar::DebugContext dc(debugContext, "rnnBwdSequence");
  const std::string name = dc.getPathName();

  Tensor dWff, dWfb, dB;
  if (doWU) {
    dWff = newMapped(graph, type, {in, out}, name + "/weightsInputDeltas");
    dWfb = newMapped(graph, type, {out, out}, name + "/weightsFeedbackDeltas");
    dB = newMapped(graph, type, {out}, name + "/biasDeltas");
    for (const Tensor &t : {dWff, dWfb, dB})
      popops::zero(graph, t, prog, {dc, "zeroDeltas"});
  }
  Tensor grads =
      newMapped(graph, type, {steps, batch, ignoreInputGradientCalc ? out : in}, name + "/grads");
  Tensor bwdState = createBwdState(graph, type, static_cast<unsigned>(batch),
                                   static_cast<unsigned>(out), prog, dc, cache);
  std::vector<Tensor> prevParts{fwdStateInit.expand({0})};
  if (steps > 1)
    prevParts.push_back(fwdState.slice(0, steps - 1, 0));
  Tensor prevOutputs = copyToNew(graph, poplar::concat(prevParts, 0), prog, name + "/prevOut");
  Tensor stepGrads = outGradient.dimShuffle({1, 0, 2});
  Tensor index = newStepIndex(graph, static_cast<unsigned>(steps - 1), prog, name + "/step");

  Sequence body;
  Tensor g = sliceStep(graph, stepGrads, index, body, name + "/stepOutGrad");
  Tensor y = sliceStep(graph, fwdState, index, body, name + "/stepOutput");
  auto [inputGrad, newState] =
      backwardStep(graph, g, bwdState, y, ignoreInputGradientCalc ? nullptr : &feedFwdWeights,
                   feedbackWeights, body, nonLinearityType, partialsType, dc, cache);
  body.add(Copy(newState, bwdState));
  if (!ignoreInputGradientCalc)
    updateStep(graph, grads, inputGrad, index, body, name + "/saveGrad");
  if (doWU) {
    Tensor x = sliceStep(graph, actIn, index, body, name + "/stepInput");
    Tensor prev = sliceStep(graph, prevOutputs, index, body, name + "/stepPrevOut");
    paramDeltaUpdate(graph, bwdState, x, prev, dWff, dWfb, dB, body, partialsType, dc, cache);
  }
  advanceStepIndex(graph, index, false, body);
  prog.add(Repeat(static_cast<unsigned>(steps), body, {dc, "loop"}));
  return {grads, dWff, dWfb, dB};
}

} // namespace popnn::rnn
