// popnn::lstm: the basic LSTM cell over a sequence. The input weights are applied to the whole
// sequence in one matrix multiplication before the loop; each step of the loop (a Repeat driven
// by a step index and dynamic slices) multiplies the previous output by the recurrent weights,
// applies the non-linearities and updates the state. Gates are handled internally in the
// canonical order forget, input, candidate, output; params.cellOrder maps them to the weights.
#include <popnn/Lstm.hpp>

#include <poplin/MatMul.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "NnChecks.hpp"
#include "RnnCommon.hpp"

namespace popnn::lstm {

using namespace popnn::rnn_detail;
using poplar::Tensor;
using poplar::program::Copy;
using poplar::program::Repeat;
using poplar::program::Sequence;
namespace pe = popops::expr;

namespace {

constexpr unsigned kUnits = BASIC_LSTM_CELL_NUM_UNITS;
// Per-step forward intermediates, in this order: the four activated gates (canonical order),
// the new cell state, φ(cell state) and the new output.
enum Intermediate : unsigned { GATES_END = 4, CELL = 4, CELL_ACT = 5, OUTPUT = 6, NUM_INTER = 7 };

std::vector<unsigned> orderOf(const LstmParams &p) {
  return std::vector<unsigned>(p.cellOrder.begin(), p.cellOrder.end());
}

struct Dims {
  std::size_t steps, batch, in, out;
};

Dims check(const std::string &fn, const LstmParams &p) {
  requireLayer(fn, p.rnn.dataType, p.rnn.batchSize, p.rnn.timeSteps, p.rnn.layerSizes);
  checkCellOrder(fn, orderOf(p), kUnits);
  return {p.rnn.timeSteps, p.rnn.batchSize, p.rnn.layerSizes[0], p.rnn.layerSizes[1]};
}

void checkWeights(const std::string &fn, const LstmParams &p, const Dims &d, const LstmWeights &w) {
  const auto type = p.rnn.dataType;
  requireTensor(fn, "weights.inputWeights", w.inputWeights, {kUnits, d.in, d.out}, type);
  requireTensor(fn, "weights.outputWeights", w.outputWeights, {kUnits, d.out, d.out}, type);
  requireTensor(fn, "weights.biases", w.biases, {kUnits, d.out}, type);
}

void checkState(const std::string &fn, const std::string &name, const LstmParams &p, const Dims &d,
                const LstmState &s) {
  requireTensor(fn, name + ".output", s.output, {d.batch, d.out}, p.rnn.dataType);
  requireTensor(fn, name + ".cellState", s.cellState, {d.batch, d.out}, p.rnn.dataType);
}

std::vector<std::size_t> outputShape(const LstmParams &p, const Dims &d) {
  return layerOutputShape(p.outputFullSequence, d.steps, d.batch, d.out);
}

/// A weight tensor [4][rows][out] in cellOrder as a matrix [rows][4·out] in canonical gate order.
Tensor asMatrix(const Tensor &w, const LstmParams &p) { return unitsAsMatrix(w, orderOf(p)); }

/// A canonical-order gradient matrix [rows][4·out] as a weight-shaped tensor [4][rows][out] in
/// cellOrder.
Tensor fromMatrix(const Tensor &m, const LstmParams &p, std::size_t out) {
  return matrixAsUnits(m, kUnits, out, orderOf(p));
}

} // namespace

const std::vector<BasicLstmCellUnit> getDefaultBasicLstmCellOrder() {
  return {BASIC_LSTM_CELL_FORGET_GATE, BASIC_LSTM_CELL_INPUT_GATE, BASIC_LSTM_CELL_CANDIDATE,
          BASIC_LSTM_CELL_OUTPUT_GATE};
}

LstmParams::LstmParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
                       std::vector<std::size_t> layerSizes, NonLinearityType activation,
                       NonLinearityType recurrentActivation)
    : rnn(dataType, batchSize, timeSteps, layerSizes), dataType(dataType), batchSize(batchSize),
      timeSteps(timeSteps), layerSizes(layerSizes), activation(activation),
      recurrentActivation(recurrentActivation) {}

