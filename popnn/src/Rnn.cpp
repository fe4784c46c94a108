// popnn::rnn: RnnParams and the sequence/state tensor factories shared by every recurrent layer.
#include <popnn/Rnn.hpp>

#include <algorithm>

#include <popops/DynamicSlice.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Zero.hpp>
#include <poputil/OptionParsing.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "NnChecks.hpp"
#include "RnnCommon.hpp"

namespace popnn::rnn {

using poplar::Tensor;

RnnParams::RnnParams(poplar::Type dataType, std::size_t batchSize, std::size_t timeSteps,
                     std::vector<std::size_t> layerSizes)
    : dataType(dataType), batchSize(batchSize), maxTimeSteps(timeSteps), timeSteps(timeSteps),
      layerSizes(std::move(layerSizes)) {}

RnnParams::RnnParams(poplar::Type dataType, std::size_t batchSize, std::size_t maxTimeSteps,
                     const Tensor &varTimeSteps, std::vector<std::size_t> layerSizes)
    : dataType(dataType), batchSize(batchSize), maxTimeSteps(maxTimeSteps), timeSteps(maxTimeSteps),
      varTimeSteps(varTimeSteps), layerSizes(std::move(layerSizes)) {}

std::size_t RnnParams::getMaxShards(const poplar::Graph &graph) const {
  const std::size_t tiles = graph.getTarget().getNumTiles();
  return std::max<std::size_t>(1, std::min(maxTimeSteps, tiles));
}

namespace {

std::size_t bytesPerTile(const poplar::Graph &graph, const poplar::Type &type, std::size_t n) {
  const std::size_t tiles = graph.getTarget().getNumTiles();
  const std::size_t bytes = n * graph.getTarget().getTypeSize(type);
  return (bytes + tiles - 1) / tiles;
}

std::size_t layerSize(const RnnParams &params, bool output, const char *fn) {
  if (params.layerSizes.size() != 2)
    throw poputil::poplibs_error(
        popnn::detail::cat(fn, ": params.layerSizes must hold {inputSize, outputSize}, not ",
                           params.layerSizes.size(), " sizes"));
  return params.layerSizes[output ? 1 : 0];
}

/// Shards split the time steps into consecutive chunks run one after the other; every tensor
/// keeps the unsharded layout, so any count from 1 to maxTimeSteps gives the same results.
void requireShards(const RnnParams &params, unsigned numShards, const char *fn) {
  if (numShards == 0 || numShards > std::max<std::size_t>(1, params.maxTimeSteps))
    throw poputil::poplibs_error(
        popnn::detail::cat(fn, ": numShards must be in [1, ", params.maxTimeSteps,
                           "] (at least one step per shard), not ", numShards));
}

} // namespace

std::size_t RnnParams::getInputBytesPerTile(const poplar::Graph &graph) const {
  return bytesPerTile(graph, dataType, batchSize * layerSize(*this, false, "getInputBytesPerTile"));
}

std::size_t RnnParams::getOutputBytesPerTile(const poplar::Graph &graph) const {
  return bytesPerTile(graph, dataType, batchSize * layerSize(*this, true, "getOutputBytesPerTile"));
}

bool RnnParams::variableTimeSteps() const { return varTimeSteps.valid(); }
bool RnnParams::batchVariableTimeSteps() const {
  return varTimeSteps.valid() && varTimeSteps.numElements() > 1;
}

Tensor createInitialState(poplar::Graph &graph, const RnnParams &params, bool isOutput,
                          unsigned multiple, unsigned numShards,
                          const poplar::DebugContext &debugContext) {
  requireShards(params, numShards, "createInitialState");
  const std::size_t size = layerSize(params, isOutput, "createInitialState");
  Tensor t = graph.addVariable(params.dataType, {multiple, params.batchSize, size},
                               {debugContext, "initialState"});
  for (unsigned m = 0; m < multiple; ++m)
    poputil::mapTensorLinearly(graph, t[m]);
  return t;
}

Tensor createRecurrentTensor(poplar::Graph &graph, const RnnParams &params, unsigned size,
                             unsigned numShards, const poplar::DebugContext &debugContext) {
  requireShards(params, numShards, "createRecurrentTensor");
  Tensor t = graph.addVariable(params.dataType, {params.timeSteps, params.batchSize, size},
                               {debugContext, "recurrent"});
  // Each step spread over every tile, so a dynamic slice of one step is balanced.
  for (std::size_t s = 0; s < params.timeSteps; ++s)
    poputil::mapTensorLinearly(graph, t[s]);
  return t;
}

Tensor createInputTensor(poplar::Graph &graph, const RnnParams &params, unsigned numShards,
                         const poplar::DebugContext &debugContext) {
  return createRecurrentTensor(graph, params,
                               static_cast<unsigned>(layerSize(params, false, "createInputTensor")),
                               numShards, debugContext);
}

Tensor createOutputTensor(poplar::Graph &graph, const RnnParams &params, unsigned numShards,
                          const poplar::DebugContext &debugContext) {
  return createOutputTensor(graph, params, 1, numShards, debugContext);
}

Tensor createOutputTensor(poplar::Graph &graph, const RnnParams &params, unsigned multiple,
                          unsigned numShards, const poplar::DebugContext &debugContext) {
  requireShards(params, numShards, "createOutputTensor");
  const std::size_t size = layerSize(params, true, "createOutputTensor");
  Tensor t =
      graph.addVariable(params.dataType, {multiple * params.timeSteps, params.batchSize, size},
                        {debugContext, "output"});
  for (std::size_t s = 0; s < t.dim(0); ++s)
    poputil::mapTensorLinearly(graph, t[s]);
  return t;
}

Tensor shiftRnnTensor(poplar::Graph &graph, const RnnParams &params, const Tensor &tBase,
                      const Tensor &tSingle, poplar::program::Sequence &prog, unsigned numShards,
                      const poplar::DebugContext &debugContext) {
  requireShards(params, numShards, "shiftRnnTensor");
  const std::size_t steps = params.timeSteps;
  if (tBase.rank() < 1 || tBase.dim(0) == 0 || tBase.dim(0) % steps != 0)
    popnn::detail::fail("shiftRnnTensor", "tBase", tBase,
                        popnn::detail::cat("must have a multiple of ", steps,
                                           " rows outermost (timeSteps tensors per step)"));
  const std::size_t multiple = tBase.dim(0) / steps;
  const Tensor head = tBase.slice(0, multiple, 0);
  if (tSingle.numElements() != head.numElements() ||
      (tSingle.shape() != head.shape() && tSingle.shape() != tBase[0].shape()))
    popnn::detail::fail("shiftRnnTensor", "tSingle", tSingle,
                        "must have the shape of one step of tBase");
  Tensor shifted = graph.clone(tBase, {debugContext, "shifted"});
  prog.add(poplar::program::Copy(tSingle.reshape(head.shape()), shifted.slice(0, multiple, 0)));
  if (steps > 1)
    prog.add(poplar::program::Copy(tBase.slice(0, tBase.dim(0) - multiple, 0),
                                   shifted.slice(multiple, tBase.dim(0), 0)));
  return shifted;
}

namespace {

/// t as [timeSteps][…]: unchanged if its outermost dimension is timeSteps, else
/// [timeSteps * k][…] split to [timeSteps][k][…].
Tensor perStep(const Tensor &t, std::size_t steps, const std::string &name) {
  if (t.rank() < 1 || t.dim(0) == 0 || t.dim(0) % steps != 0)
    popnn::detail::fail("Rnn", name, t,
                        popnn::detail::cat("must have a multiple of ", steps,
                                           " rows outermost (one or more per time step)"));
  if (t.dim(0) == steps)
    return t;
  return t.reshapePartial(0, 1, {steps, t.dim(0) / steps});
}

} // namespace

std::vector<Tensor> Rnn(poplar::Graph &graph, const RnnParams &params, bool reverse,
                        const std::vector<Tensor> &initState, const StateSequence &stateSequence,
                        const std::vector<Tensor> &inputs, const Tensor *interimIn,
                        Tensor *interimOut, const std::vector<Tensor> &outputs,
                        const std::vector<Tensor> &created, poplar::program::Sequence &prog,
                        const LoopBodyType &loopFn, unsigned numShards,
                        poplar::OptionFlags &options, const poplar::DebugContext &debugContext) {
  using namespace popnn::rnn_detail;
  namespace pe = popops::expr;
  bool codeReuse = false;
  poputil::OptionSpec("Rnn", {{"codeReuse", poputil::OptionHandler::createWithBool(codeReuse)}})
      .parse(options);
  const std::size_t steps = params.timeSteps;
  if (steps == 0)
    throw poputil::poplibs_error("Rnn: params.timeSteps must be non-zero");
  requireShards(params, numShards, "Rnn");
  const poplar::DebugContext dc(debugContext, "Rnn");
  const std::string name = dc.getPathName();
  const StepLimits limits =
      prepareStepLimits(graph, "Rnn", params.varTimeSteps, params.batchSize, prog, name);

  std::vector<Tensor> state;
  for (std::size_t i = 0; i < initState.size(); ++i)
    state.push_back(initState[i].valid()
                        ? copyToNew(graph, initState[i], prog, name + "/state" + std::to_string(i))
                        : Tensor());
  // `step` is the absolute step index the slices use; the body sees the shard's first step
  // (time.begin) and the index within the shard (time.counter; absolute with one shard).
  Tensor step =
      newStepIndex(graph, reverse ? static_cast<unsigned>(steps - 1) : 0u, prog, name + "/step");
  TimeStepState time;
  time.begin = graph.addVariable(poplar::UNSIGNED_INT, {1}, name + "/begin");
  graph.setTileMapping(time.begin, 0);

  poplar::program::Sequence body;
  if (numShards == 1) {
    time.counter = step;
  } else {
    time.counter = popops::map(graph, pe::_1 - pe::_2, {step, time.begin}, body, name + "/counter");
  }
  RnnBatchwiseFlags flags;
  if (limits.valid()) {
    time.variableSeqFlag = popops::map(graph, pe::Gte(pe::Cast(pe::_1, poplar::INT), pe::_2),
                                       {step, limits.shortest}, body, name + "/variableSeqFlag")
                               .reshape({});
    if (params.batchVariableTimeSteps()) {
      flags.mask = stepMask(graph, limits, step, params.batchSize, params.dataType, body, name);
      flags.inverse =
          popops::map(graph, pe::Const(1.0f) - pe::_1, {flags.mask}, body, name + "/inverseMask");
    }
  }
  RnnSlice slice;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    slice.inputs.push_back(inputs[i].valid() ? sliceStep(graph, perStep(inputs[i], steps, "inputs"),
                                                         step, body, name + "/input")
                                             : Tensor());
  if (interimIn)
    slice.interimIn =
        sliceStep(graph, perStep(*interimIn, steps, "interimIn"), step, body, name + "/interimIn");
  if (interimOut)
    slice.interimOut =
        newMapped(graph, interimOut->elementType(),
                  perStep(*interimOut, steps, "interimOut")[0].shape(), name + "/interimOut");
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor seq = perStep(outputs[i], steps, "outputs");
    slice.outputs.push_back(
        newMapped(graph, seq.elementType(), seq[0].shape(), name + "/output" + std::to_string(i)));
  }
  std::vector<Tensor> createdSlices(created.size());
  body.add(loopFn(graph, time, flags, state, slice, createdSlices, &prog, {dc, "cell"}));

