// popnn::gru: the basic GRU cell over a sequence, built like Lstm.cpp: the input weights applied
// to the whole sequence before the loop, then a Repeat over the steps driven by a step index
// and dynamic slices. Units are handled internally in the canonical order reset, update,
// candidate; params.cellOrder maps them to the weights.
#include <popnn/Gru.hpp>

#include <poplin/MatMul.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>
#include <poputil/exceptions.hpp>

#include "NnChecks.hpp"
#include "RnnCommon.hpp"

namespace popnn::gru {

using namespace popnn::rnn_detail;
using poplar::Tensor;
using poplar::program::Copy;
using poplar::program::Repeat;
using poplar::program::Sequence;
namespace pe = popops::expr;

namespace {

constexpr unsigned kUnits = BASIC_GRU_CELL_NUM_UNITS;
constexpr unsigned R = BASIC_GRU_CELL_RESET_GATE, U = BASIC_GRU_CELL_UPDATE_GATE,
                   C = BASIC_GRU_CELL_CANDIDATE;
// Per-step forward intermediates: r, u, c, h_t and the candidate's recurrent term (r ∘ h_{t-1},
// or with resetAfter h_{t-1}·Uc + b[c][1]).
enum Intermediate : unsigned { OUTPUT = 3, RECURRENT = 4, NUM_INTER = 5 };

std::vector<unsigned> orderOf(const GruParams &p) {
  return std::vector<unsigned>(p.cellOrder.begin(), p.cellOrder.end());
}

struct Dims {
  std::size_t steps, batch, in, out;
};

Dims check(const std::string &fn, const GruParams &p) {
  requireLayer(fn, p.rnn.dataType, p.rnn.batchSize, p.rnn.timeSteps, p.rnn.layerSizes);
  checkCellOrder(fn, orderOf(p), kUnits);
  return {p.rnn.timeSteps, p.rnn.batchSize, p.rnn.layerSizes[0], p.rnn.layerSizes[1]};
}

std::vector<std::size_t> biasShape(const GruParams &p, const Dims &d) {
  if (p.resetAfter)
    return {kUnits, 2, d.out};
  return {kUnits, d.out};
}

void checkWeights(const std::string &fn, const GruParams &p, const Dims &d, const GruWeights &w) {
  const auto type = p.rnn.dataType;
  requireTensor(fn, "weights.inputWeights", w.inputWeights, {kUnits, d.in, d.out}, type);
  requireTensor(fn, "weights.outputWeights", w.outputWeights, {kUnits, d.out, d.out}, type);
  requireTensor(fn, "weights.biases", w.biases, biasShape(p, d), type);
}

std::vector<std::size_t> outputShape(const GruParams &p, const Dims &d) {
  return layerOutputShape(p.outputFullSequence, d.steps, d.batch, d.out);
}

/// A weight tensor [3][rows][out] in cellOrder as a matrix [rows][3·out] in canonical unit order.
Tensor asMatrix(const Tensor &w, const GruParams &p) { return unitsAsMatrix(w, orderOf(p)); }

Tensor fromMatrix(const Tensor &m, const GruParams &p, std::size_t out) {
  return matrixAsUnits(m, kUnits, out, orderOf(p));
}

/// Columns [first·out, last·out) of a [rows][k·out] matrix: the units first … last-1.
Tensor units(const Tensor &m, unsigned first, unsigned last, std::size_t out) {
  return m.slice(first * out, last * out, 1);
}

} // namespace

const std::vector<BasicGruCellUnit> getDefaultBasicGruCellOrder() {
  return {BASIC_GRU_CELL_RESET_GATE, BASIC_GRU_CELL_UPDATE_GATE, BASIC_GRU_CELL_CANDIDATE};
}

GruParams::GruParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
                     std::vector<std::size_t> layerSizes, NonLinearityType activation,
                     NonLinearityType recurrentActivation)
    : rnn(dataType, batchSize, timeSteps, layerSizes), dataType(dataType), batchSize(batchSize),
      timeSteps(timeSteps), layerSizes(layerSizes), activation(activation),
      recurrentActivation(recurrentActivation) {}

GruParams::GruParams(poplar::Type dataType, std::size_t batchSize, std::size_t maxTimeSteps,
                     const Tensor &timeSteps, std::vector<std::size_t> layerSizes,
                     NonLinearityType activation, NonLinearityType recurrentActivation)
    : rnn(dataType, batchSize, maxTimeSteps, timeSteps, layerSizes), dataType(dataType),
      batchSize(batchSize), timeSteps(maxTimeSteps), layerSizes(layerSizes), activation(activation),
      recurrentActivation(recurrentActivation) {}

GruParams::GruParams(const GruParams &other) = default;

uint64_t getBasicGruCellFwdFlops(const GruParams &p) {
  const uint64_t t = p.rnn.timeSteps, b = p.rnn.batchSize, i = p.rnn.layerSizes.at(0),
                 o = p.rnn.layerSizes.at(1);
  return t * (2 * b * (i + o) * 3 * o + b * o * 10);
}