LstmParams::LstmParams(poplar::Type dataType, std::size_t batchSize, std::size_t maxTimeSteps,
                       const Tensor &timeSteps, std::vector<std::size_t> layerSizes,
                       NonLinearityType activation, NonLinearityType recurrentActivation)
    : rnn(dataType, batchSize, maxTimeSteps, timeSteps, layerSizes), dataType(dataType),
      batchSize(batchSize), timeSteps(maxTimeSteps), layerSizes(layerSizes), activation(activation),
      recurrentActivation(recurrentActivation) {}

Tensor LstmState::getAsTensor() const {
  return poplar::concat({output.expand({0}), cellState.expand({0})}, 0);
}

std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>>
getMatMulPrePlanParameters(LstmParams params, poplar::OptionFlags opts) {
  const std::string fn = "lstm::getMatMulPrePlanParameters";
  const Dims d = check(fn, params);
  const RnnOptions parsed = parseRnnOptions(fn, opts);
  const auto mmOpts = matMulOptions(parsed);
  const auto type = params.rnn.dataType;
  const std::size_t rows = d.steps * d.batch, gates = kUnits * d.out;
  std::vector<std::pair<poplin::MatMulParams, poplar::OptionFlags>> result;
  auto add = [&](const poplar::Type &outType, std::vector<std::size_t> a,
                 std::vector<std::size_t> b) {
    result.push_back({poplin::MatMulParams{type, outType, std::move(a), std::move(b)}, mmOpts});
  };
  // lstmFwd: the whole sequence times the input weights, then one step times the recurrent ones.
  if (params.doInputWeightCalc)
    add(type, {rows, d.in}, {d.in, gates});
  add(type, {d.batch, d.out}, {d.out, gates});
  if (parsed.inferenceOnly)
    return result;
  // lstmBwd: one step's gate gradients times the recurrent weights transposed, then the input
  // gradients of the whole sequence.
  add(type, {d.batch, gates}, {gates, d.out});
  if (params.calcInputGradients)
    add(type, {rows, gates}, {gates, d.in});
  // lstmWU: inputs and previous outputs transposed times the gate gradients.
  const auto accType = weightAccumulatorType(parsed, type);
  add(accType, {d.in, rows}, {rows, gates});
  add(accType, {d.out, rows}, {rows, gates});
  return result;
}

uint64_t getBasicLstmCellFwdFlops(const LstmParams &p) {
  const uint64_t t = p.rnn.timeSteps, b = p.rnn.batchSize, i = p.rnn.layerSizes.at(0),
                 o = p.rnn.layerSizes.at(1);
  const uint64_t inputMul = p.doInputWeightCalc ? 2 * b * i * 4 * o : 0;
  // Recurrent product, bias and sum per gate, the cell update (3) and the output product (1).
  return t * (inputMul + 2 * b * o * 4 * o + b * o * (4 * 2 + 4));
}

uint64_t getBasicLstmCellBwdFlops(const LstmParams &p) {
  const uint64_t t = p.rnn.timeSteps, b = p.rnn.batchSize, i = p.rnn.layerSizes.at(0),
                 o = p.rnn.layerSizes.at(1);
  const uint64_t inputGrad = p.calcInputGradients ? 2 * b * 4 * o * i : 0;
  return t * (inputGrad + 2 * b * 4 * o * o + b * o * 14);
}

uint64_t getBasicLstmCellWuFlops(const LstmParams &p) {
  const uint64_t t = p.rnn.timeSteps, b = p.rnn.batchSize, i = p.rnn.layerSizes.at(0),
                 o = p.rnn.layerSizes.at(1);
  return t * (2 * b * (i + o) * 4 * o + b * 4 * o);
}

Tensor createInput(poplar::Graph &graph, const LstmParams &params,
                   const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                   poplin::matmul::PlanningCache *) {
  check("lstm::createInput", params);
  parseRnnOptions("lstm::createInput", options);
  return rnn::createInputTensor(graph, params.rnn, 1, {debugContext, "input"});
}

