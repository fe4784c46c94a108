// ROIAlign (Mask R-CNN's region-of-interest pooling): for each region, a fixed
// alignedHeight x alignedWidth grid of bins over a feature map, each bin the average of
// samplingRatio x samplingRatio bilinearly interpolated samples — and its input gradient.
//
// Geometry, per region [x1, y1, x2, y2] (input-image coordinates, times spatialScale_; minus 0.5
// when aligned_): the region's width and height are at least 1 unless aligned_; sample (iy, ix) of
// bin (ph, pw) sits at y = y1 + (ph + (iy + 0.5) / samplingRatio) * binHeight (x alike). A sample
// beyond the map (y > height or x > width) contributes 0; otherwise coordinates below 0 are taken
// as 0 and those past the last row/column use the last row/column. Every bin divides by
// samplingRatio², whether or not its samples fall inside. A region whose batch index is outside
// [0, batchSize) pools to 0 and has no gradient.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn {
namespace experimental {

/// The configuration of ROIAlign: samples per bin side, pooled output height and width, the
/// half-pixel shift, and the scale from region coordinates to feature-map coordinates.
struct roiAlignParams {
  long unsigned int samplingRatio_, alignedHeight_, alignedWidth_;
  bool aligned_;
  float spatialScale_;
  roiAlignParams(long unsigned int samplingRatio, long unsigned int poolH,
                 long unsigned int poolW, bool aligned, float spatialScale)
      : samplingRatio_{samplingRatio}, alignedHeight_{poolH}, alignedWidth_{poolW},
        aligned_{aligned}, spatialScale_{spatialScale} {}
};

/// Pools bottomData [N][C][H][W] (FLOAT or HALF) over bottomRois [numRois][4] (same type) whose
/// images are bottomBatchIndex [numRois] (INT); returns [numRois][C][alignedHeight_][alignedWidth_].
/// Throws poputil::poplibs_error naming the argument on a bad rank, shape, type or parameter.
poplar::Tensor roiAlignFwd(poplar::Graph &graph, poplar::program::Sequence &prog,
                           poplar::Tensor &bottomData, poplar::Tensor &bottomRois,
                           poplar::Tensor &bottomBatchIndex, const roiAlignParams &params,
                           const poplar::DebugContext &debugContext = {});

/// The gradient with respect to bottomData ([N][C][H][W]) given topDataGrad, the gradient of
/// roiAlignFwd's result ([numRois][C][alignedHeight_][alignedWidth_]).
poplar::Tensor roiAlignInputGradient(poplar::Graph &graph, poplar::program::Sequence &prog,
                                     poplar::Tensor &bottomData, poplar::Tensor &bottomRois,
                                     poplar::Tensor &bottomBatchIndex,
                                     poplar::Tensor &topDataGrad, const roiAlignParams &params,
                                     const poplar::DebugContext &debugContext = {});

} // namespace experimental
} // namespace popnn