uint64_t getBasicGruCellBwdFlops(const GruParams &p) {
  const uint64_t t = p.rnn.timeSteps, b = p.rnn.batchSize, i = p.rnn.layerSizes.at(0),
                 o = p.rnn.layerSizes.at(1);
  const uint64_t inputGrad = p.calcInputGradients ? 2 * b * 3 * o * i : 0;
  return t * (inputGrad + 2 * b * 3 * o * o + b * o * 12);
}

uint64_t getBasicGruCellWuFlops(const GruParams &p) {
  const uint64_t t = p.rnn.timeSteps, b = p.rnn.batchSize, i = p.rnn.layerSizes.at(0),
                 o = p.rnn.layerSizes.at(1);
  return t * (2 * b * (i + o) * 3 * o + b * 3 * o * (p.resetAfter ? 2 : 1));
}

Tensor createInput(poplar::Graph &graph, const GruParams &params,
                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                   poplin::PlanningCache *) {
  check("gru::createInput", params);
  parseRnnOptions("gru::createInput", options);
  return rnn::createInputTensor(graph, params.rnn, 1, {debugContext, "input"});
}

Tensor createInitialState(poplar::Graph &graph, const GruParams &params,
                          const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options, poplin::PlanningCache *) {
  const Dims d = check("gru::createInitialState", params);
  parseRnnOptions("gru::createInitialState", options);
  return newMapped(graph, params.rnn.dataType, {d.batch, d.out},
                   poplar::DebugContext(debugContext, "initialOutput").getPathName());
}

std::pair<Tensor, Tensor> createWeightsKernel(poplar::Graph &graph, const GruParams &params,
                                              const poplar::DebugContext &debugContext,
                                              const poplar::OptionFlags &options,
                                              poplin::PlanningCache *) {
  const Dims d = check("gru::createWeightsKernel", params);
  parseRnnOptions("gru::createWeightsKernel", options);
  const poplar::DebugContext dc(debugContext, "weights");
  return {newMapped(graph, params.rnn.dataType, {kUnits, d.in, d.out},
                    poplar::DebugContext(dc, "input").getPathName()),
          newMapped(graph, params.rnn.dataType, {kUnits, d.out, d.out},
                    poplar::DebugContext(dc, "output").getPathName())};
}

Tensor createWeightsBiases(poplar::Graph &graph, const GruParams &params,
                           const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options, poplin::PlanningCache *) {
  const Dims d = check("gru::createWeightsBiases", params);
  parseRnnOptions("gru::createWeightsBiases", options);
  return newMapped(graph, params.rnn.dataType, biasShape(params, d),
                   poplar::DebugContext(debugContext, "biases").getPathName());
}

GruWeights createWeights(poplar::Graph &graph, const GruParams &params,
                         const poplar::DebugContext &debugContext,
                         const poplar::OptionFlags &options, poplin::PlanningCache *cache) {
  auto [in, out] = createWeightsKernel(graph, params, debugContext, options, cache);
  return {in, out, createWeightsBiases(graph, params, debugContext, options, cache)};
}

