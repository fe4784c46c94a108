// popnn's ROIAlign vertices (popnn/experimental/ROIAlign.hpp):
//  - popnn::ROIAlignPlanes<T>: one (region, channel) output plane — every bin's samples
//    bilinearly interpolated from the region's image plane and averaged;
//  - popnn::ROIAlignGradPlanes<T>: one (image, channel) input-gradient plane — the gradient of
//    every region of that image spread back with the same weights (so no two vertices write the
//    same element and the sum order is fixed: regions in order, then bins, then samples).
// Geometry and arithmetic in float.
#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "popnn/PopnnCodelets.hpp"

namespace tessera::codelets::popnn {
namespace {

/// The fields both vertices carry, and the walk over one region's samples.
struct RoiGeometry {
  unsigned height, width, pooledHeight, pooledWidth, samplingRatio;
  bool aligned;
  float spatialScale;

  /// Calls fn(output index in the pooled plane, input index in the image plane, weight) for
  /// each bilinear tap of each sample of region `roi` ([x1, y1, x2, y2]).
  template <class T, class Fn> void forEachTap(const T *roi, Fn fn) const {
    const float o = aligned ? 0.5f : 0.0f, minSize = aligned ? 0.0f : 1.0f;
    const float sx = static_cast<float>(roi[0]) * spatialScale - o;
    const float sy = static_cast<float>(roi[1]) * spatialScale - o;
    const float ex = static_cast<float>(roi[2]) * spatialScale - o;
    const float ey = static_cast<float>(roi[3]) * spatialScale - o;
    const float binW = std::max(ex - sx, minSize) / static_cast<float>(pooledWidth);
    const float binH = std::max(ey - sy, minSize) / static_cast<float>(pooledHeight);
    const float inv = 1.0f / static_cast<float>(samplingRatio * samplingRatio);
    const float ratio = static_cast<float>(samplingRatio);
    for (unsigned ph = 0; ph < pooledHeight; ++ph)
      for (unsigned pw = 0; pw < pooledWidth; ++pw)
        for (unsigned iy = 0; iy < samplingRatio; ++iy)
          for (unsigned ix = 0; ix < samplingRatio; ++ix) {
            float y = sy + static_cast<float>(ph) * binH + (static_cast<float>(iy) + 0.5f) * binH / ratio;
            float x = sx + static_cast<float>(pw) * binW + (static_cast<float>(ix) + 0.5f) * binW / ratio;
            if (y > static_cast<float>(height) || x > static_cast<float>(width))
              continue;
            y = std::max(y, 0.0f);
            x = std::max(x, 0.0f);
            const unsigned yl = std::min(static_cast<unsigned>(y), height - 1);
            const unsigned xl = std::min(static_cast<unsigned>(x), width - 1);
            const unsigned yh = std::min(yl + 1, height - 1), xh = std::min(xl + 1, width - 1);
            const float dy = std::min(y - static_cast<float>(yl), 1.0f);
            const float dx = std::min(x - static_cast<float>(xl), 1.0f);
            const std::size_t out = static_cast<std::size_t>(ph) * pooledWidth + pw;
            fn(out, static_cast<std::size_t>(yl) * width + xl, (1 - dy) * (1 - dx) * inv);
            fn(out, static_cast<std::size_t>(yl) * width + xh, (1 - dy) * dx * inv);
            fn(out, static_cast<std::size_t>(yh) * width + xl, dy * (1 - dx) * inv);
            fn(out, static_cast<std::size_t>(yh) * width + xh, dy * dx * inv);
          }
  }

