// popnn::experimental::roiAlignFwd / roiAlignInputGradient: one popnn::ROIAlignPlanes vertex per
// (region, channel) output plane and one popnn::ROIAlignGradPlanes vertex per (image, channel)
// gradient plane, the planes spread evenly over the tiles with each vertex beside its output.
#include <popnn/experimental/ROIAlign.hpp>

#include <poputil/VertexTemplates.hpp>

#include "NnChecks.hpp"

namespace popnn::experimental {
namespace {

void checkCommon(const std::string &fn, const poplar::Tensor &data, const poplar::Tensor &rois,
                 const poplar::Tensor &batchIndex, const roiAlignParams &params) {
  detail::requireFloatType(fn, "bottomData", data);
  if (data.rank() != 4)
    detail::fail(fn, "bottomData", data, "must be 4-dimensional [N][C][H][W]");
  if (data.dim(2) == 0 || data.dim(3) == 0)
    detail::fail(fn, "bottomData", data, "must have a non-empty height and width");
  if (rois.rank() != 2 || rois.dim(1) != 4)
    detail::fail(fn, "bottomRois", rois, "must be 2-dimensional [numRois][4]");
  detail::requireSameType(fn, "bottomRois", rois, data.elementType());
  if (batchIndex.rank() != 1 || batchIndex.dim(0) != rois.dim(0))
    detail::fail(fn, "bottomBatchIndex", batchIndex,
                 detail::cat("must be 1-dimensional [", rois.dim(0), "] (one per region)"));
  detail::requireSameType(fn, "bottomBatchIndex", batchIndex, poplar::INT);
  if (params.samplingRatio_ == 0)
    throw poputil::poplibs_error(detail::cat(fn, ": params.samplingRatio_ must be greater than 0"));
  if (params.alignedHeight_ == 0 || params.alignedWidth_ == 0)
    throw poputil::poplibs_error(
        detail::cat(fn, ": params.alignedHeight_ and alignedWidth_ must be greater than 0"));
  if (!(params.spatialScale_ > 0))
    throw poputil::poplibs_error(
        detail::cat(fn, ": params.spatialScale_ must be greater than 0, not ",
                    params.spatialScale_));
}

void setGeometry(poplar::Graph &graph, poplar::VertexRef v, const poplar::Tensor &data,
                 const roiAlignParams &p) {
  graph.setInitialValue(v["height"], static_cast<unsigned>(data.dim(2)));
  graph.setInitialValue(v["width"], static_cast<unsigned>(data.dim(3)));
  graph.setInitialValue(v["pooledHeight"], static_cast<unsigned>(p.alignedHeight_));
  graph.setInitialValue(v["pooledWidth"], static_cast<unsigned>(p.alignedWidth_));
  graph.setInitialValue(v["samplingRatio"], static_cast<unsigned>(p.samplingRatio_));
  graph.setInitialValue(v["aligned"], p.aligned_);
  graph.setInitialValue(v["spatialScale"], p.spatialScale_);
}

/// The tile for plane k of n: planes spread evenly, in order.
unsigned tileOf(std::size_t k, std::size_t n, unsigned numTiles) {
  return static_cast<unsigned>(static_cast<std::uint64_t>(k) * numTiles / n);
}

} // namespace

poplar::Tensor roiAlignFwd(poplar::Graph &graph, poplar::program::Sequence &prog,
                           poplar::Tensor &bottomData, poplar::Tensor &bottomRois,
                           poplar::Tensor &bottomBatchIndex, const roiAlignParams &params,
                           const poplar::DebugContext &debugContext) {
  const std::string fn = "popnn::experimental::roiAlignFwd";
  checkCommon(fn, bottomData, bottomRois, bottomBatchIndex, params);
  const poplar::DebugContext dc(debugContext, "roiAlignFwd");
  const std::size_t N = bottomData.dim(0), C = bottomData.dim(1), R = bottomRois.dim(0);
  const std::size_t PH = params.alignedHeight_, PW = params.alignedWidth_;
  const poplar::Type type = bottomData.elementType();
  poplar::Tensor top = graph.addVariable(type, {R, C, PH, PW}, {dc, "topData"});
  poplar::Tensor partials = graph.addVariable(poplar::FLOAT, {R, C, PH * PW}, {dc, "partials"});
  const unsigned numTiles = graph.getTarget().getNumTiles();
  poplar::ComputeSet cs = graph.addComputeSet({dc, "pool"});
  const std::string vertexType = poputil::templateVertex("popnn::ROIAlignPlanes", type);
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) {
      const unsigned tile = tileOf(r * C + c, R * C, numTiles);
      graph.setTileMapping(top[r][c], tile);
      graph.setTileMapping(partials[r][c], tile);
      poplar::VertexRef v = graph.addVertex(cs, vertexType);
      std::vector<poplar::Tensor> images;
      for (std::size_t b = 0; b < N; ++b)
        images.push_back(bottomData[b][c].flatten());
      graph.connect(v["images"], images);
      graph.connect(v["roi"], bottomRois[r]);
      graph.connect(v["batchIndex"], bottomBatchIndex[r]);
      graph.connect(v["partials"], partials[r][c]);
      graph.connect(v["out"], top[r][c].flatten());
      setGeometry(graph, v, bottomData, params);
      graph.setTileMapping(v, tile);
    }
  prog.add(poplar::program::Execute(cs, dc));
  return top;
}