namespace {

/// The forward loop; `attention` [batch][timeSteps] (AUGRU) scales the update gate by 1 − a.
Tensor forwardImpl(const std::string &fn, poplar::Graph &graph, const GruParams &params,
                   const Tensor &stateInit, const Tensor &in, const GruWeights &weights,
                   Tensor *intermediates, Sequence &prog, const Tensor *attention,
                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                   poplin::PlanningCache *cache) {
  const Dims d = check(fn, params);
  if (attention)
    requireTensor(fn, "attScores", *attention, {d.batch, d.steps}, params.rnn.dataType);
  const RnnOptions opts = parseRnnOptions(fn, options);
  checkWeights(fn, params, d, weights);
  requireTensor(fn, "stateInit", stateInit, {d.batch, d.out}, params.rnn.dataType);
  requireTensor(fn, "in", in, {d.steps, d.batch, d.in}, params.rnn.dataType);
  const auto type = params.rnn.dataType;
  const auto mmOpts = matMulOptions(opts);
  const poplar::DebugContext dc(debugContext, "gruFwd");
  const std::string name = dc.getPathName();
  const std::size_t H = d.out, rows = d.steps * d.batch;

  Tensor biases = toCanonical(weights.biases, orderOf(params));
  Tensor inputBias = (params.resetAfter ? biases.slice(0, 1, 1) : biases).flatten();
  Tensor weighted =
      poplin::matMul(graph, in.reshape({rows, d.in}), asMatrix(weights.inputWeights, params), prog,
                     type, {dc, "inputWeights"}, mmOpts, cache);
  popops::mapInPlace(graph, pe::_1 + pe::_2, {weighted, inputBias.expand({0}).broadcast(rows, 0)},
                     prog, {dc, "bias"});
  weighted = weighted.reshape({d.steps, d.batch, kUnits * H});
  Tensor recurrent = asMatrix(weights.outputWeights, params);

  Tensor h = copyToNew(graph, stateInit, prog, name + "/output");
  // Training keeps every step's intermediates; inference keeps at most the outputs.
  const ForwardRecords records =
      newForwardRecords(graph, fn, type, d.steps, NUM_INTER, d.batch, H, intermediates != nullptr,
                        params.outputFullSequence, params.rnn.varTimeSteps, prog, dc, name);
  const Tensor &inter = records.intermediates, &outSeq = records.outputs;
  const StepLimits &limits = records.limits;
  Tensor index = newStepIndex(graph, 0, prog, name + "/step");

  Sequence body;
  Tensor pre = sliceStep(graph, weighted, index, body, name + "/stepInput");
  Tensor gatesPre = units(pre, R, C, H), candPre = units(pre, C, C + 1, H);
  Tensor recTerm;
  if (params.resetAfter) {
    Tensor hw =
        poplin::matMul(graph, h, recurrent, body, type, {dc, "recurrentWeights"}, mmOpts, cache);
    Tensor recurrentBias = biases.slice(1, 2, 1).flatten();
    popops::mapInPlace(graph, pe::_1 + pe::_2,
                       {hw, recurrentBias.expand({0}).broadcast(d.batch, 0)}, body,
                       {dc, "recurrentBias"});
    popops::mapInPlace(graph, pe::_1 + pe::_2, {gatesPre, units(hw, R, C, H)}, body, {dc, "gates"});
    nonLinearityInPlace(graph, params.recurrentActivation, gatesPre, body, {dc, "gateAct"});
    recTerm = units(hw, C, C + 1, H);
    popops::mapInPlace(graph, pe::_1 + pe::_2 * pe::_3,
                       {candPre, units(gatesPre, R, R + 1, H), recTerm}, body, {dc, "candidate"});
  } else {
    Tensor hw = poplin::matMul(graph, h, units(recurrent, R, C, H), body, type,
                               {dc, "gateRecurrentWeights"}, mmOpts, cache);
    popops::mapInPlace(graph, pe::_1 + pe::_2, {gatesPre, hw}, body, {dc, "gates"});
    nonLinearityInPlace(graph, params.recurrentActivation, gatesPre, body, {dc, "gateAct"});
    recTerm = popops::map(graph, pe::_1 * pe::_2, {units(gatesPre, R, R + 1, H), h}, body,
                          {dc, "resetOutput"});
    Tensor hc = poplin::matMul(graph, recTerm, units(recurrent, C, C + 1, H), body, type,
                               {dc, "candidateRecurrentWeights"}, mmOpts, cache);
    popops::mapInPlace(graph, pe::_1 + pe::_2, {candPre, hc}, body, {dc, "candidate"});
  }
  nonLinearityInPlace(graph, params.activation, candPre, body, {dc, "candidateAct"});
  Tensor mask;
  if (limits.valid()) { // a sequence past its end: every gate zero
    mask = stepMask(graph, limits, index, d.batch, type, body, name).reshape({d.batch, 1});
    popops::mapInPlace(graph, pe::_1 * pe::_2, {units(pre, R, kUnits, H), mask}, body,
                       {dc, "maskGates"});
  }
  Tensor r = units(gatesPre, R, R + 1, H), u = units(gatesPre, U, U + 1, H);
  // With run-time lengths the step's output goes to a new tensor and the state keeps its old
  // value where the mask is 0; otherwise the state is updated in place.
  Tensor hNew = limits.valid() ? newMapped(graph, type, {d.batch, H}, name + "/newOutput") : h;
  if (attention) {
    // AUGRU: the update gate scaled by 1 − a_t (one score per batch entry and step).
    Tensor a = sliceStep(graph, attention->transpose(), index, body, name + "/stepAttention");
    Tensor aRows = a.expand({1}).broadcast(static_cast<unsigned>(H), 1);
    popops::mapWithOutput(graph,
                          (pe::Const(1.0f) - pe::_4) * pe::_1 * pe::_2 +
                              (pe::Const(1.0f) - (pe::Const(1.0f) - pe::_4) * pe::_1) * pe::_3,
                          {u, h, candPre, aRows}, hNew, body, {dc, "output"});
  } else {
    popops::mapWithOutput(graph, pe::_1 * pe::_2 + (pe::Const(1.0f) - pe::_1) * pe::_3,
                          {u, h, candPre}, hNew, body, {dc, "output"});
  }
  if (intermediates)
    updateStep(graph, inter,
               poplar::concat({r.expand({0}), u.expand({0}), candPre.expand({0}), hNew.expand({0}),
                               recTerm.expand({0})}),
               index, body, name + "/saveIntermediates");
  else if (params.outputFullSequence)
    updateStep(graph, outSeq, hNew, index, body, name + "/saveOutput");
  if (limits.valid()) // state = mask ? new : state
    popops::mapInPlace(graph, pe::_3 * pe::_2 + (pe::Const(1.0f) - pe::_3) * pe::_1,
                       {h, hNew, mask}, body, {dc, "holdOutput"});
  Sequence loop;
  addLimitedStep(graph, limits, index, body, loop, name);
  advanceStepIndex(graph, index, true, loop);
  addShardedLoop(fn, opts, d.steps, loop, prog, dc);

  if (!intermediates)
    return params.outputFullSequence ? outSeq : h;
  *intermediates = inter;
  if (params.outputFullSequence)
    return inter.slice(OUTPUT, OUTPUT + 1, 1).squeeze({1});
  return h;
}

/// The backward loop; with `attention` (AUGRU) also the attention gradients [batch][timeSteps]
/// into `*attentionGrad` if not null.
Tensor backwardImpl(const std::string &fn, poplar::Graph &graph, const GruParams &params,
                    Sequence &prog, const Tensor &fwdOutputInit, const Tensor &fwdInter,
                    const GruWeights &weights, const Tensor &fwdInputSeq,
                    const Tensor &gradLayerNext, Tensor *inputGrad, Tensor *bwdIntermediates,
                    const Tensor *attention, Tensor *attentionGrad,
                    const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                    poplin::PlanningCache *cache) {
  const Dims d = check(fn, params);
  if (attention)
    requireTensor(fn, "attentions", *attention, {d.batch, d.steps}, params.rnn.dataType);
  const RnnOptions opts = parseRnnOptions(fn, options);
  const auto type = params.rnn.dataType;
  checkWeights(fn, params, d, weights);
  requireTensor(fn, "fwdOutputInit", fwdOutputInit, {d.batch, d.out}, type);
  requireTensor(fn, "fwdIntermediatesSeq", fwdInter, {d.steps, NUM_INTER, d.batch, d.out}, type);
  requireTensor(fn, "fwdInputSeq", fwdInputSeq, {d.steps, d.batch, d.in}, type);
  requireTensor(fn, "gradLayerNext", gradLayerNext, outputShape(params, d), type);
  const auto mmOpts = matMulOptions(opts);
  const poplar::DebugContext dc(debugContext, "gruBwd");
  const std::string name = dc.getPathName();
  const std::size_t H = d.out;

  Tensor prevH =
      previousOutputs(graph, fwdOutputInit, fwdInter, OUTPUT, prog, name + "/prevOutputs");
  Tensor recurrentT = asMatrix(weights.outputWeights, params).transpose(); // [3H][H]
  Tensor dh = newMapped(graph, type, {d.batch, H}, name + "/outputGrad");
  if (params.outputFullSequence)
    popops::zero(graph, dh, prog, {dc, "zeroOutputGrad"});
  else
    prog.add(Copy(gradLayerNext, dh));
  // Per step: dR, dU, dC (pre-activation) and the gradient of the candidate's recurrent term.
  Tensor grads = newMapped(graph, type, {d.steps, d.batch, (kUnits + 1) * H}, name + "/grads");
  Tensor attGrads;
  if (attention)
    attGrads = newMapped(graph, type, {d.steps, d.batch}, name + "/attentionGrads");
  const StepLimits limits =
      prepareStepLimits(graph, fn, params.rnn.varTimeSteps, d.batch, prog, name);
  if (limits.valid()) { // skipped steps have no gradients
    popops::zero(graph, grads, prog, {dc, "zeroGrads"});
    if (attGrads.valid())
      popops::zero(graph, attGrads, prog, {dc, "zeroAttentionGrads"});
  }
  Tensor index = newStepIndex(graph, static_cast<unsigned>(d.steps - 1), prog, name + "/step");

  Sequence body;
  Tensor dhHeld; // the state gradient a step past a sequence's end passes on
  if (limits.valid())
    dhHeld = copyToNew(graph, dh, body, name + "/heldOutputGrad");
  Tensor inter = sliceStep(graph, fwdInter, index, body, name + "/stepIntermediates");
  Tensor hPrev = sliceStep(graph, prevH, index, body, name + "/stepPrevOutput");
  if (params.outputFullSequence) {
    Tensor dOut = sliceStep(graph, gradLayerNext, index, body, name + "/stepOutputGrad");
    popops::mapInPlace(graph, pe::_1 + pe::_2, {dh, dOut}, body, {dc, "outputGradSum"});
  }
  Tensor r = inter[R], u = inter[U], c = inter[C], rec = inter[RECURRENT];
  Tensor step = newMapped(graph, type, {d.batch, kUnits + 1, H}, name + "/stepGrads");
  auto part = [&](unsigned k) { return step.slice(k, k + 1, 1).squeeze({1}); };
  // With attention the state update uses u' = (1 − a) u: dL/du' = dh ∘ (h_{t-1} − c),
  // dL/du = (1 − a) dL/du', dL/da = −Σ_j dL/du' ∘ u.
  Tensor uEff = u;
  Tensor dUAct =
      popops::map(graph, pe::_1 * (pe::_2 - pe::_3), {dh, hPrev, c}, body, {dc, "updateActGrad"});
  if (attention) {
    Tensor a = sliceStep(graph, attention->transpose(), index, body, name + "/stepAttention");
    Tensor aRows = a.expand({1}).broadcast(static_cast<unsigned>(H), 1);
    uEff = popops::map(graph, (pe::Const(1.0f) - pe::_1) * pe::_2, {aRows, u}, body,
                       {dc, "attendedUpdate"});
    Tensor dA = popops::reduce(
        graph, popops::map(graph, -(pe::_1 * pe::_2), {dUAct, u}, body, {dc, "attentionGradTerms"}),
        {1}, popops::Operation::ADD, body, {dc, "attentionGrad"});
    updateStep(graph, attGrads, dA, index, body, name + "/saveAttentionGrad");
    popops::mapInPlace(graph, pe::_1 * (pe::Const(1.0f) - pe::_2), {dUAct, aRows}, body,
                       {dc, "updateGradThroughAttention"});
  }
  Tensor dCAct = popops::map(graph, pe::_1 * (pe::Const(1.0f) - pe::_2), {dh, uEff}, body,
                             {dc, "candidateActGrad"});
  body.add(Copy(
      nonLinearityInputGradient(graph, params.recurrentActivation, u, dUAct, body, {dc, "update"}),
      part(U)));
  Tensor dC = part(C);
  body.add(Copy(
      nonLinearityInputGradient(graph, params.activation, c, dCAct, body, {dc, "candidate"}), dC));
  Tensor stepFlat = step.reshape({d.batch, (kUnits + 1) * H});
  Tensor dhNext;
  if (params.resetAfter) {
    // rec = h_{t-1}·Uc + b[c][1]: dR = σ'(dC ∘ rec), d rec = dC ∘ r.
    Tensor dRAct = popops::map(graph, pe::_1 * pe::_2, {dC, rec}, body, {dc, "resetActGrad"});
    body.add(Copy(
        nonLinearityInputGradient(graph, params.recurrentActivation, r, dRAct, body, {dc, "reset"}),
        part(R)));
    popops::mapWithOutput(graph, pe::_1 * pe::_2, {dC, r}, part(kUnits), body,
                          {dc, "recurrentGrad"});
    Tensor recurrentGrads =
        poplar::concat({units(stepFlat, R, C, H), units(stepFlat, kUnits, kUnits + 1, H)}, 1);
    dhNext = poplin::matMul(graph, recurrentGrads, recurrentT, body, type, {dc, "prevOutputGrad"},
                            mmOpts, cache);
  } else {
    // rec = r ∘ h_{t-1}: d rec = dC·Ucᵀ, dR = σ'(d rec ∘ h_{t-1}), and d rec ∘ r flows to h.
    body.add(Copy(dC, part(kUnits)));
    Tensor dRec = poplin::matMul(graph, dC, recurrentT.slice(C * H, (C + 1) * H, 0), body, type,
                                 {dc, "resetOutputGrad"}, mmOpts, cache);
    Tensor dRAct = popops::map(graph, pe::_1 * pe::_2, {dRec, hPrev}, body, {dc, "resetActGrad"});
    body.add(Copy(
        nonLinearityInputGradient(graph, params.recurrentActivation, r, dRAct, body, {dc, "reset"}),
        part(R)));
    dhNext = poplin::matMul(graph, units(stepFlat, R, C, H), recurrentT.slice(0, C * H, 0), body,
                            type, {dc, "prevOutputGrad"}, mmOpts, cache);
    popops::mapInPlace(graph, pe::_1 + pe::_2 * pe::_3, {dhNext, dRec, r}, body,
                       {dc, "prevOutputGradReset"});
  }
  popops::mapWithOutput(graph, pe::_1 * pe::_2 + pe::_3, {dh, uEff, dhNext}, dh, body,
                        {dc, "prevOutputGradSum"});
  if (limits.valid()) { // masked gates get no gradient; the held state passes its gradient on
    Tensor mask = stepMask(graph, limits, index, d.batch, type, body, name).reshape({d.batch, 1});
    popops::mapInPlace(graph, pe::_1 * pe::_2, {stepFlat, mask}, body, {dc, "maskGrads"});
    popops::mapInPlace(graph, pe::_3 * pe::_1 + (pe::Const(1.0f) - pe::_3) * pe::_2,
                       {dh, dhHeld, mask}, body, {dc, "holdOutputGrad"});
  }
  updateStep(graph, grads, stepFlat, index, body, name + "/saveGrads");
  Sequence loop;
  addLimitedStep(graph, limits, index, body, loop, name);
  advanceStepIndex(graph, index, false, loop);
  addShardedLoop(fn, opts, d.steps, loop, prog, dc);

  if (inputGrad && params.calcInputGradients)
    *inputGrad = poplin::matMul(
                     graph, grads.slice(0, kUnits * H, 2).reshape({d.steps * d.batch, kUnits * H}),
                     asMatrix(weights.inputWeights, params).transpose(), prog, type,
                     {dc, "inputGrad"}, mmOpts, cache)
                     .reshape({d.steps, d.batch, d.in});
  if (bwdIntermediates)
    *bwdIntermediates = grads;
  if (attentionGrad && attention)
    *attentionGrad = attGrads.transpose();
  return dh;
}

} // namespace