Tensor createInitialOutput(poplar::Graph &graph, const LstmParams &params,
                           const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options, poplin::matmul::PlanningCache *) {
  const Dims d = check("lstm::createInitialOutput", params);
  parseRnnOptions("lstm::createInitialOutput", options);
  return newMapped(graph, params.rnn.dataType, {d.batch, d.out},
                   poplar::DebugContext(debugContext, "initialOutput").getPathName());
}

Tensor createInitialCellState(poplar::Graph &graph, const LstmParams &params,
                              const poplar::DebugContext &debugContext,
                              const poplar::OptionFlags &options, poplin::matmul::PlanningCache *) {
  const Dims d = check("lstm::createInitialCellState", params);
  parseRnnOptions("lstm::createInitialCellState", options);
  return newMapped(graph, params.rnn.dataType, {d.batch, d.out},
                   poplar::DebugContext(debugContext, "initialCellState").getPathName());
}

LstmState createInitialState(poplar::Graph &graph, const LstmParams &params,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options,
                             poplin::matmul::PlanningCache *cache) {
  return {createInitialOutput(graph, params, debugContext, options, cache),
          createInitialCellState(graph, params, debugContext, options, cache)};
}

void zeroInitialState(poplar::Graph &graph, const LstmState &initialState, Sequence &prog,
                      const poplar::DebugContext &debugContext) {
  popops::zero(graph, initialState.getAsTensor(), prog, {debugContext, "zeroInitialState"});
}

std::pair<Tensor, Tensor> createWeightsKernel(poplar::Graph &graph, const LstmParams &params,
                                              const poplar::DebugContext &debugContext,
                                              const poplar::OptionFlags &options,
                                              poplin::matmul::PlanningCache *) {
  const Dims d = check("lstm::createWeightsKernel", params);
  parseRnnOptions("lstm::createWeightsKernel", options);
  const poplar::DebugContext dc(debugContext, "weights");
  Tensor in = newMapped(graph, params.rnn.dataType, {kUnits, d.in, d.out},
                        poplar::DebugContext(dc, "input").getPathName());
  Tensor out = newMapped(graph, params.rnn.dataType, {kUnits, d.out, d.out},
                         poplar::DebugContext(dc, "output").getPathName());
  return {in, out};
}

Tensor createWeightsBiases(poplar::Graph &graph, const LstmParams &params,
                           const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options, poplin::matmul::PlanningCache *) {
  const Dims d = check("lstm::createWeightsBiases", params);
  parseRnnOptions("lstm::createWeightsBiases", options);
  return newMapped(graph, params.rnn.dataType, {kUnits, d.out},
                   poplar::DebugContext(debugContext, "biases").getPathName());
}

LstmWeights createWeights(poplar::Graph &graph, const LstmParams &params,
                          const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options,
                          poplin::matmul::PlanningCache *cache) {
  auto [in, out] = createWeightsKernel(graph, params, debugContext, options, cache);
  return {in, out, createWeightsBiases(graph, params, debugContext, options, cache)};
}