poplar::Tensor roiAlignInputGradient(poplar::Graph &graph, poplar::program::Sequence &prog,
                                     poplar::Tensor &bottomData, poplar::Tensor &bottomRois,
                                     poplar::Tensor &bottomBatchIndex,
                                     poplar::Tensor &topDataGrad, const roiAlignParams &params,
                                     const poplar::DebugContext &debugContext) {
  const std::string fn = "popnn::experimental::roiAlignInputGradient";
  checkCommon(fn, bottomData, bottomRois, bottomBatchIndex, params);
  const std::size_t N = bottomData.dim(0), C = bottomData.dim(1), H = bottomData.dim(2),
                    W = bottomData.dim(3), R = bottomRois.dim(0);
  detail::requireShape(fn, "topDataGrad", topDataGrad,
                       {R, C, params.alignedHeight_, params.alignedWidth_});
  detail::requireSameType(fn, "topDataGrad", topDataGrad, bottomData.elementType());
  const poplar::DebugContext dc(debugContext, "roiAlignInputGradient");
  const poplar::Type type = bottomData.elementType();
  poplar::Tensor grad = graph.addVariable(type, {N, C, H, W}, {dc, "bottomDiff"});
  poplar::Tensor partials = graph.addVariable(poplar::FLOAT, {N, C, H * W}, {dc, "partials"});
  const unsigned numTiles = graph.getTarget().getNumTiles();
  poplar::ComputeSet cs = graph.addComputeSet({dc, "spread"});
  const std::string vertexType = poputil::templateVertex("popnn::ROIAlignGradPlanes", type);
  for (std::size_t b = 0; b < N; ++b)
    for (std::size_t c = 0; c < C; ++c) {
      const unsigned tile = tileOf(b * C + c, N * C, numTiles);
      graph.setTileMapping(grad[b][c], tile);
      graph.setTileMapping(partials[b][c], tile);
      poplar::VertexRef v = graph.addVertex(cs, vertexType);
      std::vector<poplar::Tensor> tops;
      for (std::size_t r = 0; r < R; ++r)
        tops.push_back(topDataGrad[r][c].flatten());
      graph.connect(v["topGrad"], tops);
      graph.connect(v["rois"], bottomRois.flatten());
      graph.connect(v["batchIndex"], bottomBatchIndex);
      graph.connect(v["partials"], partials[b][c]);
      graph.connect(v["grad"], grad[b][c].flatten());
      graph.setInitialValue(v["image"], static_cast<unsigned>(b));
      setGeometry(graph, v, bottomData, params);
      graph.setTileMapping(v, tile);
    }
  prog.add(poplar::program::Execute(cs, dc));
  return grad;
}

} // namespace popnn::experimental