Tensor gruFwd(poplar::Graph &graph, const GruParams &params, const Tensor &stateInit,
              const Tensor &in, const GruWeights &weights, Tensor *intermediates, Sequence &prog,
              const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
              poplin::PlanningCache *cache) {
  return forwardImpl("gru::gruFwd", graph, params, stateInit, in, weights, intermediates, prog,
                     nullptr, debugContext, options, cache);
}

Tensor auGruFwd(poplar::Graph &graph, const GruParams &params, const Tensor &stateInit,
                const Tensor &in, const GruWeights &weights, Tensor *intermediates,
                const Tensor &attScores, Sequence &fwdProg,
                const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                poplin::PlanningCache *cache) {
  return forwardImpl("gru::auGruFwd", graph, params, stateInit, in, weights, intermediates, fwdProg,
                     &attScores, debugContext, options, cache);
}

Tensor gruBwd(poplar::Graph &graph, const GruParams &params, Sequence &prog,
              const Tensor &fwdOutputInit, const Tensor &fwdIntermediatesSeq,
              const GruWeights &weights, const Tensor &fwdInputSeq, const Tensor &,
              const Tensor &gradLayerNext, Tensor *inputGrad, Tensor *bwdIntermediates,
              const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
              poplin::PlanningCache *cache) {
  return backwardImpl("gru::gruBwd", graph, params, prog, fwdOutputInit, fwdIntermediatesSeq,
                      weights, fwdInputSeq, gradLayerNext, inputGrad, bwdIntermediates, nullptr,
                      nullptr, debugContext, options, cache);
}

