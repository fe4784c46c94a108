// poplin's convolution API: argument checking, planning, then ConvBuild.
#include <poplin/ConvUtil.hpp>
#include <poplin/Convolution.hpp>

#include <algorithm>
#include <numeric>
#include <ostream>
#include <sstream>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/ScaledAdd.hpp>
#include <poputil/Describe.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "ConvBuild.hpp"
#include "ConvIndexing.hpp"
#include "ConvOptions.hpp"
#include "ConvPlanner.hpp"
#include "KernelTrim.hpp"

namespace poplin {
namespace {

using detail::ConvOperand;
using detail::ConvPass;

using poputil::shapeString;

std::vector<std::size_t> activationShape(const ConvParams &p, std::size_t chans,
                                         const std::vector<std::size_t> &field) {
  std::vector<std::size_t> shape = {p.batchSize, chans};
  shape.insert(shape.end(), field.begin(), field.end());
  return shape;
}

std::vector<std::size_t> weightShape(const ConvParams &p, bool transposed) {
  std::vector<std::size_t> shape = {
      p.numConvGroups, transposed ? p.inputChannelsPerConvGroup : p.outputChannelsPerConvGroup,
      transposed ? p.outputChannelsPerConvGroup : p.inputChannelsPerConvGroup};
  shape.insert(shape.end(), p.kernelShape.begin(), p.kernelShape.end());
  return shape;
}

/// Throws naming `what` unless `t` has `shape` and element type `type`.
void checkOperand(const poplar::Tensor &t, const std::vector<std::size_t> &shape,
                  const poplar::Type &type, const std::string &what, const ConvParams &p) {
  if (t.rank() != shape.size())
    throw poputil::poplibs_error(what + " has rank " + std::to_string(t.rank()) + " (shape " +
                                 shapeString(t.shape()) + ") but the convolution needs rank " +
                                 std::to_string(shape.size()) + ": " + shapeString(shape));
  if (t.shape() != shape) {
    std::string detail;
    if (shape.size() > 1 && t.dim(1) != shape[1])
      detail = " (dimension 1 is " + std::to_string(t.dim(1)) + ", expected " +
               std::to_string(shape[1]) + " = " + std::to_string(p.numConvGroups) +
               " groups x channels per group)";
    throw poputil::poplibs_error(what + " has shape " + shapeString(t.shape()) +
                                 " but the convolution needs " + shapeString(shape) + detail);
  }
  if (t.elementType() != type)
    throw poputil::poplibs_error(what + " has element type " + t.elementType().toString() +
                                 " but the convolution parameters say " + type.toString());
}

void checkParams(const ConvParams &p) { p.validate(); }

detail::ConvPlan planFor(const poplar::Graph &graph, const ConvParams &params, ConvPass pass,
                         const poplar::OptionFlags &options, PlanningCache *cache) {
  const detail::ConvOptions opts = detail::parseConvOptions(options);
  checkParams(params);
  if (params.getNumFieldDims() > 3)
    throw poputil::poplibs_error("convolution: " + std::to_string(params.getNumFieldDims()) +
                                 " spatial dimensions given; Tessera supports 1 to 3");
  return detail::planConvolution(graph.getTarget(), params, pass, opts, cache);
}

/// Product over spatial dimensions of the (output, kernel element) pairs that read real input.
std::uint64_t usefulMacsPerChannelPair(const ConvParams &p) {
  std::uint64_t total = 1;
  for (unsigned d = 0; d < p.getNumFieldDims(); ++d) {
    std::uint64_t pairs = 0;
    for (std::size_t o = 0; o < p.getOutputSize(d); ++o)
      for (std::size_t k = 0; k < p.kernelShape[d]; ++k)
        pairs += detail::inputIndex(p, d, o, k) >= 0;
    total *= pairs;
  }
  return total;
}

std::string nameOf(const poplar::DebugContext &debugContext, const char *fallback) {
  const std::string name = debugContext.getPathName();
  return name.empty() ? fallback : name;
}

} // namespace

poplar::Tensor createInput(poplar::Graph &graph, const ConvParams &params,
                           const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options, PlanningCache *cache) {
  const auto plan = planFor(graph, params, ConvPass::FORWARD, options, cache);
  return detail::createConvTensor(graph, plan, params, ConvOperand::Input, params.inputType,
                                  nameOf(debugContext, "input"));
}

poplar::Tensor createWeights(poplar::Graph &graph, const ConvParams &params,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  const auto plan = planFor(graph, params, ConvPass::FORWARD, options, cache);
  return detail::createConvTensor(graph, plan, params, ConvOperand::Weights, params.inputType,
                                  nameOf(debugContext, "weights"));
}

poplar::Tensor createConvOutput(poplar::Graph &graph, const ConvParams &params,
                                const poplar::DebugContext &debugContext,
                                const poplar::OptionFlags &options, PlanningCache *cache) {
  const auto plan = planFor(graph, params, ConvPass::FORWARD, options, cache);
  return detail::createConvTensor(graph, plan, params, ConvOperand::Output, params.outputType,
                                  nameOf(debugContext, "output"));
}

poplar::Tensor createBiases(poplar::Graph &graph, const poplar::Tensor &activations,
                            const poplar::DebugContext &debugContext) {
  if (activations.rank() < 2)
    throw poputil::poplibs_error("createBiases: activations have rank " +
                                 std::to_string(activations.rank()) +
                                 "; expected [B][channels][fields...]");
  poplar::Tensor biases = graph.addVariable(activations.elementType(), {activations.dim(1)},
                                            nameOf(debugContext, "biases"));
  poputil::mapTensorLinearly(graph, biases);
  return biases;
}

poplar::Tensor convolution(poplar::Graph &graph, const poplar::Tensor &in,
                           const poplar::Tensor &weights, const ConvParams &params,
                           bool transposeAndFlipWeights, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options, PlanningCache *cache) {
  checkParams(params);
  checkOperand(in, activationShape(params, params.getNumInputChans(), params.inputFieldShape),
               params.inputType, "convolution input 'in'", params);
  checkOperand(weights, weightShape(params, transposeAndFlipWeights), params.inputType,
               "convolution weights", params);
  poplar::Tensor w = weights;
  if (transposeAndFlipWeights) {
    std::vector<unsigned> perm = {0, 2, 1};
    for (unsigned d = 3; d < w.rank(); ++d)
      perm.push_back(d);
    w = w.dimShuffle(perm);
    for (unsigned d = 3; d < w.rank(); ++d)
      w = w.reverse(d);
  }
  const std::string name = nameOf(debugContext, "conv");
  if (const auto trim = detail::trimUnusedKernelTaps(params)) {
    // The same outputs from the taps that meet real input. A transposed, flipped view is copied
    // into the smaller convolution's weight layout once (as the block path below does).
    poplar::Tensor kept = detail::keptTaps(w, *trim);
    if (transposeAndFlipWeights) {
      poplar::Tensor arranged =
          createWeights(graph, trim->params, name + "/keptTaps", options, cache);
      prog.add(poplar::program::Copy(kept, arranged, false, name + "/transposeFlipWeights"));
      kept = arranged;
    }
    return convolution(graph, in, kept, trim->params, false, prog, name, options, cache);
  }
  const auto plan = planFor(graph, params, ConvPass::FORWARD, options, cache);
  if (plan.method != detail::ConvMethod::BLOCKS) {
    // The products read the stored weights: transposed ones by whole rows (pointwise: a flip of
    // one element changes nothing), and the Winograd and lowered builders apply the transpose
    // and flip themselves.
    poplar::Tensor out = detail::createConvTensor(graph, plan, params, ConvOperand::Output,
                                                  params.outputType, name + "/output");
    detail::buildProductConvolution(graph, plan, params, in, weights, transposeAndFlipWeights, out,
                                    prog, name);
    return out;
  }
  if (transposeAndFlipWeights) {
    // One copy into the plan's layout beats every unit gathering a reversed, transposed view
    // element by element.
    poplar::Tensor arranged = detail::createConvTensor(graph, plan, params, ConvOperand::Weights,
                                                       params.inputType, name + "/weights");
    prog.add(poplar::program::Copy(w, arranged, false, name + "/transposeFlipWeights"));
    w = arranged;
  }
  poplar::Tensor out = detail::createConvTensor(graph, plan, params, ConvOperand::Output,
                                                params.outputType, name + "/output");
  detail::buildConvolution(graph, plan, params, in, w, out, prog, name);
  return out;
}

void weightsTransposeChansFlipXY(poplar::Graph &graph, const poplar::Tensor &weightsIn,
                                 const poplar::Tensor &weightsOut, poplar::program::Sequence &prog,
                                 const poplar::DebugContext &debugContext) {
  (void)graph;
  if (weightsIn.rank() < 4)
    throw poputil::poplibs_error("weightsTransposeChansFlipXY: weightsIn has rank " +
                                 std::to_string(weightsIn.rank()) +
                                 "; expected [G][OC][IC][kernel...] with 1 or more kernel dims");
  std::vector<unsigned> perm = {0, 2, 1};
  for (unsigned d = 3; d < weightsIn.rank(); ++d)
    perm.push_back(d);
  poplar::Tensor view = weightsIn.dimShuffle(perm);
  for (unsigned d = 3; d < view.rank(); ++d)
    view = view.reverse(d);
  if (view.shape() != weightsOut.shape())
    throw poputil::poplibs_error(
        "weightsTransposeChansFlipXY: weightsOut has shape " + shapeString(weightsOut.shape()) +
        " but weightsIn " + shapeString(weightsIn.shape()) + " needs " + shapeString(view.shape()));
  if (view.elementType() != weightsOut.elementType())
    throw poputil::poplibs_error("weightsTransposeChansFlipXY: weightsOut has element type " +
                                 weightsOut.elementType().toString() + " but weightsIn has " +
                                 weightsIn.elementType().toString());
  prog.add(poplar::program::Copy(view, weightsOut, false,
                                 nameOf(debugContext, "weightsTransposeChansFlipXY")));
}

namespace {

void checkWeightGradOperands(const ConvParams &params, const poplar::Tensor &zDeltas,
                             const poplar::Tensor &activations) {
  checkOperand(zDeltas,
               activationShape(params, params.getNumOutputChans(), params.getOutputFieldShape()),
               params.inputType, "weight-gradient zDeltas", params);
  checkOperand(activations,
               activationShape(params, params.getNumInputChans(), params.inputFieldShape),
               params.inputType, "weight-gradient activations", params);
}

} // namespace

poplar::Tensor calculateWeightDeltas(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                                     const poplar::Tensor &activations, const ConvParams &params,
                                     poplar::program::Sequence &prog,
                                     const poplar::DebugContext &debugContext,
                                     const poplar::OptionFlags &options, PlanningCache *cache) {
  checkParams(params);
  checkWeightGradOperands(params, zDeltas, activations);
  const std::string name = nameOf(debugContext, "weightDeltas");
  if (const auto trim = detail::trimUnusedKernelTaps(params)) {
    const poplar::Tensor kept = calculateWeightDeltas(graph, zDeltas, activations, trim->params,
                                                      prog, name, options, cache);
    return detail::withDroppedTapsZero(graph, kept, *trim, prog, name);
  }
  const auto plan = planFor(graph, params, ConvPass::WEIGHT_GRADIENT, options, cache);
  poplar::Tensor dW = detail::createConvTensor(graph, plan, params, ConvOperand::Weights,
                                               params.outputType, name + "/deltas");
  detail::buildWeightGradient(graph, plan, params, zDeltas, activations, dW, std::nullopt, prog,
                              name);
  return dW;
}

void convolutionWeightUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                             const poplar::Tensor &weights, const poplar::Tensor &activations,
                             ConvParams params, const poplar::Tensor &scale,
                             poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  checkParams(params);
  checkOperand(weights, weightShape(params, false), weights.elementType(),
               "convolutionWeightUpdate weights", params);
  if (scale.numElements() != 1)
    throw poputil::poplibs_error("convolutionWeightUpdate: scale has " +
                                 std::to_string(scale.numElements()) +
                                 " elements; expected a scalar");
  // The deltas stay fp32 until the one scaled add into the weights.
  params.outputType = poplar::FLOAT;
  const std::string name = nameOf(debugContext, "weightUpdate");
  poplar::Tensor updated = weights;
  if (const auto trim = detail::trimUnusedKernelTaps(params)) {
    // A dropped tap's gradient is zero: its weights stay as they are.
    updated = detail::keptTaps(weights, *trim);
    params = trim->params;
  }
  poplar::Tensor dW =
      calculateWeightDeltas(graph, zDeltas, activations, params, prog, name, options, cache);
  popops::scaledAddTo(graph, updated, dW, scale.reshape({}), prog, name + "/update");
}

void convolutionWeightUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                             const poplar::Tensor &weights, const poplar::Tensor &activations,
                             ConvParams params, float scale, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  checkParams(params);
  checkWeightGradOperands(params, zDeltas, activations);
  checkOperand(weights, weightShape(params, false), weights.elementType(),
               "convolutionWeightUpdate weights", params);
  if (const auto trim = detail::trimUnusedKernelTaps(params)) {
    // A dropped tap's gradient is zero: its weights stay as they are.
    convolutionWeightUpdate(graph, zDeltas, detail::keptTaps(weights, *trim), activations,
                            trim->params, scale, prog, debugContext, options, cache);
    return;
  }
  const auto plan = planFor(graph, params, ConvPass::WEIGHT_GRADIENT, options, cache);
  detail::buildWeightGradient(graph, plan, params, zDeltas, activations, weights, scale, prog,
                              nameOf(debugContext, "weightUpdate"));
}

namespace {

std::vector<std::size_t> nonChannelDims(const poplar::Tensor &t) {
  std::vector<std::size_t> dims = {0};
  for (std::size_t d = 2; d < t.rank(); ++d)
    dims.push_back(d);
  return dims;
}

void checkBiases(const poplar::Tensor &acts, const poplar::Tensor &biases, const char *fn,
                 const char *actsName) {
  if (acts.rank() < 2)
    throw poputil::poplibs_error(std::string(fn) + ": " + actsName + " has rank " +
                                 std::to_string(acts.rank()) +
                                 "; expected [B][channels][fields...]");
  if (biases.rank() != 1 || biases.dim(0) != acts.dim(1))
    throw poputil::poplibs_error(std::string(fn) + ": biases have shape " +
                                 shapeString(biases.shape()) + " but " + actsName + " " +
                                 shapeString(acts.shape()) + " has " + std::to_string(acts.dim(1)) +
                                 " channels");
}

} // namespace

void convolutionBiasUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                           const poplar::Tensor &biases, const poplar::Tensor &scale,
                           const poplar::OptionFlags &options, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext) {
  detail::parseConvOptions(options);
  checkBiases(zDeltas, biases, "convolutionBiasUpdate", "zDeltas");
  popops::reduceWithOutput(graph, zDeltas, biases, nonChannelDims(zDeltas),
                           popops::ReduceParams(popops::Operation::ADD, true, scale), prog,
                           nameOf(debugContext, "biasUpdate"));
}

void convolutionBiasUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                           const poplar::Tensor &biases, float scale,
                           const poplar::OptionFlags &options, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext) {
  poplar::Tensor s = graph.addConstant(poplar::FLOAT, {}, scale, "biasUpdate/scale");
  graph.setTileMapping(s, 0);
  convolutionBiasUpdate(graph, zDeltas, biases, s, options, prog, debugContext);
}

void addBias(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &biases,
             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkBiases(in, biases, "addBias", "in");
  std::vector<std::size_t> shape(in.rank() - 1, 1);
  shape[0] = biases.dim(0);
  popops::addInPlace(graph, in, biases.reshape(shape), prog, nameOf(debugContext, "addBias"));
}

std::uint64_t getFwdFlops(const ConvParams &params) {
  params.validate();
  return 2 * usefulMacsPerChannelPair(params) * params.batchSize * params.numConvGroups *
         params.inputChannelsPerConvGroup * params.outputChannelsPerConvGroup;
}

