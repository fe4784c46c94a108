// Multi-convolutions: each convolution built with the single-convolution entry points, one after
// the other in the caller's program, under the name "<debug name>/conv<i>".
#include <poplin/MultiConvolution.hpp>

#include <poputil/OptionParsing.hpp>
#include <poputil/exceptions.hpp>

namespace poplin::multiconv {
namespace {

/// Checks the options of the multi-convolution as a whole.
void parseMultiConvOptions(const std::string &fn, const poplar::OptionFlags &options) {
  std::string planType = "parallel";
  unsigned perConvReservedTiles = 50;
  double cycleBackOff = 0.1;
  const poputil::OptionSpec spec(
      "poplin::multiconv::" + fn,
      {{"planType", poputil::OptionHandler::createWithChoice(planType, {"parallel", "serial"})},
       {"perConvReservedTiles", poputil::OptionHandler::createWithUnsigned(perConvReservedTiles)},
       {"cycleBackOff",
        poputil::OptionHandler::createWithDouble(cycleBackOff, 0.0, 1.0, false, true)}});
  spec.parse(options);
}

std::string baseName(const poplar::DebugContext &debugContext) {
  return debugContext.getPathName().empty() ? "multiConv" : debugContext.getPathName();
}

std::string convName(const std::string &base, std::size_t i) {
  return base + "/conv" + std::to_string(i);
}

void checkIndex(const std::string &fn, const char *what, unsigned index, std::size_t count) {
  if (index >= count)
    throw poputil::poplibs_error("poplin::multiconv::" + fn + ": " + what + " " +
                                 std::to_string(index) + " is out of range: there are " +
                                 std::to_string(count) + " convolutions");
}

template <class Args> void checkSameCount(const std::string &fn, const Args &a, std::size_t n) {
  if (a.size() != n)
    throw poputil::poplibs_error("poplin::multiconv::" + fn + ": weightsOut has " +
                                 std::to_string(a.size()) + " entries but weightsIn has " +
                                 std::to_string(n) + "; they must match");
}

std::string nameFor(const CreateTensorArgs &a, const char *fallback, unsigned i) {
  return a.name.empty() ? std::string(fallback) + std::to_string(i) : a.name;
}

} // namespace

poplar::Tensor createWeights(poplar::Graph &graph, const std::vector<CreateTensorArgs> &args,
                             unsigned weightsIndex, const poplar::OptionFlags &options,
                             PlanningCache *cache) {
  parseMultiConvOptions("createWeights", options);
  checkIndex("createWeights", "weightsIndex", weightsIndex, args.size());
  const auto &a = args[weightsIndex];
  return poplin::createWeights(graph, a.params, nameFor(a, "weights", weightsIndex), a.options,
                               cache);
}

std::vector<poplar::Tensor> createWeights(poplar::Graph &graph,
                                          const std::vector<CreateTensorArgs> &args,
                                          const poplar::OptionFlags &options,
                                          PlanningCache *cache) {
  std::vector<poplar::Tensor> out;
  for (unsigned i = 0; i < args.size(); ++i)
    out.push_back(createWeights(graph, args, i, options, cache));
  return out;
}

poplar::Tensor createInput(poplar::Graph &graph, const std::vector<CreateTensorArgs> &args,
                           unsigned inputIndex, const poplar::OptionFlags &options,
                           PlanningCache *cache) {
  parseMultiConvOptions("createInput", options);
  checkIndex("createInput", "inputIndex", inputIndex, args.size());
  const auto &a = args[inputIndex];
  return poplin::createInput(graph, a.params, nameFor(a, "input", inputIndex), a.options, cache);
}

std::vector<poplar::Tensor> createInput(poplar::Graph &graph,
                                        const std::vector<CreateTensorArgs> &args,
                                        const poplar::OptionFlags &options, PlanningCache *cache) {
  std::vector<poplar::Tensor> out;
  for (unsigned i = 0; i < args.size(); ++i)
    out.push_back(createInput(graph, args, i, options, cache));
  return out;
}

std::vector<poplar::Tensor> convolution(poplar::Graph &graph,
                                        const std::vector<ConvolutionArgs> &args,
                                        bool transposeAndFlipWeights,
                                        poplar::program::Sequence &prog,
                                        const poplar::DebugContext &debugContext,
                                        const poplar::OptionFlags &options, PlanningCache *cache) {
  parseMultiConvOptions("convolution", options);
  const std::string base = baseName(debugContext);
  std::vector<poplar::Tensor> out;
  for (std::size_t i = 0; i < args.size(); ++i)
    out.push_back(poplin::convolution(graph, args[i].inputs, args[i].weights, args[i].params,
                                      transposeAndFlipWeights, prog, convName(base, i),
                                      args[i].options, cache));
  return out;
}

void weightsTransposeChansFlipXY(poplar::Graph &graph,
                                 const std::vector<ConvolutionArgs> &weightsOut,
                                 const std::vector<poplar::Tensor> &weightsIn,
                                 poplar::program::Sequence &prog,
                                 const poplar::OptionFlags &options,
                                 const poplar::DebugContext &debugContext, PlanningCache *) {
  parseMultiConvOptions("weightsTransposeChansFlipXY", options);
  checkSameCount("weightsTransposeChansFlipXY", weightsOut, weightsIn.size());
  const std::string base = baseName(debugContext);
  for (std::size_t i = 0; i < weightsIn.size(); ++i)
    poplin::weightsTransposeChansFlipXY(graph, weightsIn[i], weightsOut[i].weights, prog,
                                        convName(base, i));
}

std::vector<poplar::Tensor>
calculateWeightDeltas(poplar::Graph &graph, const std::vector<CalculateWeightDeltasArgs> &args,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options, PlanningCache *cache) {
  parseMultiConvOptions("calculateWeightDeltas", options);
  const std::string base = baseName(debugContext);
  std::vector<poplar::Tensor> out;
  for (std::size_t i = 0; i < args.size(); ++i)
    out.push_back(poplin::calculateWeightDeltas(graph, args[i].zDeltas, args[i].activations,
                                                args[i].params, prog, convName(base, i),
                                                args[i].options, cache));
  return out;
}

void convolutionWeightUpdate(poplar::Graph &graph, const std::vector<ConvWeightUpdateArgs> &args,
                             poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  parseMultiConvOptions("convolutionWeightUpdate", options);
  const std::string base = baseName(debugContext);
  for (std::size_t i = 0; i < args.size(); ++i)
    poplin::convolutionWeightUpdate(graph, args[i].zDeltas, args[i].weights, args[i].activations,
                                    args[i].params, args[i].scale, prog, convName(base, i),
                                    args[i].options, cache);
}

void convolutionWeightUpdate(poplar::Graph &graph,
                             const std::vector<ConvWeightUpdateArgsScalar> &args,
                             poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options, PlanningCache *cache) {
  parseMultiConvOptions("convolutionWeightUpdate", options);
  const std::string base = baseName(debugContext);
  for (std::size_t i = 0; i < args.size(); ++i)
    poplin::convolutionWeightUpdate(graph, args[i].zDeltas, args[i].weights, args[i].activations,
                                    args[i].params, args[i].scale, prog, convName(base, i),
                                    args[i].options, cache);
}

} // namespace poplin::multiconv