  if (interimOut)
    updateStep(graph, perStep(*interimOut, steps, "interimOut"), slice.interimOut, step, body,
               name + "/saveInterimOut");
  for (std::size_t i = 0; i < outputs.size(); ++i)
    updateStep(graph, perStep(outputs[i], steps, "outputs"), slice.outputs[i], step, body,
               name + "/saveOutput");
  for (std::size_t i = 0; i < created.size(); ++i) {
    if (!createdSlices[i].valid())
      throw poputil::poplibs_error(
          popnn::detail::cat("Rnn: the loop body did not create tensor ", i, " of 'created'"));
    const Tensor seq = perStep(created[i], steps, "created");
    updateStep(graph, seq, createdSlices[i].reshape(seq[0].shape()), step, body,
               name + "/saveCreated");
  }
  if (stateSequence.output.valid()) {
    if (stateSequence.stateIndex >= state.size())
      throw poputil::poplibs_error(popnn::detail::cat("Rnn: stateSequence.stateIndex ",
                                                      stateSequence.stateIndex, " names no state (",
                                                      state.size(), " states)"));
    const Tensor seq = perStep(stateSequence.output, steps, "stateSequence.output");
    updateStep(graph, seq, state[stateSequence.stateIndex].reshape(seq[0].shape()), step, body,
               name + "/saveState");
  }
  poplar::program::Sequence loop;
  addLimitedStep(graph, limits, step, body, loop, name);
  advanceStepIndex(graph, step, !reverse, loop);
  // Shards: consecutive chunks of steps (the last ones first if reverse), each one Repeat of the
  // same loop, so the step sequence is the unsharded one.
  for (unsigned k = 0; k < numShards; ++k) {
    const unsigned shard = reverse ? numShards - 1 - k : k;
    const auto first = static_cast<unsigned>(steps * shard / numShards);
    const auto last = static_cast<unsigned>(steps * (shard + 1) / numShards);
    Tensor begin = graph.addConstant(poplar::UNSIGNED_INT, {1}, first,
                                     name + "/shardBegin" + std::to_string(shard));
    graph.setTileMapping(begin, 0);
    prog.add(poplar::program::Copy(begin, time.begin));
    prog.add(poplar::program::Repeat(last - first, loop, {dc, "loop"}));
  }
  return state;
}