std::uint64_t getBwdFlops(const ConvParams &params) {
  return getFwdFlops(getGradientParams(params));
}

std::uint64_t getWuFlops(const ConvParams &params) { return getFwdFlops(params); }

void reportPlanInfo(std::ostream &out, const poplar::Graph &graph, const ConvParams &params,
                    const poplar::OptionFlags &options, PlanningCache *cache) {
  const auto plan = planFor(graph, params, ConvPass::FORWARD, options, cache);
  out << params << plan;
}

void reportWeightUpdatePlanInfo(std::ostream &out, const poplar::Graph &graph,
                                const ConvParams &params, const poplar::OptionFlags &options,
                                PlanningCache *cache) {
  const auto plan = planFor(graph, params, ConvPass::WEIGHT_GRADIENT, options, cache);
  out << params << plan;
}

poplar::Tensor createBiases(poplar::Graph &graph, const poplar::Tensor &activations,
                            const ConvParams &params, const poplar::DebugContext &debugContext,
                            const poplar::OptionFlags &options, PlanningCache *) {
  detail::parseConvOptions(options);
  if (activations.rank() >= 2 && activations.dim(1) != params.getNumOutputChans())
    throw poputil::poplibs_error("createBiases: activations have " +
                                 std::to_string(activations.dim(1)) +
                                 " channels but the convolution parameters give " +
                                 std::to_string(params.getNumOutputChans()) + " output channels");
  return createBiases(graph, activations, debugContext);
}

