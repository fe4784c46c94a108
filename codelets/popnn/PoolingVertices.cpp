// popnn's pooling vertices for overlapping 1-D and 2-D windows, one vertex per tile over whole
// (sample, channel) planes:
//  - popnn::PoolPlanes<T>: out = max / sum / average of each window of in.
//  - popnn::PoolGradPlanes<T>: the input gradient of those, from the pooled gradient (and, for
//    max pooling, the forward input and output, which say where each window's maximum was).
// A plane is contiguous, so a vertex walks its windows with plain strides; expressing the same
// work as element-wise maps over strided views costs one region per element (ResNet-50's stem
// max-pool gradient was 80 % of the graph's vertices that way).
//
// Every element is computed in the order the per-kernel-offset maps used (offsets row-major, then
// outputs row-major; arithmetic in float, rounded to T after every step), so results are the
// same bits as before. Planes are split over the tile's workers in contiguous blocks.
#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "popnn/PopnnCodelets.hpp"

namespace tessera::codelets::popnn {
namespace {

/// How PoolPlanes combines a window (the vertex field `mode`).
enum PoolMode : unsigned { kMax = 0, kSum = 1, kAvg = 2 };
/// What PoolGradPlanes differentiates (the vertex field `mode`).
enum GradMode : unsigned { kGradMax = 0, kGradMaxScaled = 1, kGradSum = 2, kGradAvg = 3 };

/// The window geometry every pooling vertex carries (as vertex fields of the same names): field
/// sizes, kernel, stride and the lower padding (negative: truncation). Output (oy, ox) at offset
/// (ky, kx) reads input (oy * strideH + ky - padH, ox * strideW + kx - padW) when that lies inside
/// the input.
struct Geometry {
  unsigned inH, inW, outH, outW, kernelH, kernelW, strideH, strideW;
  int padH, padW;

  /// Outputs [lo, hi) whose input at kernel offset k along one dimension is inside [0, in).
  static void range(unsigned k, unsigned stride, int pad, unsigned in, unsigned out, unsigned &lo,
                    unsigned &hi) {
    const long s = stride, first = pad - static_cast<long>(k),
               last = static_cast<long>(in) - 1 + pad - static_cast<long>(k);
    long l = first > 0 ? (first + s - 1) / s : 0;
    long h = last >= 0 ? last / s + 1 : 0;
    h = std::min<long>(h, out);
    lo = static_cast<unsigned>(l);
    hi = static_cast<unsigned>(std::max(h, l));
  }

  /// Calls fn(outIndex, inIndex) for every output/input pair of every kernel offset, offsets
  /// row-major, then outputs row-major.
  template <class Fn> void forEachPair(Fn fn) const {
    for (unsigned ky = 0; ky < kernelH; ++ky) {
      unsigned yLo, yHi;
      range(ky, strideH, padH, inH, outH, yLo, yHi);
      for (unsigned kx = 0; kx < kernelW; ++kx) {
        unsigned xLo, xHi;
        range(kx, strideW, padW, inW, outW, xLo, xHi);
        for (unsigned oy = yLo; oy < yHi; ++oy) {
          const std::size_t iy =
              static_cast<std::size_t>(static_cast<long>(oy) * strideH + ky - padH);
          for (unsigned ox = xLo; ox < xHi; ++ox) {
            const std::size_t ix =
                static_cast<std::size_t>(static_cast<long>(ox) * strideW + kx - padW);
            fn(static_cast<std::size_t>(oy) * outW + ox, iy * inW + ix);
          }
        }
      }
    }
  }

  /// How many kernel rows (perRow[oy]) and columns (perCol[ox]) of each output's window land
  /// inside the input: the window of (oy, ox) covers perRow[oy] * perCol[ox] real inputs.
  void coverage(std::vector<unsigned> &perRow, std::vector<unsigned> &perCol) const {
    perRow.assign(outH, 0);
    perCol.assign(outW, 0);
    for (unsigned ky = 0; ky < kernelH; ++ky) {
      unsigned lo, hi;
      range(ky, strideH, padH, inH, outH, lo, hi);
      for (unsigned o = lo; o < hi; ++o)
        ++perRow[o];
    }
    for (unsigned kx = 0; kx < kernelW; ++kx) {
      unsigned lo, hi;
      range(kx, strideW, padW, inW, outW, lo, hi);
      for (unsigned o = lo; o < hi; ++o)
        ++perCol[o];
    }
  }