std::vector<Tensor> Rnn(poplar::Graph &graph, const RnnParams &params,
                        const std::vector<Tensor> &initState, const StateSequence &stateSequence,
                        const std::vector<Tensor> &inputs, const Tensor &interimIn,
                        const unsigned numTemps, poplar::program::Sequence &prog,
                        const LoopBodyType &loopFn, const std::vector<Tensor> &gatherInputs,
                        const GatherBodyType &gatherFn, unsigned numShards, unsigned stepsPerGather,
                        poplar::OptionFlags &options, const poplar::DebugContext &debugContext) {
  using namespace popnn::rnn_detail;
  namespace pe = popops::expr;
  const char *fn = "Rnn (gather form)";
  const std::size_t steps = params.timeSteps;
  if (steps == 0)
    throw poputil::poplibs_error(popnn::detail::cat(fn, ": params.timeSteps must be non-zero"));
  if (stepsPerGather == 0)
    throw poputil::poplibs_error(popnn::detail::cat(fn, ": stepsPerGather must be at least 1"));
  if (numTemps == 0)
    throw poputil::poplibs_error(popnn::detail::cat(fn, ": numTemps must be at least 1"));
  if (!gatherFn)
    throw poputil::poplibs_error(popnn::detail::cat(fn, ": gatherFn is empty"));
  requireShards(params, numShards, fn);
  const std::size_t out = layerSize(params, true, fn);
  const unsigned group = static_cast<unsigned>(std::min<std::size_t>(stepsPerGather, steps));
  const unsigned remainder = static_cast<unsigned>(steps % group);
  const poplar::DebugContext dc(debugContext, "RnnGather");
  const std::string name = dc.getPathName();

  // The step loop is the other form's, with a per-step temporary as interimOut. Step t's
  // temporaries go to slot (t + g − r) mod g of the group buffer (r = T mod g), so the groups
  // are the same whichever steps run; a full group is gathered when its first step t ≥ r (slot
  // 0) has run. With run-time lengths the steps past the longest sequence do not run and leave
  // their slots zero.
  Tensor temps =
      newMapped(graph, params.dataType, {steps * numTemps, params.batchSize, out}, name + "/temps");
  Tensor buffer =
      newMapped(graph, params.dataType, {group, numTemps, params.batchSize, out}, name + "/group");
  if (params.varTimeSteps.valid())
    popops::zero(graph, buffer, prog, {dc, "zeroGroup"});

  const LoopBodyType body = [&](poplar::Graph &g, const TimeStepState &time,
                                const RnnBatchwiseFlags &flags, std::vector<Tensor> &state,
                                const RnnSlice &slice, std::vector<Tensor> &created,
                                poplar::program::Sequence *initProg,
                                const poplar::DebugNameAndId &dnai) {
    poplar::program::Sequence seq;
    seq.add(loopFn(g, time, flags, state, slice, created, initProg, dnai));
    // The absolute step (begin + counter) and its slot in the group buffer.
    Tensor step =
        popops::map(g, pe::_1 + pe::_2, {time.begin, time.counter}, seq, name + "/absStep");
    Tensor slot = popops::map(g, pe::Rem(pe::_1 + pe::Const(group - remainder), pe::Const(group)),
                              {step}, seq, name + "/groupSlot");
    popops::dynamicUpdate(g, buffer, slice.interimOut.expand({0}), slot, {0}, {1}, seq,
                          name + "/storeTemps");
    // The gather of the full group starting at `step`.
    poplar::program::Sequence gather;
    RnnSlice groupSlice;
    for (const Tensor &t : gatherInputs) {
      if (!t.valid()) {
        groupSlice.inputs.push_back(t);
        continue;
      }
      const Tensor part =
          group == steps
              ? popnn::rnn_detail::copyToNew(g, t, gather, name + "/gatherInput")
              : popops::dynamicSlice(g, t, step, {0}, {group}, gather, name + "/gatherInput");
      groupSlice.inputs.push_back(part.flatten(0, 2));
    }
    groupSlice.interimIn = buffer.flatten(0, 2);
    gather.add(gatherFn(g, groupSlice, group, initProg, {dnai, "gather"}));
    Tensor atStart = popops::map(
        g, pe::And(pe::Equal(pe::_1, pe::Const(0u)), pe::Gte(pe::_2, pe::Const(remainder))),
        {slot, step}, seq, name + "/groupComplete");
    seq.add(poplar::program::If(atStart.reshape({}), gather, poplar::program::Sequence{}));
    return seq;
  };
  Tensor interimInCopy = interimIn;
  Tensor tempsOut = temps;
  auto state = Rnn(graph, params, true, initState, stateSequence, inputs,
                   interimIn.valid() ? &interimInCopy : nullptr, &tempsOut, {}, {}, prog, body,
                   numShards, options, debugContext);
  if (remainder != 0) { // the first steps, fewer than a group, written at the group's end
    RnnSlice last;
    for (const Tensor &t : gatherInputs)
      last.inputs.push_back(t.valid() ? t.slice(0, remainder, 0).flatten(0, 2) : t);
    last.interimIn = buffer.slice(group - remainder, group, 0).flatten(0, 2);
    prog.add(gatherFn(graph, last, remainder, nullptr, {dc, "lastGather"}));
  }
  return state;
}

} // namespace popnn::rnn