namespace {

/// The forward loop; `finalCell` (if not null) receives the cell state after the last step run.
Tensor forward(poplar::Graph &graph, const LstmParams &params, Sequence &prog,
               const LstmState &stateInit, const LstmWeights &weights, const Tensor &in,
               Tensor *intermediates, Tensor *finalCell, const poplar::DebugContext &debugContext,
               const poplar::OptionFlags &options, poplin::matmul::PlanningCache *cache) {
  const std::string fn = "lstm::lstmFwd";
  const Dims d = check(fn, params);
  const RnnOptions opts = parseRnnOptions(fn, options);
  checkWeights(fn, params, d, weights);
  checkState(fn, "stateInit", params, d, stateInit);
  requireTensor(fn, "in", in, {d.steps, d.batch, d.in}, params.rnn.dataType);
  const auto type = params.rnn.dataType;
  const auto mmOpts = matMulOptions(opts);
  const poplar::DebugContext dc(debugContext, "lstmFwd");
  const std::string name = dc.getPathName();

  // Input contribution of every step at once, plus the bias: [T][batch][4·out].
  Tensor bias = toCanonical(weights.biases, orderOf(params)).flatten();
  Tensor weighted;
  if (params.doInputWeightCalc) {
    weighted = poplin::matMul(graph, in.reshape({d.steps * d.batch, d.in}),
                              asMatrix(weights.inputWeights, params), prog, type,
                              {dc, "inputWeights"}, mmOpts, cache);
    popops::mapInPlace(graph, pe::_1 + pe::_2,
                       {weighted, bias.expand({0}).broadcast(d.steps * d.batch, 0)}, prog,
                       {dc, "bias"});
  } else {
    weighted =
        copyToNew(graph, bias.expand({0}).broadcast(d.steps * d.batch, 0), prog, name + "/bias");
  }
  weighted = weighted.reshape({d.steps, d.batch, kUnits * d.out});
  Tensor recurrent = asMatrix(weights.outputWeights, params);

  Tensor h = copyToNew(graph, stateInit.output, prog, name + "/output");
  Tensor c = copyToNew(graph, stateInit.cellState, prog, name + "/cellState");
  // Training keeps every step's intermediates; inference keeps at most the outputs.
  const ForwardRecords records = newForwardRecords(
      graph, fn, type, d.steps, NUM_INTER, d.batch, d.out, intermediates != nullptr,
      params.outputFullSequence, params.rnn.varTimeSteps, prog, dc, name);
  const Tensor &inter = records.intermediates, &outSeq = records.outputs;
  const StepLimits &limits = records.limits;
  Tensor index = newStepIndex(graph, 0, prog, name + "/step");

  Sequence body;
  Tensor pre = sliceStep(graph, weighted, index, body, name + "/stepInput");
  Tensor hw =
      poplin::matMul(graph, h, recurrent, body, type, {dc, "recurrentWeights"}, mmOpts, cache);
  popops::mapInPlace(graph, pe::_1 + pe::_2, {pre, hw}, body, {dc, "gates"});
  Tensor gates = pre.reshape({d.batch, kUnits, d.out});
  auto unit = [&](unsigned u) { return gates.slice(u, u + 1, 1).squeeze({1}); };
  Tensor f = unit(BASIC_LSTM_CELL_FORGET_GATE), i = unit(BASIC_LSTM_CELL_INPUT_GATE),
         g = unit(BASIC_LSTM_CELL_CANDIDATE), o = unit(BASIC_LSTM_CELL_OUTPUT_GATE);
  for (const Tensor &gate : {f, i, o})
    nonLinearityInPlace(graph, params.recurrentActivation, gate, body, {dc, "gate"});
  nonLinearityInPlace(graph, params.activation, g, body, {dc, "candidate"});
  Tensor mask;
  if (limits.valid()) { // a sequence past its end: every gate zero
    mask = stepMask(graph, limits, index, d.batch, type, body, name).reshape({d.batch, 1});
    popops::mapInPlace(graph, pe::_1 * pe::_2, {gates, mask.expand({1})}, body, {dc, "maskGates"});
  }
  // With run-time lengths the step's values go to new tensors and the state keeps its old
  // value where the mask is 0; otherwise the state is updated in place.
  Tensor cNew = limits.valid() ? newMapped(graph, type, {d.batch, d.out}, name + "/newCell") : c;
  Tensor hNew = limits.valid() ? newMapped(graph, type, {d.batch, d.out}, name + "/newOutput") : h;
  popops::mapWithOutput(graph, pe::_1 * pe::_2 + pe::_3 * pe::_4, {f, c, i, g}, cNew, body,
                        {dc, "cellState"});
  Tensor cellAct = nonLinearity(graph, params.activation, cNew, body, {dc, "cellActivation"});
  popops::mapWithOutput(graph, pe::_1 * pe::_2, {o, cellAct}, hNew, body, {dc, "output"});
  if (intermediates)
    updateStep(graph, inter,
               poplar::concat({f.expand({0}), i.expand({0}), g.expand({0}), o.expand({0}),
                               cNew.expand({0}), cellAct.expand({0}), hNew.expand({0})}),
               index, body, name + "/saveIntermediates");
  else if (params.outputFullSequence)
    updateStep(graph, outSeq, hNew, index, body, name + "/saveOutput");
  if (limits.valid()) {
    // state = mask ? new : state
    const auto hold = pe::_3 * pe::_2 + (pe::Const(1.0f) - pe::_3) * pe::_1;
    popops::mapInPlace(graph, hold, {c, cNew, mask}, body, {dc, "holdCell"});
    popops::mapInPlace(graph, hold, {h, hNew, mask}, body, {dc, "holdOutput"});
  }
  Sequence loop;
  addLimitedStep(graph, limits, index, body, loop, name);
  advanceStepIndex(graph, index, true, loop);
  addShardedLoop(fn, opts, d.steps, loop, prog, dc);

  if (finalCell)
    *finalCell = c;
  if (!intermediates)
    return params.outputFullSequence ? outSeq : h;
  *intermediates = inter;
  if (params.outputFullSequence)
    return inter.slice(OUTPUT, OUTPUT + 1, 1).squeeze({1});
  return h;
}

} // namespace