  /// 1 / (number of real inputs in output o's window), rounded to T as the constant was.
  template <class T> void inverseCounts(std::vector<T> &inv) const {
    std::vector<unsigned> perRow, perCol;
    coverage(perRow, perCol);
    inv.resize(static_cast<std::size_t>(outH) * outW);
    for (unsigned oy = 0; oy < outH; ++oy)
      for (unsigned ox = 0; ox < outW; ++ox) {
        const std::size_t count = static_cast<std::size_t>(perRow[oy]) * perCol[ox];
        inv[static_cast<std::size_t>(oy) * outW + ox] =
            T(count ? 1.0f / static_cast<float>(count) : 0.0f);
      }
  }

  /// IPU cycles for one plane: a few cycles per kernel-offset row plus the pairs, 2 floats or 4
  /// halves a cycle (Poplar's pooling vertices vectorise over channels; this is the same rate).
  std::uint64_t planeCycles(unsigned elementsPerCycle) const {
    const std::uint64_t pairs = static_cast<std::uint64_t>(outH) * outW * kernelH * kernelW;
    return 12 + 6 * static_cast<std::uint64_t>(kernelH) * kernelW * outH +
           (pairs + elementsPerCycle - 1) / elementsPerCycle;
  }
};

/// The planes [begin, end) worker `workerId` of `workers` takes out of n.
void workerShare(std::size_t n, unsigned workerId, unsigned workers, std::size_t &begin,
                 std::size_t &end) {
  begin = n * workerId / workers;
  end = n * (workerId + 1) / workers;
}

template <class T> constexpr unsigned elementsPerCycle() {
  return std::is_same_v<T, float> ? 2 : 4;
}

template <class T> class PoolPlanes : public poplar::MultiVertex, public Geometry {
public:
  poplar::Vector<poplar::Input<poplar::Vector<T>>> in;
  poplar::Vector<poplar::Output<poplar::Vector<T>>> out;
  unsigned mode;

  bool compute(unsigned workerId) {
    std::size_t begin, end;
    workerShare(out.size(), workerId, numWorkers(), begin, end);
    std::vector<T> inv;
    std::vector<unsigned> perRow, perCol;
    if (mode == kAvg)
      inverseCounts(inv);
    if (mode == kMax)
      coverage(perRow, perCol);
    for (std::size_t p = begin; p < end; ++p) {
      const T *x = in[p].data();
      T *y = out[p].data();
      const std::size_t n = out[p].size();
      if (mode == kMax) {
        // A window over padding alone has no maximum: its output is 0 (PopLibs' reference).
        for (unsigned oy = 0; oy < outH; ++oy)
          for (unsigned ox = 0; ox < outW; ++ox)
            y[static_cast<std::size_t>(oy) * outW + ox] =
                T(perRow[oy] != 0 && perCol[ox] != 0 ? -std::numeric_limits<float>::infinity() : 0.0f);
      } else {
        std::fill(y, y + n, T(0.0f));
      }
      if (mode == kMax)
        forEachPair([&](std::size_t o, std::size_t i) {
          y[o] = T(std::fmax(static_cast<float>(y[o]), static_cast<float>(x[i])));
        });
      else
        forEachPair([&](std::size_t o, std::size_t i) {
          y[o] = T(static_cast<float>(y[o]) + static_cast<float>(x[i]));
        });
      if (mode == kAvg)
        for (std::size_t o = 0; o < n; ++o)
          y[o] = T(static_cast<float>(y[o]) * static_cast<float>(inv[o]));
    }
    return true;
  }

  std::uint64_t cycleEstimate() const {
    const unsigned workers = 6;
    const std::uint64_t planesPerWorker = (out.size() + workers - 1) / workers;
    return 20 + planesPerWorker * planeCycles(elementsPerCycle<T>());
  }
};

template <class T> class PoolGradPlanes : public poplar::MultiVertex, public Geometry {
public:
  /// The forward input and output (max pooling only; empty lists otherwise).
  poplar::Vector<poplar::Input<poplar::Vector<T>>> in, pooled;
  poplar::Vector<poplar::Input<poplar::Vector<T>>> pooledGradient;
  poplar::Vector<poplar::Output<poplar::Vector<T>>> inGradient;
  unsigned mode;

  bool compute(unsigned workerId) {
    std::size_t begin, end;
    workerShare(inGradient.size(), workerId, numWorkers(), begin, end);
    const bool isMax = mode == kGradMax || mode == kGradMaxScaled;
    std::vector<T> inv, scaled;
    if (mode == kGradAvg)
      inverseCounts(inv);
    for (std::size_t p = begin; p < end; ++p) {
      T *dx = inGradient[p].data();
      std::fill(dx, dx + inGradient[p].size(), T(0.0f));
      const T *dy = pooledGradient[p].data();
      const std::size_t n = pooledGradient[p].size();
      if (mode == kGradMaxScaled || mode == kGradAvg) {
        // The gradient each window shares out: divided by the window's number of maxima (the
        // count adds 0 or 1 per offset, so it is exact) or scaled by 1 / its real inputs.
        scaled.assign(n, T(0.0f));
        if (mode == kGradAvg) {
          for (std::size_t o = 0; o < n; ++o)
            scaled[o] = T(static_cast<float>(dy[o]) * static_cast<float>(inv[o]));
        } else {
          const T *x = in[p].data(), *y = pooled[p].data();
          forEachPair([&](std::size_t o, std::size_t i) {
            scaled[o] = T(static_cast<float>(scaled[o]) + (x[i] == y[o] ? 1.0f : 0.0f));
          });
          for (std::size_t o = 0; o < n; ++o)
            scaled[o] = T(static_cast<float>(dy[o]) / static_cast<float>(scaled[o]));
        }
        dy = scaled.data();
      }
      if (isMax) {
        const T *x = in[p].data(), *y = pooled[p].data();
        forEachPair([&](std::size_t o, std::size_t i) {
          dx[i] =
              T(static_cast<float>(dx[i]) + (static_cast<float>(x[i]) == static_cast<float>(y[o])
                                                 ? static_cast<float>(dy[o])
                                                 : 0.0f));
        });
      } else {
        forEachPair([&](std::size_t o, std::size_t i) {
          dx[i] = T(static_cast<float>(dx[i]) + static_cast<float>(dy[o]));
        });
      }
    }
    return true;
  }

  std::uint64_t cycleEstimate() const {
    const unsigned workers = 6;
    const std::uint64_t planesPerWorker = (inGradient.size() + workers - 1) / workers;
    const std::uint64_t zeroing =
        inGradient.size() ? inGradient[0].size() / elementsPerCycle<T>() : 0;
    const std::uint64_t passes = mode == kGradMaxScaled ? 2 : 1;
    return 20 + planesPerWorker * (zeroing + passes * planeCycles(elementsPerCycle<T>()));
  }
};

/// Adds Geometry's fields, under their member names, to a vertex type deriving from it.
template <class V> tessera::VertexTypeBuilder<V> &withGeometry(tessera::VertexTypeBuilder<V> &&b) {
  return b.field("inH", &Geometry::inH)
      .field("inW", &Geometry::inW)
      .field("outH", &Geometry::outH)
      .field("outW", &Geometry::outW)
      .field("kernelH", &Geometry::kernelH)
      .field("kernelW", &Geometry::kernelW)
      .field("strideH", &Geometry::strideH)
      .field("strideW", &Geometry::strideW)
      .field("padH", &Geometry::padH)
      .field("padW", &Geometry::padW);
}

template <class T> void registerPooling(const char *forward, const char *gradient) {
  using F = PoolPlanes<T>;
  withGeometry(tessera::VertexTypeBuilder<F>(forward))
      .field("in", &F::in)
      .field("out", &F::out)
      .field("mode", &F::mode)
      .add();
  using G = PoolGradPlanes<T>;
  withGeometry(tessera::VertexTypeBuilder<G>(gradient))
      .field("in", &G::in)
      .field("pooled", &G::pooled)
      .field("pooledGradient", &G::pooledGradient)
      .field("inGradient", &G::inGradient)
      .field("mode", &G::mode)
      .add();
}

} // namespace

void registerPoolingVertices() {
  registerPooling<float>("popnn::PoolPlanes<float>", "popnn::PoolGradPlanes<float>");
  registerPooling<poplar::half>("popnn::PoolPlanes<half>", "popnn::PoolGradPlanes<half>");
}

} // namespace tessera::codelets::popnn
