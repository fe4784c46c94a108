// Golden reference for popnn/experimental/ROIAlign.hpp (forward and input gradient).
//
// Semantics (PopLibs' ROIAlign): region r = [x1, y1, x2, y2] of image batchIndex[r]; with
// s = spatialScale and o = 0.5 when aligned else 0: start = (x1 s - o, y1 s - o), size =
// max(end - start, aligned ? 0 : 1); bin = size / pooled; sample (iy, ix) of bin (ph, pw) is at
// y = startY + ph binH + (iy + 0.5) binH / ratio, x alike. A sample with y > H or x > W adds 0;
// otherwise y, x < 0 become 0, yLow = min(floor(y), H - 1), yHigh = min(yLow + 1, H - 1) (x
// alike) and the sample is the bilinear blend with weights (1 - dy)(1 - dx), (1 - dy) dx,
// dy (1 - dx), dy dx, dy = y - yLow (clamped to [0, 1]). Output = Σ samples / ratio². The input
// gradient spreads each output's gradient back with the same weights / ratio². A batch index
// outside [0, N) gives 0 and no gradient.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace reference {

struct RoiAlignGeometry {
  std::size_t N, C, H, W, pooledH, pooledW, samplingRatio;
  bool aligned;
  double spatialScale;
};

namespace detail_roi {
/// Calls fn(outputIndex within the roi-channel plane, inputIndex within the image plane, weight).
template <class Fn>
void forEachSample(const RoiAlignGeometry &g, const double *roi, Fn fn) {
  const double o = g.aligned ? 0.5 : 0.0, minSize = g.aligned ? 0.0 : 1.0;
  const double sx = roi[0] * g.spatialScale - o, sy = roi[1] * g.spatialScale - o;
  const double ex = roi[2] * g.spatialScale - o, ey = roi[3] * g.spatialScale - o;
  const double binW = std::max(ex - sx, minSize) / g.pooledW;
  const double binH = std::max(ey - sy, minSize) / g.pooledH;
  const double count = static_cast<double>(g.samplingRatio * g.samplingRatio);
  for (std::size_t ph = 0; ph < g.pooledH; ++ph)
    for (std::size_t pw = 0; pw < g.pooledW; ++pw)
      for (std::size_t iy = 0; iy < g.samplingRatio; ++iy)
        for (std::size_t ix = 0; ix < g.samplingRatio; ++ix) {
          double y = sy + ph * binH + (iy + 0.5) * binH / g.samplingRatio;
          double x = sx + pw * binW + (ix + 0.5) * binW / g.samplingRatio;
          if (y > static_cast<double>(g.H) || x > static_cast<double>(g.W))
            continue;
          y = std::max(y, 0.0);
          x = std::max(x, 0.0);
          const std::size_t yl = std::min(static_cast<std::size_t>(y), g.H - 1);
          const std::size_t xl = std::min(static_cast<std::size_t>(x), g.W - 1);
          const std::size_t yh = std::min(yl + 1, g.H - 1), xh = std::min(xl + 1, g.W - 1);
          const double dy = std::min(y - yl, 1.0), dx = std::min(x - xl, 1.0);
          const std::size_t out = ph * g.pooledW + pw;
          fn(out, yl * g.W + xl, (1 - dy) * (1 - dx) / count);
          fn(out, yl * g.W + xh, (1 - dy) * dx / count);
          fn(out, yh * g.W + xl, dy * (1 - dx) / count);
          fn(out, yh * g.W + xh, dy * dx / count);
        }
}
} // namespace detail_roi

/// [numRois][C][pooledH][pooledW] from data [N][C][H][W], rois [numRois][4], batchIndex.
inline std::vector<double> roiAlign(const RoiAlignGeometry &g, const std::vector<double> &data,
                                    const std::vector<double> &rois,
                                    const std::vector<int> &batchIndex) {
  const std::size_t numRois = batchIndex.size(), plane = g.H * g.W,
                    outPlane = g.pooledH * g.pooledW;
  std::vector<double> out(numRois * g.C * outPlane, 0.0);
  for (std::size_t r = 0; r < numRois; ++r) {
    if (batchIndex[r] < 0 || static_cast<std::size_t>(batchIndex[r]) >= g.N)
      continue;
    for (std::size_t c = 0; c < g.C; ++c) {
      const double *img = data.data() + (batchIndex[r] * g.C + c) * plane;
      double *o = out.data() + (r * g.C + c) * outPlane;
      detail_roi::forEachSample(g, rois.data() + 4 * r,
                                [&](std::size_t oi, std::size_t ii, double w) { o[oi] += w * img[ii]; });
    }
  }
  return out;
}

/// [N][C][H][W] gradient from topGrad [numRois][C][pooledH][pooledW].
inline std::vector<double> roiAlignInputGradient(const RoiAlignGeometry &g,
                                                 const std::vector<double> &rois,
                                                 const std::vector<int> &batchIndex,
                                                 const std::vector<double> &topGrad) {
  const std::size_t numRois = batchIndex.size(), plane = g.H * g.W,
                    outPlane = g.pooledH * g.pooledW;
  std::vector<double> grad(g.N * g.C * plane, 0.0);
  for (std::size_t r = 0; r < numRois; ++r) {
    if (batchIndex[r] < 0 || static_cast<std::size_t>(batchIndex[r]) >= g.N)
      continue;
    for (std::size_t c = 0; c < g.C; ++c) {
      double *gi = grad.data() + (batchIndex[r] * g.C + c) * plane;
      const double *go = topGrad.data() + (r * g.C + c) * outPlane;
      detail_roi::forEachSample(g, rois.data() + 4 * r,
                                [&](std::size_t oi, std::size_t ii, double w) { gi[ii] += w * go[oi]; });
    }
  }
  return grad;
}

} // namespace reference
