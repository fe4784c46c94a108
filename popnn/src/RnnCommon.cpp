#include "RnnCommon.hpp"

#include <popops/DynamicSlice.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>
#include <poputil/OptionParsing.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "NnChecks.hpp"

namespace popnn::rnn_detail {

using poplar::Tensor;

RnnOptions parseRnnOptions(const std::string &fn, const poplar::OptionFlags &options) {
  using H = poputil::OptionHandler;
  RnnOptions r;
  poputil::OptionSpec(
      fn,
      {{"availableMemoryProportion", H::createWithDouble(r.availableMemoryProportion, 0, 1)},
       {"inferenceOnly", H::createWithBool(r.inferenceOnly)},
       {"partialsType", H::createWithChoice(r.partialsType, {"half", "float"})},
       {"weightAccumulatorsType", H::createWithChoice(r.weightAccumulatorsType, {"half", "float"})},
       {"preCalcWeights", H::createWithBool(r.preCalcWeights)},
       {"recomputationMode",
        H::createWithChoice(r.recomputationMode, {"none", "cellAndTanh", "full"})},
       {"rnnCodeReuse", H::createWithBool(r.codeReuse)},
       {"numShards", H::createWithUnsigned(r.numShards, 1)}})
      .parse(options);
  return r;
}

poplar::OptionFlags matMulOptions(const RnnOptions &options) {
  return {{"partialsType", options.partialsType},
          {"availableMemoryProportion", std::to_string(options.availableMemoryProportion)}};
}

poplar::Type weightAccumulatorType(const RnnOptions &options, const poplar::Type &dataType) {
  if (options.weightAccumulatorsType.empty())
    return dataType;
  return options.weightAccumulatorsType == "half" ? poplar::HALF : poplar::FLOAT;
}

Tensor newMapped(poplar::Graph &graph, const poplar::Type &type,
                 const std::vector<std::size_t> &shape, const std::string &name) {
  Tensor t = graph.addVariable(type, shape, name);
  poputil::mapTensorLinearly(graph, t);
  return t;
}

Tensor copyToNew(poplar::Graph &graph, const Tensor &t, poplar::program::Sequence &prog,
                 const std::string &name) {
  Tensor n = newMapped(graph, t.elementType(), t.shape(), name);
  prog.add(poplar::program::Copy(t, n));
  return n;
}

Tensor newStepIndex(poplar::Graph &graph, unsigned start, poplar::program::Sequence &prog,
                    const std::string &name) {
  Tensor index = graph.addVariable(poplar::UNSIGNED_INT, {1}, name);
  graph.setTileMapping(index, 0);
  Tensor init = graph.addConstant(poplar::UNSIGNED_INT, {1}, start, name + "/start");
  graph.setTileMapping(init, 0);
  prog.add(poplar::program::Copy(init, index));
  return index;
}

void advanceStepIndex(poplar::Graph &graph, const Tensor &index, bool forward,
                      poplar::program::Sequence &body) {
  namespace pe = popops::expr;
  if (forward)
    popops::mapInPlace(graph, pe::_1 + pe::Const(1u), {index}, body, "stepIndex/next");
  else
    popops::mapInPlace(graph, pe::_1 - pe::Const(1u), {index}, body, "stepIndex/previous");
}

Tensor sliceStep(poplar::Graph &graph, const Tensor &seq, const Tensor &index,
                 poplar::program::Sequence &body, const std::string &name) {
  return popops::dynamicSlice(graph, seq, index, {0}, {1}, body, name).squeeze({0});
}

void updateStep(poplar::Graph &graph, const Tensor &seq, const Tensor &step, const Tensor &index,
                poplar::program::Sequence &body, const std::string &name) {
  popops::dynamicUpdate(graph, seq, step.expand({0}), index, {0}, {1}, body, name);
}

void checkCellOrder(const std::string &fn, const std::vector<unsigned> &order, unsigned numUnits) {
  std::vector<bool> seen(numUnits, false);
  bool ok = order.size() == numUnits;
  for (unsigned u : order) {
    if (u >= numUnits || seen[u])
      ok = false;
    else
      seen[u] = true;
  }
  if (!ok)
    throw poputil::poplibs_error(detail::cat(fn, ": params.cellOrder must name each of the ",
                                             numUnits, " cell units exactly once"));
}

Tensor toCanonical(const Tensor &t, const std::vector<unsigned> &order) {
  std::vector<Tensor> parts(order.size());
  for (std::size_t j = 0; j < order.size(); ++j)
    parts[order[j]] = t.slice(j, j + 1, 0);
  return poplar::concat(parts, 0);
}

Tensor fromCanonical(const Tensor &t, const std::vector<unsigned> &order) {
  std::vector<Tensor> parts;
  for (unsigned u : order)
    parts.push_back(t.slice(u, u + 1, 0));
  return poplar::concat(parts, 0);
}

Tensor unitsAsMatrix(const Tensor &w, const std::vector<unsigned> &order) {
  Tensor c = toCanonical(w, order);
  return c.dimShuffle({1, 0, 2}).reshape({c.dim(1), c.dim(0) * c.dim(2)});
}

Tensor matrixAsUnits(const Tensor &m, std::size_t units, std::size_t out,
                     const std::vector<unsigned> &order) {
  return fromCanonical(m.reshape({m.dim(0), units, out}).dimShuffle({1, 0, 2}), order);
}

Tensor previousOutputs(poplar::Graph &graph, const Tensor &init, const Tensor &fwdInter,
                       unsigned outputKind, poplar::program::Sequence &prog,
                       const std::string &name) {
  const std::size_t steps = fwdInter.dim(0);
  std::vector<Tensor> parts{init.expand({0})};
  if (steps > 1)
    parts.push_back(
        fwdInter.slice(0, steps - 1, 0).slice(outputKind, outputKind + 1, 1).squeeze({1}));
  return copyToNew(graph, poplar::concat(parts, 0), prog, name);
}

std::vector<std::size_t> layerOutputShape(bool fullSequence, std::size_t steps, std::size_t batch,
                                          std::size_t out) {
  if (fullSequence)
    return {steps, batch, out};
  return {batch, out};
}

void requireTensor(const std::string &fn, const std::string &name, const Tensor &t,
                   const std::vector<std::size_t> &shape, const poplar::Type &type) {
  if (!t.valid())
    throw poputil::poplibs_error(detail::cat(fn, ": argument '", name, "' is not a tensor"));
  detail::requireShape(fn, name, t, shape);
  if (t.elementType() != type)
    detail::fail(fn, name, t, detail::cat("must have element type ", type.toString()));
}

void requireLayer(const std::string &fn, const poplar::Type &type, std::size_t batch,
                  std::size_t steps, const std::vector<std::size_t> &layerSizes) {
  if (type != poplar::FLOAT && type != poplar::HALF)
    throw poputil::poplibs_error(
        detail::cat(fn, ": params.dataType must be FLOAT or HALF, not ", type.toString()));
  if (layerSizes.size() != 2)
    throw poputil::poplibs_error(
        detail::cat(fn, ": params.layerSizes must hold {inputSize, outputSize}, not ",
                    layerSizes.size(), " sizes"));
  if (batch == 0 || steps == 0 || layerSizes[0] == 0 || layerSizes[1] == 0)
    throw poputil::poplibs_error(detail::cat(
        fn, ": params.batchSize, timeSteps and layerSizes must be non-zero (batch ", batch,
        ", steps ", steps, ", sizes {", layerSizes[0], ", ", layerSizes[1], "})"));
}

void addShardedLoop(const std::string &fn, const RnnOptions &options, std::size_t steps,
                    const poplar::program::Sequence &loop, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext) {
  const unsigned shards = options.numShards;
  if (shards == 0 || shards > steps)
    throw poputil::poplibs_error(detail::cat(fn, ": option numShards must be in [1, ", steps,
                                             "] (at least one step per shard), not ", shards));
  for (unsigned k = 0; k < shards; ++k) {
    const auto first = static_cast<unsigned>(steps * k / shards);
    const auto last = static_cast<unsigned>(steps * (k + 1) / shards);
    prog.add(poplar::program::Repeat(last - first, loop, {debugContext, "loop"}));
  }
}

StepLimits prepareStepLimits(poplar::Graph &graph, const std::string &fn,
                             const Tensor &varTimeSteps, std::size_t batch,
                             poplar::program::Sequence &prog, const std::string &name) {
  if (!varTimeSteps.valid())
    return {};
  const auto type = varTimeSteps.elementType();
  if (type != poplar::INT && type != poplar::UNSIGNED_INT)
    detail::fail(fn, "params.rnn.varTimeSteps", varTimeSteps,
                 "must have element type INT or UNSIGNED_INT");
  if (varTimeSteps.rank() != 1 ||
      (varTimeSteps.numElements() != batch && varTimeSteps.numElements() != 1))
    detail::fail(fn, "params.rnn.varTimeSteps", varTimeSteps,
                 detail::cat("must have shape {", batch, "} (the batch size) or {1}"));
  namespace pe = popops::expr;
  StepLimits limits;
  limits.lengths =
      popops::map(graph, pe::Cast(pe::_1, poplar::INT), {varTimeSteps}, prog, name + "/stepLimits");
  limits.limit = popops::reduce(graph, limits.lengths, poplar::INT, {0}, popops::Operation::MAX,
                                prog, name + "/stepLimit")
                     .reshape({1});
  limits.shortest = popops::reduce(graph, limits.lengths, poplar::INT, {0}, popops::Operation::MIN,
                                   prog, name + "/shortestStepLimit")
                        .reshape({1});
  return limits;
}

ForwardRecords newForwardRecords(poplar::Graph &graph, const std::string &fn,
                                 const poplar::Type &type, std::size_t steps,
                                 std::size_t numIntermediates, std::size_t batch, std::size_t width,
                                 bool keepIntermediates, bool outputFullSequence,
                                 const Tensor &varTimeSteps, poplar::program::Sequence &prog,
                                 const poplar::DebugContext &dc, const std::string &name) {
  ForwardRecords r;
  if (keepIntermediates)
    r.intermediates =
        newMapped(graph, type, {steps, numIntermediates, batch, width}, name + "/inter");
  else if (outputFullSequence)
    r.outputs = newMapped(graph, type, {steps, batch, width}, name + "/outputs");
  r.limits = prepareStepLimits(graph, fn, varTimeSteps, batch, prog, name);
  if (r.limits.valid()) {
    if (r.intermediates.valid())
      popops::zero(graph, r.intermediates, prog, {dc, "zeroIntermediates"});
    if (r.outputs.valid())
      popops::zero(graph, r.outputs, prog, {dc, "zeroOutputs"});
  }
  return r;
}

Tensor stepMask(poplar::Graph &graph, const StepLimits &limits, const Tensor &index,
                std::size_t batch, const poplar::Type &type, poplar::program::Sequence &body,
                const std::string &name) {
  namespace pe = popops::expr;
  Tensor lengths = limits.lengths.numElements() == batch
                       ? limits.lengths
                       : limits.lengths.broadcast(static_cast<unsigned>(batch), 0);
  return popops::map(graph, pe::Cast(pe::Lt(pe::Cast(pe::_2, poplar::INT), pe::_1), type),
                     {lengths, index}, body, name + "/stepMask");
}

void addLimitedStep(poplar::Graph &graph, const StepLimits &limits, const Tensor &index,
                    const poplar::program::Sequence &step, poplar::program::Sequence &loop,
                    const std::string &name) {
  if (!limits.valid()) {
    loop.add(step);
    return;
  }
  namespace pe = popops::expr;
  Tensor run = popops::map(graph, pe::Lt(pe::Cast(pe::_1, poplar::INT), pe::_2),
                           {index, limits.limit}, loop, name + "/stepRuns");
  loop.add(poplar::program::If(run.reshape({}), step, poplar::program::Sequence{}));
}

} // namespace popnn::rnn_detail