Tensor auGruBwd(poplar::Graph &graph, const GruParams &params, Sequence &prog,
                const Tensor &fwdOutputInit, const Tensor &fwdIntermediatesSeq,
                const GruWeights &weights, const Tensor &fwdInputSeq, const Tensor &,
                const Tensor &gradLayerNext, Tensor *inputGrad, Tensor *bwdIntermediates,
                const Tensor &attentions, Tensor *attentionsGrad,
                const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                poplin::PlanningCache *cache) {
  return backwardImpl("gru::auGruBwd", graph, params, prog, fwdOutputInit, fwdIntermediatesSeq,
                      weights, fwdInputSeq, gradLayerNext, inputGrad, bwdIntermediates, &attentions,
                      attentionsGrad, debugContext, options, cache);
}

GruWeights gruWU(poplar::Graph &graph, const GruParams &params, Sequence &prog,
                 const Tensor &fwdOutputInit, const Tensor &fwdIntermediates,
                 const Tensor &bwdIntermediates, const GruWeights &weights, const Tensor &input,
                 const Tensor &, const poplar::DebugContext &debugContext,
                 const poplar::OptionFlags &options, poplin::PlanningCache *cache) {
  const std::string fn = "gru::gruWU";
  const Dims d = check(fn, params);
  const RnnOptions opts = parseRnnOptions(fn, options);
  const auto type = params.rnn.dataType;
  checkWeights(fn, params, d, weights);
  requireTensor(fn, "fwdOutputInit", fwdOutputInit, {d.batch, d.out}, type);
  requireTensor(fn, "fwdIntermediates", fwdIntermediates, {d.steps, NUM_INTER, d.batch, d.out},
                type);
  requireTensor(fn, "bwdIntermediates", bwdIntermediates, {d.steps, d.batch, (kUnits + 1) * d.out},
                type);
  requireTensor(fn, "input", input, {d.steps, d.batch, d.in}, type);
  const auto accType = weightAccumulatorType(opts, type);
  const auto mmOpts = matMulOptions(opts);
  const poplar::DebugContext dc(debugContext, "gruWU");
  const std::size_t H = d.out, rows = d.steps * d.batch;

  Tensor g = bwdIntermediates.reshape({rows, (kUnits + 1) * H});
  Tensor inputSide = units(g, R, kUnits, H);
  Tensor prevH = previousOutputs(graph, fwdOutputInit, fwdIntermediates, OUTPUT, prog,
                                 dc.getPathName() + "/prevOutputs")
                     .reshape({rows, H});
  Tensor dWi = poplin::matMul(graph, input.reshape({rows, d.in}).transpose(), inputSide, prog,
                              accType, {dc, "inputWeightsGrad"}, mmOpts, cache);
  Tensor gatesWo = poplin::matMul(graph, prevH.transpose(), units(g, R, C, H), prog, accType,
                                  {dc, "gateRecurrentWeightsGrad"}, mmOpts, cache);
  // The candidate's recurrent weights see h_{t-1} (resetAfter) or r ∘ h_{t-1}.
  Tensor candIn =
      params.resetAfter
          ? prevH
          : copyToNew(graph, fwdIntermediates.slice(RECURRENT, RECURRENT + 1, 1).squeeze({1}), prog,
                      dc.getPathName() + "/resetOutputs")
                .reshape({rows, H});
  Tensor candWo = poplin::matMul(graph, candIn.transpose(), units(g, kUnits, kUnits + 1, H), prog,
                                 accType, {dc, "candidateRecurrentWeightsGrad"}, mmOpts, cache);
  Tensor dbIn = popops::reduce(graph, inputSide, accType, {0}, popops::Operation::ADD, prog,
                               {dc, "inputBiasGrad"})
                    .reshape({kUnits, 1, H});
  GruWeights result;
  result.inputWeights = fromMatrix(dWi, params, H);
  result.outputWeights = fromMatrix(poplar::concat(gatesWo, candWo, 1), params, H);
  if (params.resetAfter) {
    Tensor dbRec =
        popops::reduce(graph, poplar::concat(units(g, R, C, H), units(g, kUnits, kUnits + 1, H), 1),
                       accType, {0}, popops::Operation::ADD, prog, {dc, "recurrentBiasGrad"})
            .reshape({kUnits, 1, H});
    result.biases = fromCanonical(poplar::concat(dbIn, dbRec, 1), orderOf(params));
  } else {
    result.biases = fromCanonical(dbIn.reshape({kUnits, H}), orderOf(params));
  }
  return result;
}