  std::uint64_t regionCycles() const {
    return 20 + static_cast<std::uint64_t>(pooledHeight) * pooledWidth * samplingRatio *
                    samplingRatio * 30;
  }
};

template <class T> class ROIAlignPlanes : public poplar::Vertex, public RoiGeometry {
public:
  poplar::Vector<poplar::Input<poplar::Vector<T>>> images; ///< [N] planes of one channel
  poplar::Input<poplar::Vector<T>> roi;                    ///< [4]
  poplar::Input<int> batchIndex;
  poplar::Output<poplar::Vector<float>> partials;          ///< [pooledH * pooledW]
  poplar::Output<poplar::Vector<T>> out;                   ///< [pooledH * pooledW]

  bool compute() {
    std::fill(partials.begin(), partials.end(), 0.0f);
    const int b = *batchIndex;
    if (b >= 0 && static_cast<std::size_t>(b) < images.size()) {
      const T *img = images[b].data();
      forEachTap(roi.data(), [&](std::size_t o, std::size_t i, float w) {
        partials[o] += w * static_cast<float>(img[i]);
      });
    }
    for (std::size_t o = 0; o < out.size(); ++o)
      out[o] = T(partials[o]);
    return true;
  }
  std::uint64_t cycleEstimate() const { return regionCycles(); }
};

template <class T> class ROIAlignGradPlanes : public poplar::Vertex, public RoiGeometry {
public:
  poplar::Vector<poplar::Input<poplar::Vector<T>>> topGrad; ///< [numRois] planes of one channel
  poplar::Input<poplar::Vector<T>> rois;                    ///< [numRois * 4]
  poplar::Input<poplar::Vector<int>> batchIndex;            ///< [numRois]
  poplar::Output<poplar::Vector<float>> partials;           ///< [H * W]
  poplar::Output<poplar::Vector<T>> grad;                   ///< [H * W] of image `image`
  unsigned image;

  bool compute() {
    std::fill(partials.begin(), partials.end(), 0.0f);
    for (std::size_t r = 0; r < topGrad.size(); ++r) {
      if (batchIndex[r] != static_cast<int>(image))
        continue;
      const T *g = topGrad[r].data();
      forEachTap(rois.data() + 4 * r, [&](std::size_t o, std::size_t i, float w) {
        partials[i] += w * static_cast<float>(g[o]);
      });
    }
    for (std::size_t i = 0; i < grad.size(); ++i)
      grad[i] = T(partials[i]);
    return true;
  }
  std::uint64_t cycleEstimate() const {
    return 20 + topGrad.size() * regionCycles() + grad.size();
  }
};

template <class V> tessera::VertexTypeBuilder<V> &withRoiGeometry(tessera::VertexTypeBuilder<V> &&b) {
  return b.field("height", &RoiGeometry::height)
      .field("width", &RoiGeometry::width)
      .field("pooledHeight", &RoiGeometry::pooledHeight)
      .field("pooledWidth", &RoiGeometry::pooledWidth)
      .field("samplingRatio", &RoiGeometry::samplingRatio)
      .field("aligned", &RoiGeometry::aligned)
      .field("spatialScale", &RoiGeometry::spatialScale);
}

template <class T> void registerRoiAlign(const char *forward, const char *gradient) {
  using F = ROIAlignPlanes<T>;
  withRoiGeometry(tessera::VertexTypeBuilder<F>(forward))
      .field("images", &F::images)
      .field("roi", &F::roi)
      .field("batchIndex", &F::batchIndex)
      .field("partials", &F::partials)
      .field("out", &F::out)
      .add();
  using G = ROIAlignGradPlanes<T>;
  withRoiGeometry(tessera::VertexTypeBuilder<G>(gradient))
      .field("topGrad", &G::topGrad)
      .field("rois", &G::rois)
      .field("batchIndex", &G::batchIndex)
      .field("partials", &G::partials)
      .field("grad", &G::grad)
      .field("image", &G::image)
      .add();
}

} // namespace

void registerROIAlignVertices() {
  registerRoiAlign<float>("popnn::ROIAlignPlanes<float>", "popnn::ROIAlignGradPlanes<float>");
  registerRoiAlign<poplar::half>("popnn::ROIAlignPlanes<half>", "popnn::ROIAlignGradPlanes<half>");
}

} // namespace tessera::codelets::popnn
