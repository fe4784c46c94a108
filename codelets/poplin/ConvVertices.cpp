// poplin convolution vertices: one tile's block of a convolution as an implicit GEMM.
//
// ConvBlock<In,Out>: out[g][oc][n] = Σ_k weights[g][oc][k] · col[g][k][n] for the groups, output
// channels and output positions n = (batch, field position) of its block, where k = (input
// channel, kernel element) and col is the im2col panel built in per-host-thread scratch from
// `in` (the block's input channels × batch × the input rows the block reads). Which input
// element (if any) kernel element kd meets at output position od is given per spatial
// dimension by the plain `indices` table [dim][kernel][output] (−1: a zero from padding,
// dilation, or output padding), so every ConvParams transform is one table lookup here.
//
// ConvWeightGradBlock<In>: partial dW[g][oc][k] = Σ_n zDeltas[g][oc][n] · col[g][k][n] over the
// block's output positions (fp32, one partial per n chunk; partials are summed in a fixed order
// by poplin::ReducePartials / ScaledAddPartials).
//
// Every element is one fixed-order FMA chain (the GEMM kernel's contract), so the worker split
// and the host thread count never change results. HALF is widened to fp32 in scratch and a
// HALF output is rounded once.
#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "poplin/PoplinCodelets.hpp"
#include "poplin/kernels/GemmKernels.hpp"

namespace tessera::codelets::poplin {
namespace {

GemmFloatFn gGemm = nullptr;

/// Columns of the im2col panel built and multiplied at a time (the planner counts
/// inputChannels × kernelElements × this many floats of scratch per tile).
constexpr std::size_t kConvPanelColumns = 64;

struct ConvScratch {
  std::vector<float> col, weights, out, packed;
};
ConvScratch &convScratch() {
  thread_local ConvScratch s;
  return s;
}

/// Shape of one block's index tables, padded to three spatial dimensions. Missing dimensions
/// are leading ones of size 1 with the table {0}, so the innermost loop always runs along the
/// last real dimension.
struct BlockGeometry {
  std::array<unsigned, 3> kernel{1, 1, 1}, outSize{1, 1, 1}, inSize{1, 1, 1};
  std::array<const int *, 3> table{};
  static constexpr int kZero[1] = {0};