Tensor gruBwdWithWU(poplar::Graph &graph, const GruParams &params, Sequence &prog,
                    const Tensor &fwdOutputInit, const Tensor &fwdIntermediates,
                    const GruWeights &weights, const Tensor &input, const Tensor &output,
                    const Tensor &outputGrad, Tensor *inputGrad, GruWeights &weightsGrad,
                    const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                    poplin::PlanningCache *cache) {
  Tensor grads;
  Tensor dInit = gruBwd(graph, params, prog, fwdOutputInit, fwdIntermediates, weights, input,
                        output, outputGrad, inputGrad, &grads, debugContext, options, cache);
  weightsGrad = gruWU(graph, params, prog, fwdOutputInit, fwdIntermediates, grads, weights, input,
                      output, debugContext, options, cache);
  return dInit;
}

GruWeights auGruWU(poplar::Graph &graph, const GruParams &params, Sequence &prog,
                   const Tensor &fwdOutputInit, const Tensor &fwdIntermediates,
                   const Tensor &bwdIntermediates, const GruWeights &weights, const Tensor &input,
                   const Tensor &output, const poplar::DebugContext &debugContext,
                   const poplar::OptionFlags &options, poplin::PlanningCache *cache) {
  // The backward intermediates already hold the gradients at the pre-activations (through the
  // attention), so the weight update is the GRU's.
  return gruWU(graph, params, prog, fwdOutputInit, fwdIntermediates, bwdIntermediates, weights,
               input, output, {debugContext, "auGruWU"}, options, cache);
}