Tensor lstmFwd(poplar::Graph &graph, const LstmParams &params, Sequence &prog,
               const LstmState &stateInit, const LstmWeights &weights, const Tensor &in,
               Tensor *intermediates, const poplar::DebugContext &debugContext,
               const poplar::OptionFlags &options, poplin::matmul::PlanningCache *cache) {
  return forward(graph, params, prog, stateInit, weights, in, intermediates, nullptr, debugContext,
                 options, cache);
}

std::pair<Tensor, Tensor> lstmFwd(poplar::Graph &graph, const LstmParams &params,
                                  const LstmState &stateInit, const Tensor &in,
                                  const LstmWeights &weights, Tensor *intermediates,
                                  Sequence &fwdProg, const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options,
                                  poplin::matmul::PlanningCache *cache) {
  Tensor inter, finalCell;
  Tensor out = forward(graph, params, fwdProg, stateInit, weights, in, &inter, &finalCell,
                       debugContext, options, cache);
  if (intermediates)
    *intermediates = inter;
  return {out, finalCell};
}

namespace {

/// The backward loop; returns the initial-state gradient and the gate gradients
/// [T][batch][4·out] (canonical order, before the non-linearities).
std::pair<LstmState, Tensor> backward(poplar::Graph &graph, const LstmParams &params,
                                      Sequence &prog, const LstmState &fwdStateInit,
                                      const Tensor &fwdInter, const LstmWeights &weights,
                                      const Tensor &outputGrad, const Tensor *lastCellStateGrad,
                                      Tensor *inputGrad, const poplar::DebugContext &dc,
                                      const RnnOptions &opts,
                                      poplin::matmul::PlanningCache *cache) {
  const std::string fn = "lstm::lstmBwd";
  const Dims d{params.rnn.timeSteps, params.rnn.batchSize, params.rnn.layerSizes[0],
               params.rnn.layerSizes[1]};
  const auto type = params.rnn.dataType;
  const auto mmOpts = matMulOptions(opts);
  const std::string name = dc.getPathName();
  requireTensor(fn, "fwdIntermediates", fwdInter, {d.steps, NUM_INTER, d.batch, d.out}, type);
  requireTensor(fn, "outputGrad", outputGrad, outputShape(params, d), type);
  if (lastCellStateGrad)
    requireTensor(fn, "lastCellStateGrad", *lastCellStateGrad, {d.batch, d.out}, type);

  // Previous cell state of every step: c_{-1}, c_0, …, c_{T-2}.
  std::vector<Tensor> prevParts{fwdStateInit.cellState.expand({0})};
  if (d.steps > 1)
    prevParts.push_back(fwdInter.slice(0, d.steps - 1, 0).slice(CELL, CELL + 1, 1).squeeze({1}));
  Tensor prevCells = copyToNew(graph, poplar::concat(prevParts, 0), prog, name + "/prevCells");
  // Recurrent weights transposed: [4·out][out].
  Tensor recurrentT = asMatrix(weights.outputWeights, params).transpose();

  Tensor dh = newMapped(graph, type, {d.batch, d.out}, name + "/outputGrad");
  Tensor dc_ = newMapped(graph, type, {d.batch, d.out}, name + "/cellStateGrad");
  if (params.outputFullSequence)
    popops::zero(graph, dh, prog, {dc, "zeroOutputGrad"});
  else
    prog.add(Copy(outputGrad, dh));
  if (lastCellStateGrad)
    prog.add(Copy(*lastCellStateGrad, dc_));
  else
    popops::zero(graph, dc_, prog, {dc, "zeroCellStateGrad"});
  Tensor gateGrads =
      newMapped(graph, type, {d.steps, d.batch, kUnits * d.out}, name + "/gateGrads");
  const StepLimits limits =
      prepareStepLimits(graph, fn, params.rnn.varTimeSteps, d.batch, prog, name);
  if (limits.valid()) // skipped steps have no gate gradients
    popops::zero(graph, gateGrads, prog, {dc, "zeroGateGrads"});
  Tensor index = newStepIndex(graph, static_cast<unsigned>(d.steps - 1), prog, name + "/step");

  Sequence body;
  Tensor dhHeld, dcHeld; // the state gradients a step past a sequence's end passes on
  if (limits.valid()) {
    dhHeld = copyToNew(graph, dh, body, name + "/heldOutputGrad");
    dcHeld = copyToNew(graph, dc_, body, name + "/heldCellStateGrad");
  }
  Tensor inter = sliceStep(graph, fwdInter, index, body, name + "/stepIntermediates");
  Tensor cPrev = sliceStep(graph, prevCells, index, body, name + "/stepPrevCell");
  if (params.outputFullSequence) {
    Tensor dOut = sliceStep(graph, outputGrad, index, body, name + "/stepOutputGrad");
    popops::mapInPlace(graph, pe::_1 + pe::_2, {dh, dOut}, body, {dc, "outputGradSum"});
  }
  Tensor f = inter[BASIC_LSTM_CELL_FORGET_GATE], i = inter[BASIC_LSTM_CELL_INPUT_GATE],
         g = inter[BASIC_LSTM_CELL_CANDIDATE], o = inter[BASIC_LSTM_CELL_OUTPUT_GATE],
         cellAct = inter[CELL_ACT];
  // dc += φ'(c) ∘ dh ∘ o; then the four activated-gate gradients.
  Tensor dCellAct = popops::map(graph, pe::_1 * pe::_2, {dh, o}, body, {dc, "cellActGrad"});
  Tensor dCell =
      nonLinearityInputGradient(graph, params.activation, cellAct, dCellAct, body, {dc, "cell"});
  popops::mapInPlace(graph, pe::_1 + pe::_2, {dc_, dCell}, body, {dc, "cellStateGradSum"});
  Tensor dF = popops::map(graph, pe::_1 * pe::_2, {dc_, cPrev}, body, {dc, "forgetGrad"});
  Tensor dI = popops::map(graph, pe::_1 * pe::_2, {dc_, g}, body, {dc, "inputGrad"});
  Tensor dG = popops::map(graph, pe::_1 * pe::_2, {dc_, i}, body, {dc, "candidateGrad"});
  Tensor dO = popops::map(graph, pe::_1 * pe::_2, {dh, cellAct}, body, {dc, "outputGateGrad"});
  Tensor step = newMapped(graph, type, {d.batch, kUnits, d.out}, name + "/stepGateGrads");
  auto unit = [&](unsigned u) { return step.slice(u, u + 1, 1).squeeze({1}); };
  body.add(Copy(
      nonLinearityInputGradient(graph, params.recurrentActivation, f, dF, body, {dc, "forget"}),
      unit(BASIC_LSTM_CELL_FORGET_GATE)));
  body.add(
      Copy(nonLinearityInputGradient(graph, params.recurrentActivation, i, dI, body, {dc, "input"}),
           unit(BASIC_LSTM_CELL_INPUT_GATE)));
  body.add(Copy(nonLinearityInputGradient(graph, params.activation, g, dG, body, {dc, "candidate"}),
                unit(BASIC_LSTM_CELL_CANDIDATE)));
  body.add(Copy(
      nonLinearityInputGradient(graph, params.recurrentActivation, o, dO, body, {dc, "output"}),
      unit(BASIC_LSTM_CELL_OUTPUT_GATE)));
  Tensor mask;
  if (limits.valid()) { // masked gates pass no gradient back
    mask = stepMask(graph, limits, index, d.batch, type, body, name).reshape({d.batch, 1});
    popops::mapInPlace(graph, pe::_1 * pe::_2, {step, mask.expand({1})}, body,
                       {dc, "maskGateGrads"});
  }
  Tensor stepFlat = step.reshape({d.batch, kUnits * d.out});
  // State gradients for the previous step.
  popops::mapInPlace(graph, pe::_1 * pe::_2, {dc_, f}, body, {dc, "prevCellStateGrad"});
  poplin::matMulWithOutput(graph, stepFlat, recurrentT, dh, body, {dc, "prevOutputGrad"}, mmOpts,
                           cache);
  if (limits.valid()) {
    // gradient = mask ? this step's : the held one
    const auto hold = pe::_3 * pe::_1 + (pe::Const(1.0f) - pe::_3) * pe::_2;
    popops::mapInPlace(graph, hold, {dh, dhHeld, mask}, body, {dc, "holdOutputGrad"});
    popops::mapInPlace(graph, hold, {dc_, dcHeld, mask}, body, {dc, "holdCellStateGrad"});
  }
  updateStep(graph, gateGrads, stepFlat, index, body, name + "/saveGateGrads");
  Sequence loop;
  addLimitedStep(graph, limits, index, body, loop, name);
  advanceStepIndex(graph, index, false, loop);
  addShardedLoop(fn, opts, d.steps, loop, prog, dc);

  if (inputGrad && params.calcInputGradients)
    *inputGrad = poplin::matMul(graph, gateGrads.reshape({d.steps * d.batch, kUnits * d.out}),
                                asMatrix(weights.inputWeights, params).transpose(), prog, type,
                                {dc, "inputGrad"}, mmOpts, cache)
                     .reshape({d.steps, d.batch, d.in});
  return {LstmState{dh, dc_}, gateGrads};
}

LstmWeights weightUpdate(poplar::Graph &graph, const LstmParams &params, Sequence &prog,
                         const LstmState &fwdStateInit, const Tensor &fwdInter,
                         const Tensor &gateGrads, const Tensor &input,
                         const poplar::DebugContext &dc, const RnnOptions &opts,
                         poplin::matmul::PlanningCache *cache) {
  const Dims d{params.rnn.timeSteps, params.rnn.batchSize, params.rnn.layerSizes[0],
               params.rnn.layerSizes[1]};
  const auto accType = weightAccumulatorType(opts, params.rnn.dataType);
  const auto mmOpts = matMulOptions(opts);
  const std::size_t rows = d.steps * d.batch;
  Tensor grads = gateGrads.reshape({rows, kUnits * d.out});
  Tensor prevH = previousOutputs(graph, fwdStateInit.output, fwdInter, OUTPUT, prog,
                                 dc.getPathName() + "/prevOutputs");
  LstmWeights result;
  Tensor dWi = poplin::matMul(graph, input.reshape({rows, d.in}).transpose(), grads, prog, accType,
                              {dc, "inputWeightsGrad"}, mmOpts, cache);
  Tensor dWo = poplin::matMul(graph, prevH.reshape({rows, d.out}).transpose(), grads, prog, accType,
                              {dc, "outputWeightsGrad"}, mmOpts, cache);
  Tensor db =
      popops::reduce(graph, grads, accType, {0}, popops::Operation::ADD, prog, {dc, "biasGrad"});
  result.inputWeights = fromMatrix(dWi, params, d.out);
  result.outputWeights = fromMatrix(dWo, params, d.out);
  result.biases = fromCanonical(db.reshape({kUnits, d.out}), orderOf(params));
  return result;
}

} // namespace