  BlockGeometry(unsigned dims, const int *indices, std::array<unsigned, 3> k,
                std::array<unsigned, 3> o, std::array<unsigned, 3> i) {
    const unsigned first = 3 - dims;
    for (unsigned s = 0; s < first; ++s)
      table[s] = kZero;
    for (unsigned d = 0; d < dims; ++d) {
      kernel[first + d] = k[d];
      outSize[first + d] = o[d];
      inSize[first + d] = i[d];
      table[first + d] = indices;
      indices += std::size_t(k[d]) * o[d];
    }
  }
  std::size_t kernelElements() const { return std::size_t(kernel[0]) * kernel[1] * kernel[2]; }
  std::size_t outPositions() const { return std::size_t(outSize[0]) * outSize[1] * outSize[2]; }
  std::size_t inPositions() const { return std::size_t(inSize[0]) * inSize[1] * inSize[2]; }
  /// A 1×1 kernel reading input position p for output position p in every dimension.
  bool isIdentity() const {
    for (unsigned d = 0; d < 3; ++d) {
      if (kernel[d] != 1 || inSize[d] != outSize[d])
        return false;
      for (unsigned x = 0; x < outSize[d]; ++x)
        if (table[d][x] != int(x))
          return false;
    }
    return true;
  }
};

/// Fills col[row][j - nBegin] (row = (ic, kernel element), row stride ld) for columns
/// [nBegin, nEnd) of n = (batch, output position). `in` is [ic][batch][input positions] for
/// one group. Positions are walked with counters (no division per element); each run along
/// the innermost output dimension is one gather through its table row.
template <class In>
void buildPanel(const BlockGeometry &geo, const In *in, unsigned ics, unsigned batch,
                std::size_t nBegin, std::size_t nEnd, float *col, std::size_t ld) {
  const std::size_t outPos = geo.outPositions(), inPos = geo.inPositions();
  const std::size_t kElems = geo.kernelElements();
  const std::size_t in12 = std::size_t(geo.inSize[1]) * geo.inSize[2];
  const unsigned o0 = geo.outSize[0], o1 = geo.outSize[1], o2 = geo.outSize[2];
  const std::size_t b0 = nBegin / outPos, pos0 = nBegin % outPos;
  const unsigned q0 = unsigned(pos0 / (std::size_t(o1) * o2)), q1 = unsigned(pos0 / o2 % o1),
                 q2 = unsigned(pos0 % o2);
  for (unsigned ic = 0; ic < ics; ++ic)
    for (std::size_t kp = 0; kp < kElems; ++kp) {
      const unsigned k0 = unsigned(kp / (std::size_t(geo.kernel[1]) * geo.kernel[2]));
      const unsigned k1 = unsigned(kp / geo.kernel[2] % geo.kernel[1]);
      const unsigned k2 = unsigned(kp % geo.kernel[2]);
      const int *t0 = geo.table[0] + std::size_t(k0) * o0;
      const int *t1 = geo.table[1] + std::size_t(k1) * o1;
      const int *t2 = geo.table[2] + std::size_t(k2) * o2;
      float *dst = col + (ic * kElems + kp) * ld;
      std::size_t b = b0;
      unsigned p0 = q0, p1 = q1, p2 = q2;
      for (std::size_t j = nBegin; j < nEnd;) {
        const std::size_t run = std::min<std::size_t>(nEnd - j, o2 - p2);
        const int i0 = t0[p0], i1 = t1[p1];
        if (i0 < 0 || i1 < 0) {
          std::fill(dst, dst + run, 0.0f);
        } else {
          const In *base = in + (std::size_t(ic) * batch + b) * inPos + std::size_t(i0) * in12 +
                           std::size_t(i1) * geo.inSize[2];
          const int *t = t2 + p2;
          // Runs are usually zeros (padding), then consecutive inputs, then zeros: copy those
          // as blocks; anything else (dilation, strides) is gathered element by element.
          std::size_t lead = 0, trail = 0;
          while (lead < run && t[lead] < 0)
            ++lead;
          while (trail < run - lead && t[run - 1 - trail] < 0)
            ++trail;
          const std::size_t mid = run - lead - trail;
          if (mid > 0 && std::size_t(t[lead + mid - 1] - t[lead]) == mid - 1) {
            std::fill(dst, dst + lead, 0.0f);
            const In *src = base + t[lead];
            for (std::size_t x = 0; x < mid; ++x)
              dst[lead + x] = static_cast<float>(src[x]);
            std::fill(dst + lead + mid, dst + run, 0.0f);
          } else {
            for (std::size_t x = 0; x < run; ++x)
              dst[x] = t[x] >= 0 ? static_cast<float>(base[t[x]]) : 0.0f;
          }
        }
        dst += run;
        j += run;
        p2 = 0;
        if (++p1 == o1) {
          p1 = 0;
          if (++p0 == o0) {
            p0 = 0;
            ++b;
          }
        }
      }
    }
}

/// Plain members shared by both vertex kinds.
struct ConvBlockShape {
  poplar::Vector<int> indices;
  unsigned dims;
  unsigned groups, outChans, inChans, batch;
  unsigned k0, k1, k2, o0, o1, o2, i0, i1, i2;

