// popnn::ctc_infer: CTC beam-search decoding — one popnn::CTCBeamSearch vertex per batch entry on
// the plan's tile for it, with its beam and candidate workspace and its results mapped beside it.
#include <popnn/CTCInference.hpp>

#include <popnn/LogSoftmax.hpp>
#include <poputil/OptionParsing.hpp>
#include <poputil/VertexTemplates.hpp>

#include "CTCPlanImpl.hpp"
#include "NnChecks.hpp"

namespace popnn::ctc_infer {
namespace {

using ctc::Plan;

std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor>
decode(const std::string &fn, poplar::Graph &graph, const poplar::Tensor &logProbs,
       const poplar::Tensor &dataLengths, poplar::program::Sequence &prog, unsigned blankClass,
       unsigned beamwidth, unsigned topPaths, const Plan &plan, const poplar::OptionFlags &options,
       const poplar::DebugContext &dc) {
  poputil::OptionSpec(fn, {}).parse(options); // no options: any key is unknown
  const Plan::Impl &p = plan.getImpl();
  if (!p.inference)
    throw poputil::poplibs_error(
        detail::cat(fn, ": argument 'plan' is a CTC loss plan (ctc::plan); use ctc_infer::plan"));
  detail::requireFloatType(fn, "logProbs", logProbs);
  if (logProbs.rank() != 3)
    detail::fail(fn, "logProbs", logProbs, "must be [maxTime][batchSize][numClasses]");
  const std::size_t T = logProbs.dim(0), B = logProbs.dim(1), C = logProbs.dim(2);
  if (B != p.batchSize)
    detail::fail(fn, "logProbs", logProbs,
                 detail::cat("has batch size ", B, " but the plan is for ", p.batchSize));
  detail::requireSameType(fn, "dataLengths", dataLengths, poplar::UNSIGNED_INT);
  detail::requireShape(fn, "dataLengths", dataLengths, {B});
  if (blankClass >= C)
    throw poputil::poplibs_error(detail::cat(fn, ": argument 'blankClass' = ", blankClass,
                                             " must be less than numClasses = ", C));
  if (beamwidth == 0)
    throw poputil::poplibs_error(detail::cat(fn, ": argument 'beamwidth' must be at least 1"));
  if (topPaths == 0 || topPaths > beamwidth)
    throw poputil::poplibs_error(detail::cat(fn, ": argument 'topPaths' = ", topPaths,
                                             " must be between 1 and beamwidth = ", beamwidth));
  const poplar::Type outType = logProbs.elementType();
  const std::size_t bw = beamwidth, n = bw * C;
  auto mapped = [&](const poplar::Type &type, std::vector<std::size_t> shape, const char *name) {
    poplar::Tensor t = graph.addVariable(type, shape, {dc, name});
    ctc::mapByBatch(graph, t, 0, p);
    return t;
  };
  poplar::Tensor labelProbs = mapped(outType, {B, topPaths}, "labelProbs");
  poplar::Tensor labelLengths = mapped(poplar::UNSIGNED_INT, {B, topPaths}, "labelLengths");
  poplar::Tensor decoded = mapped(poplar::UNSIGNED_INT, {B, topPaths, T}, "decodedLabels");
  poplar::Tensor beamLabels = mapped(poplar::UNSIGNED_INT, {B, 2 * bw * T}, "beamLabels");
  poplar::Tensor beamLengths = mapped(poplar::UNSIGNED_INT, {B, 2 * bw}, "beamLengths");
  poplar::Tensor beamProbs = mapped(poplar::FLOAT, {B, 4 * bw}, "beamProbs");
  poplar::Tensor candidates = mapped(poplar::UNSIGNED_INT, {B, 2 * n}, "candidates");
  poplar::Tensor candidateProbs = mapped(poplar::FLOAT, {B, 2 * n}, "candidateProbs");
  poplar::Tensor order = mapped(poplar::UNSIGNED_INT, {B, n}, "candidateOrder");

  poplar::ComputeSet cs = graph.addComputeSet({dc, "beamSearch"});
  const std::string vertexType =
      poputil::templateVertex("popnn::CTCBeamSearch", logProbs.elementType(), outType);
  for (std::size_t b = 0; b < B; ++b) {
    poplar::VertexRef v = graph.addVertex(cs, vertexType);
    std::vector<poplar::Tensor> rows;
    for (std::size_t t = 0; t < T; ++t)
      rows.push_back(logProbs[t][b]);
    graph.connect(v["logProbs"], rows);
    graph.connect(v["dataLength"], dataLengths[b]);
    graph.connect(v["beamLabels"], beamLabels[b]);
    graph.connect(v["beamLengths"], beamLengths[b]);
    graph.connect(v["beamProbs"], beamProbs[b]);
    graph.connect(v["candidates"], candidates[b]);
    graph.connect(v["candidateProbs"], candidateProbs[b]);
    graph.connect(v["order"], order[b]);
    graph.connect(v["labelProbs"], labelProbs[b]);
    graph.connect(v["labelLengths"], labelLengths[b]);
    graph.connect(v["decodedLabels"], decoded[b].flatten());
    graph.setInitialValue(v["blankClass"], blankClass);
    graph.setInitialValue(v["beamWidth"], beamwidth);
    graph.setTileMapping(v, p.tileOf(b));
  }
  prog.add(poplar::program::Execute(cs, dc));
  return {labelProbs, labelLengths, decoded};
}

} // namespace

ctc::Plan plan(const poplar::Graph &graph, const poplar::Type &inType, unsigned batchSize,
               unsigned maxTime, unsigned numClasses, unsigned beamwidth,
               const poplar::OptionFlags &options) {
  const std::string fn = "popnn::ctc_infer::plan";
  detail::requireFloatType(fn, "inType", inType);
  auto impl = std::make_unique<Plan::Impl>();
  impl->inference = true;
  impl->inType = inType;
  impl->outType = inType;
  impl->batchSize = batchSize;
  impl->maxTime = maxTime;
  impl->numClasses = numClasses;
  impl->beamWidth = beamwidth;
  impl->numTiles = graph.getTarget().getNumTiles();
  ctc::parsePlanOptions(fn, options, *impl);
  if (impl->partialsType == poplar::HALF && inType == poplar::FLOAT)
    throw poputil::poplibs_error(
        detail::cat(fn, ": option 'partialsType' HALF is not supported with inType FLOAT"));
  return Plan(std::move(impl));
}

poplar::Tensor createDataInput(poplar::Graph &graph, const poplar::Type &type,
                               const std::size_t batchSize, const std::size_t maxTime,
                               const std::size_t numClasses, const ctc::Plan &plan,
                               const poplar::DebugContext &debugContext) {
  detail::requireFloatType("popnn::ctc_infer::createDataInput", "type", type);
  poplar::Tensor t =
      graph.addVariable(type, {maxTime, batchSize, numClasses}, {debugContext, "data"});
  ctc::mapByBatch(graph, t, 1, plan.getImpl());
  return t;
}

std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor> beamSearchDecoderLogProbabilities(
    poplar::Graph &graph, const poplar::Tensor &logProbs, const poplar::Tensor &dataLengths,
    poplar::program::Sequence &prog, unsigned blankClass, unsigned beamwidth, unsigned topPaths,
    const ctc::Plan &plan, const poplar::DebugContext &debugContext,
    const poplar::OptionFlags &options) {
  return decode("popnn::ctc_infer::beamSearchDecoderLogProbabilities", graph, logProbs, dataLengths,
                prog, blankClass, beamwidth, topPaths, plan, options,
                {debugContext, "CTCBeamSearchDecoderLogProbs"});
}

std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor>
beamSearchDecoderLogits(poplar::Graph &graph, const poplar::Tensor &logits,
                        const poplar::Tensor &dataLengths, poplar::program::Sequence &prog,
                        unsigned blankClass, unsigned beamwidth, unsigned topPaths,
                        const ctc::Plan &plan, const poplar::DebugContext &debugContext,
                        const poplar::OptionFlags &options) {
  const std::string fn = "popnn::ctc_infer::beamSearchDecoderLogits";
  detail::requireFloatType(fn, "logits", logits);
  if (logits.rank() != 3)
    detail::fail(fn, "logits", logits, "must be [maxTime][batchSize][numClasses]");
  const poplar::DebugContext dc(debugContext, "CTCBeamSearchDecoderLogits");
  const poplar::Tensor logProbs = popnn::logSoftmax(graph, logits, prog, {dc, "logSoftmax"});
  return decode(fn, graph, logProbs, dataLengths, prog, blankClass, beamwidth, topPaths, plan,
                options, dc);
}

} // namespace popnn::ctc_infer