LstmState lstmBwd(poplar::Graph &graph, const LstmParams &params, Sequence &prog,
                  const LstmState &fwdStateInit, const Tensor &fwdIntermediates,
                  const LstmWeights &weights, const Tensor &input, const Tensor &,
                  const Tensor &outputGrad, const Tensor *lastCellStateGrad, Tensor *inputGrad,
                  Tensor *bwdIntermediates, const poplar::DebugContext &debugContext,
                  const poplar::OptionFlags &options, poplin::matmul::PlanningCache *cache) {
  const std::string fn = "lstm::lstmBwd";
  const Dims d = check(fn, params);
  const RnnOptions opts = parseRnnOptions(fn, options);
  checkWeights(fn, params, d, weights);
  checkState(fn, "fwdStateInit", params, d, fwdStateInit);
  requireTensor(fn, "input", input, {d.steps, d.batch, d.in}, params.rnn.dataType);
  auto [stateGrad, gateGrads] =
      backward(graph, params, prog, fwdStateInit, fwdIntermediates, weights, outputGrad,
               lastCellStateGrad, inputGrad, {debugContext, "lstmBwd"}, opts, cache);
  if (bwdIntermediates)
    *bwdIntermediates = gateGrads;
  return stateGrad;
}

LstmWeights lstmWU(poplar::Graph &graph, const LstmParams &params, Sequence &prog,
                   const LstmState &fwdStateInit, const Tensor &fwdIntermediates,
                   const Tensor &bwdIntermediates, const LstmWeights &weights, const Tensor &input,
                   const Tensor &, const poplar::DebugContext &debugContext,
                   const poplar::OptionFlags &options, poplin::matmul::PlanningCache *cache) {
  const std::string fn = "lstm::lstmWU";
  const Dims d = check(fn, params);
  const RnnOptions opts = parseRnnOptions(fn, options);
  checkWeights(fn, params, d, weights);
  checkState(fn, "fwdStateInit", params, d, fwdStateInit);
  requireTensor(fn, "input", input, {d.steps, d.batch, d.in}, params.rnn.dataType);
  requireTensor(fn, "fwdIntermediates", fwdIntermediates, {d.steps, NUM_INTER, d.batch, d.out},
                params.rnn.dataType);
  requireTensor(fn, "bwdIntermediates", bwdIntermediates, {d.steps, d.batch, kUnits * d.out},
                params.rnn.dataType);
  return weightUpdate(graph, params, prog, fwdStateInit, fwdIntermediates, bwdIntermediates, input,
                      {debugContext, "lstmWU"}, opts, cache);
}

LstmState lstmBwdWithWU(poplar::Graph &graph, const LstmParams &params, Sequence &prog,
                        const LstmState &fwdStateInit, const Tensor &fwdIntermediates,
                        const LstmWeights &weights, const Tensor &input, const Tensor &output,
                        const Tensor &outputGrad, const Tensor *lastCellStateGrad,
                        Tensor *inputGrad, LstmWeights &weightsGrad,
                        const poplar::DebugContext &debugContext,
                        const poplar::OptionFlags &options, poplin::matmul::PlanningCache *cache) {
  Tensor gateGrads;
  LstmState stateGrad =
      lstmBwd(graph, params, prog, fwdStateInit, fwdIntermediates, weights, input, output,
              outputGrad, lastCellStateGrad, inputGrad, &gateGrads, debugContext, options, cache);
  weightsGrad = lstmWU(graph, params, prog, fwdStateInit, fwdIntermediates, gateGrads, weights,
                       input, output, debugContext, options, cache);
  return stateGrad;
}

} // namespace popnn::lstm