  BlockGeometry geometry() const {
    return BlockGeometry(dims, indices.data(), {k0, k1, k2}, {o0, o1, o2}, {i0, i1, i2});
  }
};

template <class In, class Out> class ConvBlock : public poplar::MultiVertex, public ConvBlockShape {
public:
  poplar::Input<poplar::Vector<In>> in;
  poplar::Input<poplar::Vector<In>> weights;
  poplar::Output<poplar::Vector<Out>> out;

  void compute(unsigned workerId) {
    const BlockGeometry geo = geometry();
    const std::size_t kRows = std::size_t(inChans) * geo.kernelElements();
    const std::size_t n = std::size_t(batch) * geo.outPositions();
    // Workers take whole 32-column units of n (the GEMM panel width).
    const std::size_t units = (n + kGemmColumnUnit - 1) / kGemmColumnUnit;
    const unsigned workers = numWorkers();
    const std::size_t nBegin = std::min(n, units * workerId / workers * kGemmColumnUnit);
    const std::size_t nEnd = std::min(n, units * (workerId + 1) / workers * kGemmColumnUnit);
    if (nBegin == nEnd)
      return;
    // The panel is built and multiplied kConvPanelColumns columns at a time, so the scratch
    // stays small whatever the block's width.
    const bool direct = geo.isIdentity();
    ConvScratch &s = convScratch();
    s.col.resize(kRows * std::min(kConvPanelColumns, nEnd - nBegin));
    s.packed.resize(gemmScratchFloats(kRows));
    for (unsigned g = 0; g < groups; ++g) {
      const float *a;
      const std::size_t wOffset = std::size_t(g) * outChans * kRows;
      if constexpr (std::is_same_v<In, float>) {
        a = weights.data() + wOffset;
      } else {
        s.weights.resize(outChans * kRows);
        for (std::size_t i = 0; i < s.weights.size(); ++i)
          s.weights[i] = static_cast<float>(weights[wOffset + i]);
        a = s.weights.data();
      }
      const In *inGroup = in.data() + std::size_t(g) * inChans * batch * geo.inPositions();
      const std::size_t oOffset = std::size_t(g) * outChans * n;
      for (std::size_t c0 = nBegin; c0 < nEnd; c0 += kConvPanelColumns) {
        const std::size_t c1 = std::min(nEnd, c0 + kConvPanelColumns), cols = c1 - c0;
        // A 1×1 unstrided, unpadded block's panel is its input: multiply it in place.
        const float *b = s.col.data();
        std::size_t ldb = cols;
        if constexpr (std::is_same_v<In, float>) {
          if (direct) {
            b = inGroup + c0;
            ldb = n;
          }
        }
        if (b == s.col.data())
          buildPanel(geo, inGroup, inChans, batch, c0, c1, s.col.data(), cols);
        if constexpr (std::is_same_v<Out, float>) {
          gGemm(outChans, cols, kRows, a, kRows, b, ldb, out.data() + oOffset + c0, n, false,
                s.packed.data());
        } else {
          s.out.resize(std::size_t(outChans) * cols);
          gGemm(outChans, cols, kRows, a, kRows, b, ldb, s.out.data(), cols, false,
                s.packed.data());
          for (unsigned oc = 0; oc < outChans; ++oc)
            for (std::size_t j = 0; j < cols; ++j)
              out[oOffset + oc * n + c0 + j] = static_cast<Out>(s.out[oc * cols + j]);
        }
      }
    }
  }

  /// 2 fp32 MACs per cycle per worker plus one cycle per panel element built.
  std::uint64_t cycleEstimate() const {
    const BlockGeometry geo = geometry();
    const std::uint64_t k = std::uint64_t(inChans) * geo.kernelElements();
    const std::uint64_t n = std::uint64_t(batch) * geo.outPositions();
    return 60 + std::uint64_t(groups) * (outChans * k * n / 2 + k * n);
  }
};

template <class In> class ConvWeightGradBlock : public poplar::MultiVertex, public ConvBlockShape {
public:
  poplar::Input<poplar::Vector<In>> zDeltas;
  poplar::Input<poplar::Vector<In>> in;
  poplar::Output<poplar::Vector<float>> out;

  void compute(unsigned workerId) {
    // One panel per group serves every output channel, so one worker does the
    // block (the cycle estimate counts it that way) rather than building the panel six times.
    if (workerId != 0)
      return;
    const BlockGeometry geo = geometry();
    const std::size_t kCols = std::size_t(inChans) * geo.kernelElements();
    const std::size_t n = std::size_t(batch) * geo.outPositions();
    // dWᵀ[k][oc] = col[k][n] · zᵀ[n][oc]: the panel is built in its natural (fast) order and
    // only the smaller zDeltas block and the result are transposed.
    ConvScratch &s = convScratch();
    const std::size_t chunk = std::min(kConvPanelColumns, n);
    s.col.resize(kCols * chunk);
    s.weights.resize(chunk * outChans);
    s.out.resize(kCols * outChans);
    s.packed.resize(gemmScratchFloats(chunk));
    for (unsigned g = 0; g < groups; ++g) {
      const In *inGroup = in.data() + std::size_t(g) * inChans * batch * geo.inPositions();
      const In *z = zDeltas.data() + std::size_t(g) * outChans * n;
      // Consecutive accumulating calls over n chunks make the same FMA chain as one call.
      for (std::size_t c0 = 0; c0 < n; c0 += chunk) {
        const std::size_t c1 = std::min(n, c0 + chunk), cols = c1 - c0;
        buildPanel(geo, inGroup, inChans, batch, c0, c1, s.col.data(), cols);
        for (unsigned oc = 0; oc < outChans; ++oc)
          for (std::size_t j = 0; j < cols; ++j)
            s.weights[j * outChans + oc] = static_cast<float>(z[oc * n + c0 + j]);
        gGemm(kCols, outChans, cols, s.col.data(), cols, s.weights.data(), outChans, s.out.data(),
              outChans, c0 > 0, s.packed.data());
      }
      float *dst = out.data() + std::size_t(g) * outChans * kCols;
      for (unsigned oc = 0; oc < outChans; ++oc)
        for (std::size_t k = 0; k < kCols; ++k)
          dst[oc * kCols + k] = s.out[k * outChans + oc];
    }
  }

  std::uint64_t cycleEstimate() const {
    const BlockGeometry geo = geometry();
    const std::uint64_t k = std::uint64_t(inChans) * geo.kernelElements();
    const std::uint64_t n = std::uint64_t(batch) * geo.outPositions();
    return 60 + std::uint64_t(groups) * (outChans * k * n / 2 + k * n) * 6;
  }
};

template <class V> tessera::VertexTypeBuilder<V> &shapeFields(tessera::VertexTypeBuilder<V> &b) {
  return b.field("indices", &V::indices)
      .field("dims", &V::dims)
      .field("groups", &V::groups)
      .field("outChans", &V::outChans)
      .field("inChans", &V::inChans)
      .field("batch", &V::batch)
      .field("k0", &V::k0)
      .field("k1", &V::k1)
      .field("k2", &V::k2)
      .field("o0", &V::o0)
      .field("o1", &V::o1)
      .field("o2", &V::o2)
      .field("i0", &V::i0)
      .field("i1", &V::i1)
      .field("i2", &V::i2);
}

template <class In, class Out> void registerConvBlock(const char *name) {
  using V = ConvBlock<In, Out>;
  tessera::VertexTypeBuilder<V> b(name);
  shapeFields(b).field("in", &V::in).field("weights", &V::weights).field("out", &V::out).add();
}

template <class In> void registerWeightGrad(const char *name) {
  using V = ConvWeightGradBlock<In>;
  tessera::VertexTypeBuilder<V> b(name);
  shapeFields(b).field("zDeltas", &V::zDeltas).field("in", &V::in).field("out", &V::out).add();
}

} // namespace

void registerConvVertices() {
  gGemm = gemmFloatKernel();
  registerConvBlock<float, float>("poplin::ConvBlock<float,float>");
  registerConvBlock<float, poplar::half>("poplin::ConvBlock<float,half>");
  registerConvBlock<poplar::half, float>("poplin::ConvBlock<half,float>");
  registerConvBlock<poplar::half, poplar::half>("poplin::ConvBlock<half,half>");
  registerWeightGrad<float>("poplin::ConvWeightGradBlock<float>");
  registerWeightGrad<poplar::half>("poplin::ConvWeightGradBlock<half>");
}

} // namespace tessera::codelets::poplin
