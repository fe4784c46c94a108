// popnn::ctc: CTC loss planning, input creation and the loss-and-gradient operation — one
// popnn::CTCLoss vertex per batch entry, on the plan's tile for that entry, with its alpha/beta
// workspace and results mapped beside it (the data and labels are exchanged in when they live
// elsewhere).
#include <popnn/CTCLoss.hpp>

#include <popnn/LogSoftmax.hpp>
#include <popops/Cast.hpp>
#include <poputil/OptionParsing.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/VertexTemplates.hpp>

#include "CTCPlanImpl.hpp"
#include "NnChecks.hpp"

namespace popnn::ctc {
namespace {

bool parseIncludeSoftmaxGradient(const std::string &fn, const poplar::OptionFlags &options) {
  bool include = true;
  poputil::OptionSpec(fn,
                      {{"includeSoftmaxGradient", poputil::OptionHandler::createWithBool(include)}})
      .parse(options);
  return include;
}

std::pair<poplar::Tensor, poplar::Tensor>
lossAndGradient(const std::string &fn, poplar::Graph &graph, const poplar::Type &outType,
                const poplar::Tensor &logProbs, const poplar::Tensor &labels,
                const poplar::Tensor &dataLengths, const poplar::Tensor &labelLengths,
                poplar::program::Sequence &prog, unsigned blankClass, const Plan &plan,
                bool includeSoftmaxGradient, const poplar::DebugContext &dc) {
  const Plan::Impl &p = plan.getImpl();
  if (p.inference)
    throw poputil::poplibs_error(
        detail::cat(fn, ": argument 'plan' is a CTC inference plan (ctc_infer::plan); use "
                        "ctc::plan"));
  detail::requireFloatType(fn, "outType", outType);
  detail::requireFloatType(fn, "logProbs", logProbs);
  if (logProbs.rank() != 3)
    detail::fail(fn, "logProbs", logProbs, "must be [maxTime][batchSize][numClasses]");
  if (outType == poplar::HALF && logProbs.elementType() == poplar::FLOAT)
    throw poputil::poplibs_error(
        detail::cat(fn, ": argument 'outType' HALF is not supported with FLOAT logProbs"));
  const std::size_t T = logProbs.dim(0), B = logProbs.dim(1), C = logProbs.dim(2);
  if (B != p.batchSize)
    detail::fail(fn, "logProbs", logProbs,
                 detail::cat("has batch size ", B, " but the plan is for ", p.batchSize));
  if (blankClass >= C)
    throw poputil::poplibs_error(detail::cat(fn, ": argument 'blankClass' = ", blankClass,
                                             " must be less than numClasses = ", C));
  for (const auto &[name, t] : {std::pair<const char *, const poplar::Tensor &>{"labels", labels},
                                {"dataLengths", dataLengths},
                                {"labelLengths", labelLengths}})
    detail::requireSameType(fn, name, t, poplar::UNSIGNED_INT);
  if (labels.rank() != 2 || labels.dim(0) != B)
    detail::fail(fn, "labels", labels, detail::cat("must be [", B, "][maxLabelLength]"));
  detail::requireShape(fn, "dataLengths", dataLengths, {B});
  detail::requireShape(fn, "labelLengths", labelLengths, {B});
  const std::size_t maxL = labels.dim(1), stride = 2 * maxL + 1;

  auto mapped = [&](const poplar::Type &type, std::vector<std::size_t> shape, unsigned batchDim,
                    const char *name) {
    poplar::Tensor t = graph.addVariable(type, shape, {dc, name});
    mapByBatch(graph, t, batchDim, p);
    return t;
  };
  poplar::Tensor grad = mapped(outType, {T, B, C}, 1, "gradient");
  poplar::Tensor loss = mapped(outType, {B}, 0, "loss");
  poplar::Tensor alpha = mapped(poplar::FLOAT, {B, T * stride}, 0, "alpha");
  poplar::Tensor beta = mapped(poplar::FLOAT, {B, 2 * stride}, 0, "beta");
  poplar::Tensor classSums = mapped(poplar::FLOAT, {B, C}, 0, "classSums");

  poplar::ComputeSet cs = graph.addComputeSet({dc, "ctcLoss"});
  const std::string vertexType =
      poputil::templateVertex("popnn::CTCLoss", logProbs.elementType(), outType);
  for (std::size_t b = 0; b < B; ++b) {
    poplar::VertexRef v = graph.addVertex(cs, vertexType);
    std::vector<poplar::Tensor> probRows, gradRows;
    for (std::size_t t = 0; t < T; ++t) {
      probRows.push_back(logProbs[t][b]);
      gradRows.push_back(grad[t][b]);
    }
    graph.connect(v["logProbs"], probRows);
    graph.connect(v["grad"], gradRows);
    graph.connect(v["label"], labels[b]);
    graph.connect(v["dataLength"], dataLengths[b]);
    graph.connect(v["labelLength"], labelLengths[b]);
    graph.connect(v["alpha"], alpha[b]);
    graph.connect(v["beta"], beta[b]);
    graph.connect(v["classSums"], classSums[b]);
    graph.connect(v["loss"], loss.slice(b, b + 1));
    graph.setInitialValue(v["blankClass"], blankClass);
    graph.setInitialValue(v["includeSoftmaxGradient"], includeSoftmaxGradient);
    graph.setTileMapping(v, p.tileOf(b));
  }
  prog.add(poplar::program::Execute(cs, dc));
  return {loss, grad};
}

} // namespace

Plan plan(const poplar::Graph &graph, const poplar::Type &inType, const poplar::Type &outType,
          unsigned batchSize, unsigned maxTime, unsigned maxLabelLength, unsigned numClasses,
          const poplar::OptionFlags &options) {
  const std::string fn = "popnn::ctc::plan";
  detail::requireFloatType(fn, "inType", inType);
  detail::requireFloatType(fn, "outType", outType);
  auto impl = std::make_unique<Plan::Impl>();
  impl->inference = false;
  impl->inType = inType;
  impl->outType = outType;
  impl->batchSize = batchSize;
  impl->maxTime = maxTime;
  impl->maxLabelLength = maxLabelLength;
  impl->numClasses = numClasses;
  impl->numTiles = graph.getTarget().getNumTiles();
  parsePlanOptions(fn, options, *impl);
  if (impl->partialsType == poplar::HALF && inType == poplar::FLOAT)
    throw poputil::poplibs_error(
        detail::cat(fn, ": option 'partialsType' HALF is not supported with inType FLOAT"));
  return Plan(std::move(impl));
}

poplar::Tensor createDataInput(poplar::Graph &graph, const poplar::Type &type,
                               const std::size_t batchSize, const std::size_t maxTime,
                               const std::size_t numClasses, const Plan &plan,
                               const poplar::DebugContext &debugContext) {
  detail::requireFloatType("popnn::ctc::createDataInput", "type", type);
  poplar::Tensor t =
      graph.addVariable(type, {maxTime, batchSize, numClasses}, {debugContext, "data"});
  mapByBatch(graph, t, 1, plan.getImpl());
  return t;
}

poplar::Tensor createLabelsInput(poplar::Graph &graph, const poplar::Type &type,
                                 const std::size_t batchSize, const std::size_t maxLabelLength,
                                 const Plan &plan, const poplar::DebugContext &debugContext) {
  poplar::Tensor t = graph.addVariable(type, {batchSize, maxLabelLength}, {debugContext, "labels"});
  mapByBatch(graph, t, 0, plan.getImpl());
  return t;
}

std::pair<poplar::Tensor, poplar::Tensor> calcLossAndGradientLogProbabilities(
    poplar::Graph &graph, const poplar::Type &outType, const poplar::Tensor &logProbs,
    const poplar::Tensor &labels, const poplar::Tensor &dataLengths,
    const poplar::Tensor &labelLengths, poplar::program::Sequence &prog, const unsigned blankClass,
    const Plan &plan, const poplar::DebugContext &debugContext,
    const poplar::OptionFlags &options) {
  const std::string fn = "popnn::ctc::calcLossAndGradientLogProbabilities";
  const bool include = parseIncludeSoftmaxGradient(fn, options);
  return lossAndGradient(fn, graph, outType, logProbs, labels, dataLengths, labelLengths, prog,
                         blankClass, plan, include, {debugContext, "CTCLossAndGradientLogProbs"});
}

std::pair<poplar::Tensor, poplar::Tensor>
calcLossAndGradientLogits(poplar::Graph &graph, const poplar::Type &outType,
                          const poplar::Tensor &logits, const poplar::Tensor &labels,
                          const poplar::Tensor &dataLengths, const poplar::Tensor &labelLengths,
                          poplar::program::Sequence &prog, const unsigned blankClass,
                          const Plan &plan, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options) {
  const std::string fn = "popnn::ctc::calcLossAndGradientLogits";
  const bool include = parseIncludeSoftmaxGradient(fn, options);
  detail::requireFloatType(fn, "logits", logits);
  if (logits.rank() != 3)
    detail::fail(fn, "logits", logits, "must be [maxTime][batchSize][numClasses]");
  const poplar::DebugContext dc(debugContext, "CTCLossAndGradientLogits");
  const poplar::Tensor logProbs = popnn::logSoftmax(graph, logits, prog, {dc, "logSoftmax"});
  return lossAndGradient(fn, graph, outType, logProbs, labels, dataLengths, labelLengths, prog,
                         blankClass, plan, include, dc);
}

} // namespace popnn::ctc