void convolutionWithOutput(poplar::Graph &graph, const poplar::Tensor &in,
                           const poplar::Tensor &weights, const poplar::Tensor &out,
                           const ConvParams &params, bool transposeAndFlipWeights,
                           poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext,
                           const poplar::OptionFlags &options, PlanningCache *cache) {
  checkParams(params);
  checkOperand(out,
               activationShape(params, params.getNumOutputChans(), params.getOutputFieldShape()),
               params.outputType, "convolutionWithOutput output 'out'", params);
  const std::string name = nameOf(debugContext, "conv");
  poplar::Tensor result =
      convolution(graph, in, weights, params, transposeAndFlipWeights, prog, name, options, cache);
  prog.add(poplar::program::Copy(result, out, false, name + "/toOutput"));
}

void preplanConvolutions(const std::set<ConvPlanParams> &convs, PlanningCache &cache) {
  for (const auto &[target, params, options] : convs) {
    if (!target)
      throw poputil::poplibs_error("preplanConvolutions: a ConvPlanParams entry has no target");
    const auto opts = detail::parseConvOptions(options ? *options : poplar::OptionFlags{});
    params.validate();
    const bool wu = opts.pass == "TRAINING_WU" || opts.pass == "FC_TRAINING_WU";
    detail::planConvolution(*target, params, wu ? ConvPass::WEIGHT_GRADIENT : ConvPass::FORWARD,
                            opts, &cache);
  }
}

void preplanConvolutions(poplar::Graph &, const std::set<ConvPlanParams> &convs,
                         PlanningCache &cache) {
  preplanConvolutions(convs, cache);
}

namespace {
double perfectCycles(const poplar::Graph &graph, const ConvParams &params, std::uint64_t flops) {
  const double macsPerCycle = params.inputType == poplar::HALF ? 64.0 : 16.0;
  const double tiles = std::max(1u, graph.getTarget().getNumTiles());
  return double(flops) / (2.0 * macsPerCycle * tiles);
}
} // namespace

double getFwdPerfectCycleCount(const poplar::Graph &graph, const ConvParams &params) {
  return perfectCycles(graph, params, getFwdFlops(params));
}
double getBwdPerfectCycleCount(const poplar::Graph &graph, const ConvParams &params) {
  return perfectCycles(graph, params, getBwdFlops(params));
}
double getWuPerfectCycleCount(const poplar::Graph &graph, const ConvParams &params) {
  return perfectCycles(graph, params, getWuFlops(params));
}

PlanCosts reportPlanEstimatedCosts(const poplar::Graph &graph, const ConvParams &params,
                                   const poplar::OptionFlags &options, PlanningCache *cache) {
  const auto plan = planFor(graph, params, ConvPass::FORWARD, options, cache);
  PlanCosts costs;
  if (plan.product) {
    costs.cycles = plan.product->totalCycles;
    costs.memory = std::size_t(plan.product->bytesPerTile) * plan.product->tilesUsed;
  } else {
    costs.cycles = plan.totalCycles;
    costs.memory = plan.bytesPerTile * plan.tilesUsed;
  }
  return costs;
}

void convolutionValidateOptions(const poplar::OptionFlags &options) {
  detail::parseConvOptions(options);
}

} // namespace poplin