Tensor auGruBwdWithWU(poplar::Graph &graph, const GruParams &params, Sequence &prog,
                      const Tensor &fwdOutputInit, const Tensor &fwdIntermediates,
                      const GruWeights &weights, const Tensor &input, const Tensor &output,
                      const Tensor &outputGrad, Tensor *inputGrad, GruWeights &weightsGrad,
                      const Tensor &attentions, Tensor *attentionsGrad,
                      const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                      poplin::PlanningCache *cache) {
  Tensor grads;
  Tensor dInit = auGruBwd(graph, params, prog, fwdOutputInit, fwdIntermediates, weights, input,
                          output, outputGrad, inputGrad, &grads, attentions, attentionsGrad,
                          debugContext, options, cache);
  weightsGrad = auGruWU(graph, params, prog, fwdOutputInit, fwdIntermediates, grads, weights, input,
                        output, debugContext, options, cache);
  return dInit;
}

Tensor createAttention(poplar::Graph &graph, const GruParams &params,
                       const poplar::DebugContext &debugContext,
                       const poplar::OptionFlags &options) {
  const Dims d = check("gru::createAttention", params);
  parseRnnOptions("gru::createAttention", options);
  // Stored step-major so that one step's scores (a column) are contiguous.
  return newMapped(graph, params.rnn.dataType, {d.steps, d.batch},
                   poplar::DebugContext(debugContext, "attention").getPathName())
      .transpose();
}

namespace {

/// `params` with the run-time lengths `realTimeSteps`.
GruParams withLengths(const GruParams &params, const Tensor &realTimeSteps) {
  GruParams copy(params);
  copy.rnn.varTimeSteps = realTimeSteps;
  return copy;
}

} // namespace

Tensor gruFwd(poplar::Graph &graph, const GruParams &params, const Tensor &stateInit,
              const Tensor &in, const Tensor &realTimeSteps, const GruWeights &weights,
              Tensor *intermediates, Sequence &fwdProg, const poplar::DebugContext &debugContext,
              const poplar::OptionFlags &options, poplin::PlanningCache *planningCache) {
  return gruFwd(graph, withLengths(params, realTimeSteps), stateInit, in, weights, intermediates,
                fwdProg, debugContext, options, planningCache);
}

Tensor auGruFwd(poplar::Graph &graph, const GruParams &params, const Tensor &stateInit,
                const Tensor &in, const Tensor &realTimeSteps, const GruWeights &weights,
                Tensor *intermediates, const Tensor &attScores, Sequence &fwdProg,
                const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                poplin::PlanningCache *planningCache) {
  return auGruFwd(graph, withLengths(params, realTimeSteps), stateInit, in, weights, intermediates,
                  attScores, fwdProg, debugContext, options, planningCache);
}

Tensor gruBwd(poplar::Graph &graph, const GruParams &params, Sequence &prog,
              const Tensor &fwdOutputInit, const Tensor &fwdIntermediatesSeq,
              const GruWeights &weights, const Tensor &fwdInputSeq, const Tensor &realTimeSteps,
              const Tensor &fwdOutput, const Tensor &gradLayerNext, Tensor *inputGrad,
              Tensor *bwdIntermediates, const poplar::DebugContext &debugContext,
              const poplar::OptionFlags &options_, poplin::PlanningCache *planningCache) {
  return gruBwd(graph, withLengths(params, realTimeSteps), prog, fwdOutputInit, fwdIntermediatesSeq,
                weights, fwdInputSeq, fwdOutput, gradLayerNext, inputGrad, bwdIntermediates,
                debugContext, options_, planningCache);
}

Tensor auGruBwd(poplar::Graph &graph, const GruParams &params, Sequence &prog,
                const Tensor &fwdOutputInit, const Tensor &fwdIntermediatesSeq,
                const GruWeights &weights, const Tensor &fwdInputSeq, const Tensor &realTimeSteps,
                const Tensor &fwdOutput, const Tensor &gradLayerNext, Tensor *inputGrad,
                Tensor *bwdIntermediates, const Tensor &attentions, Tensor *attentionsGrad,
                const poplar::DebugContext &debugContext, const poplar::OptionFlags &options_,
                poplin::PlanningCache *planningCache) {
  return auGruBwd(graph, withLengths(params, realTimeSteps), prog, fwdOutputInit,
                  fwdIntermediatesSeq, weights, fwdInputSeq, fwdOutput, gradLayerNext, inputGrad,
                  bwdIntermediates, attentions, attentionsGrad, debugContext, options_,
                  planningCache);
}

Tensor gruBwdWithWU(poplar::Graph &graph, const GruParams &params, Sequence &prog,
                    const Tensor &fwdOutputInit, const Tensor &fwdIntermediates,
                    const GruWeights &weights, const Tensor &input, const Tensor &realTimeSteps,
                    const Tensor &output, const Tensor &outputGrad, Tensor *inputGrad,
                    GruWeights &weightsGrad, const poplar::DebugContext &debugContext,
                    const poplar::OptionFlags &options_, poplin::PlanningCache *planningCache) {
  return gruBwdWithWU(graph, withLengths(params, realTimeSteps), prog, fwdOutputInit,
                      fwdIntermediates, weights, input, output, outputGrad, inputGrad, weightsGrad,
                      debugContext, options_, planningCache);
}

Tensor auGruBwdWithWU(poplar::Graph &graph, const GruParams &params, Sequence &prog,
                      const Tensor &fwdOutputInit, const Tensor &fwdIntermediates,
                      const GruWeights &weights, const Tensor &input, const Tensor &realTimeSteps,
                      const Tensor &output, const Tensor &outputGrad, Tensor *inputGrad,
                      GruWeights &weightsGrad, const Tensor &attentions, Tensor *attentionsGrad,
                      const poplar::DebugContext &debugContext, const poplar::OptionFlags &options_,
                      poplin::PlanningCache *planningCache) {
  return auGruBwdWithWU(graph, withLengths(params, realTimeSteps), prog, fwdOutputInit,
                        fwdIntermediates, weights, input, output, outputGrad, inputGrad,
                        weightsGrad, attentions, attentionsGrad, debugContext, options_,
                        planningCache);
}

} // namespace popnn::gru
