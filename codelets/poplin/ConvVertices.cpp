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
// Stride-1 blocks (ConvPlane.hpp) skip the panel when that pays: their im2col rows are shifted
// views of a zero-padded copy of `in`, multiplied in place (kernels/ConvKernels.hpp).
//
// Blocks with one output channel per group (depthwise convolutions) have nothing for a GEMM to
// reuse: their plane rows go to a per-line stencil (forward, input gradient) or a per-kernel-row
// dot product (weight gradient) over the real outputs only.
//
// Every element is one fixed-order FMA chain (the GEMM kernel's contract), so the worker split
// and the host thread count never change results. HALF is widened to fp32 in scratch and a
// HALF output is rounded once.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "poplin/AmpRate.hpp"
#include "poplin/ConvGeometry.hpp"
#include "poplin/ConvPanel.hpp"
#include "poplin/ConvPhasePlane.hpp"
#include "poplin/ConvPhases.hpp"
#include "poplin/ConvPlane.hpp"
#include "poplin/PoplinCodelets.hpp"
#include "poplin/Transpose.hpp"
#include "poplin/kernels/ConvKernels.hpp"
#include "poplin/kernels/GemmKernels.hpp"

namespace tessera::codelets::poplin {
namespace {

using conv::BlockGeometry;
using conv::buildPanel;

GemmFloatFn gGemm = nullptr;
IndirectGemmFn gIndirectGemm = nullptr;
GemmRowsPackedFn gRowsGemm = nullptr;
LineGemmFn gLineGemm = nullptr;
InterleavePhasesFn gInterleavePhases = nullptr;
StencilFn gStencil = nullptr;
StencilDotFn gStencilDot = nullptr;

/// Columns of the im2col panel built and multiplied at a time (the planner counts
/// inputChannels × kernelElements × this many floats of scratch per tile, or the padded plane
/// if that is larger).
constexpr std::size_t kConvPanelColumns = 64;

struct ConvScratch {
  std::vector<float> col, weights, out, packed, plane, zPadded, result, phaseWeights;
  std::vector<const float *> rows, zRows;
  std::vector<std::size_t> columns;
  // One output phase of the innermost dimension each: im2col rows, weight columns, results.
  std::vector<std::vector<const float *>> phaseRows;
  std::vector<std::vector<std::size_t>> phaseColumns;
  std::vector<float> phaseOut, line;
};

/// The plane column of every output line, in output order (line l's outputs start at l · len).
const std::vector<std::size_t> &lineColumns(const std::vector<conv::PlaneLine> &lines,
                                            ConvScratch &s) {
  s.columns.resize(lines.size());
  for (std::size_t l = 0; l < lines.size(); ++l)
    s.columns[l] = lines[l].column;
  return s.columns;
}
ConvScratch &convScratch() {
  thread_local ConvScratch s;
  return s;
}

/// Copying a panel element costs about this many output-channel multiply-adds (one SIMD FMA
/// is 32 of them per cycle; a panel element is about a cycle): multiplying the plane in place
/// wins while the columns it computes between real outputs cost less than the panel it saves.
constexpr double kPanelElementMacs = 32;

bool multiplyInPlace(const conv::PaddedPlane &plane, unsigned outChans) {
  return double(outChans) * (1.0 / plane.efficiency() - 1.0) < kPanelElementMacs;
}

/// Groups consecutive output lines into chunks of at most kPlaneChunkColumns plane columns (or
/// one line, if longer): f(firstLine, endLine, firstColumn, columns).
constexpr std::size_t kPlaneChunkColumns = 512;
template <class F>
void forEachChunk(const std::vector<conv::PlaneLine> &lines, std::size_t length, F &&f) {
  for (std::size_t l0 = 0; l0 < lines.size();) {
    std::size_t l1 = l0 + 1;
    while (l1 < lines.size() && lines[l1].column + length - lines[l0].column <= kPlaneChunkColumns)
      ++l1;
    const std::size_t first = lines[l0].column;
    f(l0, l1, first, lines[l1 - 1].column + length - first);
    l0 = l1;
  }
}

/// Compact output columns per phase computed before they are interleaved into the output.
constexpr std::size_t kPhaseChunkColumns = 512;

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
    // Worker 0 does the whole block: the host runs a tile's workers one after another, and one
    // plane (or weight conversion) then serves every column. The cycle estimate still models
    // the six workers sharing the columns.
    if (workerId != 0)
      return;
    const BlockGeometry geo = geometry();
    const std::size_t kRows = std::size_t(inChans) * geo.kernelElements();
    const std::size_t n = std::size_t(batch) * geo.outPositions();
    const bool direct = geo.isIdentity();
    if (!direct) {
      if (const conv::PaddedPlane plane(geo, batch); plane.eligible())
        return computeFromPlane(plane, kRows, n);
      if (computeByPhases(geo, n))
        return;
    }
    // The panel is built and multiplied kConvPanelColumns columns at a time, so the scratch
    // stays small whatever the block's width.
    ConvScratch &s = convScratch();
    s.col.resize(kRows * std::min(kConvPanelColumns, n));
    s.packed.resize(gemmScratchFloats(kRows));
    for (unsigned g = 0; g < groups; ++g) {
      const float *a = groupWeights(g, kRows, s);
      const In *inGroup = in.data() + std::size_t(g) * inChans * batch * geo.inPositions();
      for (std::size_t c0 = 0; c0 < n; c0 += kConvPanelColumns) {
        const std::size_t c1 = std::min(n, c0 + kConvPanelColumns), cols = c1 - c0;
        // A 1×1 unstrided, unpadded block's panel is its input: multiply it in place.
        if constexpr (std::is_same_v<In, float>) {
          if (direct) {
            multiply(g, a, kRows, inGroup + c0, n, c0, cols, n, s);
            continue;
          }
        }
        buildPanel(geo, inGroup, inChans, batch, c0, c1, s.col.data(), cols);
        multiply(g, a, kRows, s.col.data(), cols, c0, cols, n, s);
      }
    }
  }

  /// A block whose tables a plane serves.
  void computeFromPlane(const conv::PaddedPlane &plane, std::size_t kRows, std::size_t n) {
    ConvScratch &s = convScratch();
    const std::size_t inGroupSize = std::size_t(inChans) * batch * geometry().inPositions();
    for (unsigned g = 0; g < groups; ++g) {
      const float *a = groupWeights(g, kRows, s);
      plane.fill(in.data() + g * inGroupSize, inChans, s.plane, kIndirectColumnUnit);
      plane.rows(s.plane.data(), inChans, s.rows);
      Out *outGroup = out.data() + std::size_t(g) * outChans * n;
      if constexpr (std::is_same_v<Out, float>) {
        planeProduct(plane, a, kRows, n, outGroup, n, s);
      } else {
        s.result.resize(std::size_t(outChans) * n);
        planeProduct(plane, a, kRows, n, s.result.data(), n, s);
        store(s.result.data(), outGroup, s.result.size());
      }
    }
  }

  /// Input-dilated dimensions through one shared plane (ConvPhasePlane.hpp): per combination
  /// of outer-dimension phases, each innermost phase multiplies its rows in place with its
  /// weights picked by column, and the phases' results interleave into the output lines.
  /// Returns false, having written nothing, when the plane cannot serve the block.
  bool computeBySharedPlane(const BlockGeometry &geo, const conv::ConvPhases &split,
                            std::size_t n) {
    const conv::PhasePlane plane(geo, split, batch);
    if (!plane.eligible())
      return false;
    ConvScratch &s = convScratch();
    const std::size_t kRows = std::size_t(inChans) * geo.kernelElements();
    const std::size_t inGroupSize = std::size_t(inChans) * batch * geo.inPositions();
    const auto &period = split.period();
    const auto &ph0 = split.phases(0), &ph1 = split.phases(1), &ph2 = split.phases(2);
    const std::size_t p2 = period[2], o2 = geo.outSize[2], longest = ph2.front().count;
    s.phaseRows.resize(ph2.size());
    s.phaseColumns.resize(ph2.size());
    s.packed.resize(lineGemmScratchFloats(kRows));
    s.line.resize(o2);
    std::vector<const float *> src(p2, nullptr);
    std::vector<std::size_t> linePlaneColumns;
    std::vector<std::size_t> lineOutputs;
    for (unsigned g = 0; g < groups; ++g) {
      const float *a = groupWeights(g, kRows, s);
      Out *outGroup = out.data() + std::size_t(g) * outChans * n;
      plane.fill(in.data() + g * inGroupSize, inChans, s.plane, kIndirectColumnUnit);
      for (std::size_t i0 = 0; i0 < ph0.size(); ++i0)
        for (std::size_t i1 = 0; i1 < ph1.size(); ++i1) {
          const conv::DimPhase &q0 = ph0[i0], &q1 = ph1[i1];
          // The output lines of this outer combination, in output order, and their plane columns.
          linePlaneColumns.clear();
          lineOutputs.clear();
          for (unsigned b = 0; b < batch; ++b)
            for (unsigned m0 = 0; m0 < q0.count; ++m0)
              for (unsigned m1 = 0; m1 < q1.count; ++m1) {
                linePlaneColumns.push_back(plane.lineColumn(b, m0, m1));
                lineOutputs.push_back(
                    ((std::size_t(b) * geo.outSize[0] + q0.first + period[0] * m0) *
                         geo.outSize[1] +
                     q1.first + period[1] * m1) *
                    o2);
              }
          bool any = false;
          for (std::size_t i2 = 0; i2 < ph2.size(); ++i2) {
            s.phaseRows[i2].clear();
            if (!q0.kernel.empty() && !q1.kernel.empty() && !ph2[i2].kernel.empty()) {
              plane.rows(s.plane.data(), inChans, {i0, i1, i2}, s.phaseRows[i2],
                         s.phaseColumns[i2]);
              any = true;
            }
          }
          if (!any) { // no kernel element meets these outputs
            for (unsigned oc = 0; oc < outChans; ++oc)
              for (std::size_t at : lineOutputs)
                std::fill_n(outGroup + oc * n + at, o2, Out(0.0f));
            continue;
          }
          // Chunks of lines whose results stay in cache until they are interleaved.
          const std::size_t chunkLines = std::max<std::size_t>(1, kPhaseChunkColumns / longest);
          for (std::size_t l0 = 0; l0 < linePlaneColumns.size(); l0 += chunkLines) {
            const std::size_t l1 = std::min(linePlaneColumns.size(), l0 + chunkLines);
            const std::size_t ld = ((l1 - l0) * longest + kIndirectColumnUnit - 1) /
                                   kIndirectColumnUnit * kIndirectColumnUnit;
            s.phaseOut.resize(ph2.size() * outChans * ld);
            for (std::size_t i2 = 0; i2 < ph2.size(); ++i2)
              if (!s.phaseRows[i2].empty())
                gLineGemm(outChans, l1 - l0, ph2[i2].count, linePlaneColumns.data() + l0,
                          s.phaseRows[i2].size(), a, kRows, s.phaseColumns[i2].data(),
                          s.phaseRows[i2].data(), s.phaseOut.data() + i2 * outChans * ld, ld,
                          s.packed.data());
            for (unsigned oc = 0; oc < outChans; ++oc)
              for (std::size_t l = l0; l < l1; ++l) {
                for (std::size_t i2 = 0; i2 < ph2.size(); ++i2)
                  src[i2] = s.phaseRows[i2].empty()
                                ? nullptr
                                : s.phaseOut.data() + (i2 * outChans + oc) * ld +
                                      (l - l0) * ph2[i2].count;
                Out *dst = outGroup + oc * n + lineOutputs[l];
                if constexpr (std::is_same_v<Out, float>) {
                  gInterleavePhases(p2, o2, src.data(), dst);
                } else {
                  gInterleavePhases(p2, o2, src.data(), s.line.data());
                  store(s.line.data(), dst, o2);
                }
              }
          }
        }
    }
    return true;
  }

  /// Input-dilated dimensions: each combination of output phases through its own plane, in
  /// compact order, then out to its outputs. Returns false, having written nothing, when some
  /// phase's geometry has no plane.
  bool computeByPhases(const BlockGeometry &geo, std::size_t n) {
    const conv::ConvPhases split(geo);
    if (!split.split())
      return false;
    // Depthwise blocks keep their per-phase stencil, which computes real outputs only.
    if (outChans > 1 && computeBySharedPlane(geo, split, n))
      return true;
    // Every combination of one phase per dimension; those some kernel never meets are zeros.
    std::vector<std::array<const conv::DimPhase *, 3>> combos;
    for (const auto &p0 : split.phases(0))
      for (const auto &p1 : split.phases(1))
        for (const auto &p2 : split.phases(2))
          combos.push_back({&p0, &p1, &p2});
    std::vector<BlockGeometry> geos;
    std::vector<conv::PaddedPlane> planes;
    geos.reserve(combos.size());
    planes.reserve(combos.size());
    for (const auto &combo : combos) {
      geos.push_back(conv::ConvPhases::geometry(geo, combo));
      planes.emplace_back(geos.back(), batch);
      if (geos.back().kernelElements() > 0 && !planes.back().eligible())
        return false;
    }
    ConvScratch &s = convScratch();
    const std::size_t kElems = geo.kernelElements(), kRows = std::size_t(inChans) * kElems;
    const std::size_t inGroupSize = std::size_t(inChans) * batch * geo.inPositions();
    const auto &period = split.period();
    for (unsigned g = 0; g < groups; ++g) {
      const float *a = groupWeights(g, kRows, s);
      Out *outGroup = out.data() + std::size_t(g) * outChans * n;
      for (std::size_t c = 0; c < combos.size(); ++c) {
        const BlockGeometry &pg = geos[c];
        const std::size_t nPhase = std::size_t(batch) * pg.outPositions();
        s.result.assign(std::size_t(outChans) * nPhase, 0.0f);
        if (pg.kernelElements() > 0) {
          const std::size_t kPhase = std::size_t(inChans) * pg.kernelElements();
          const float *w = phaseWeights(a, kRows, geo, combos[c], s);
          planes[c].fill(in.data() + g * inGroupSize, inChans, s.plane, kIndirectColumnUnit);
          planes[c].rows(s.plane.data(), inChans, s.rows);
          planeProduct(planes[c], w, kPhase, nPhase, s.result.data(), nPhase, s);
        }
        // Compact output (b, m0, m1, m2) is output (b, φ0 + s0·m0, φ1 + s1·m1, φ2 + s2·m2).
        const auto &[p0, p1, p2] = combos[c];
        for (unsigned oc = 0; oc < outChans; ++oc) {
          const float *src = s.result.data() + oc * nPhase;
          Out *dst = outGroup + oc * n;
          for (unsigned b = 0; b < batch; ++b)
            for (unsigned m0 = 0; m0 < p0->count; ++m0)
              for (unsigned m1 = 0; m1 < p1->count; ++m1) {
                const std::size_t line =
                    ((std::size_t(b) * geo.outSize[0] + p0->first + period[0] * m0) *
                         geo.outSize[1] +
                     p1->first + period[1] * m1) *
                        geo.outSize[2] +
                    p2->first;
                for (unsigned m2 = 0; m2 < p2->count; ++m2)
                  dst[line + std::size_t(period[2]) * m2] = static_cast<Out>(*src++);
              }
        }
      }
    }
    return true;
  }

  /// The weights of one combination of phases, columns (ic, its kernel elements): the
  /// group's own when every dimension keeps its whole kernel.
  const float *phaseWeights(const float *a, std::size_t kRows, const BlockGeometry &geo,
                            const std::array<const conv::DimPhase *, 3> &combo,
                            ConvScratch &s) const {
    const auto &[p0, p1, p2] = combo;
    if (p0->kernel.size() == geo.kernel[0] && p1->kernel.size() == geo.kernel[1] &&
        p2->kernel.size() == geo.kernel[2])
      return a;
    const std::size_t kElems = geo.kernelElements();
    s.phaseWeights.resize(std::size_t(outChans) * inChans * p0->kernel.size() * p1->kernel.size() *
                          p2->kernel.size());
    float *w = s.phaseWeights.data();
    for (unsigned oc = 0; oc < outChans; ++oc)
      for (unsigned ic = 0; ic < inChans; ++ic) {
        const float *row = a + oc * kRows + ic * kElems;
        for (unsigned k0 : p0->kernel)
          for (unsigned k1 : p1->kernel)
            for (unsigned k2 : p2->kernel)
              *w++ = row[(std::size_t(k0) * geo.kernel[1] + k1) * geo.kernel[2] + k2];
      }
    return s.phaseWeights.data();
  }

  /// dst[oc][j] = Σ_k a[oc][k] · row k [j] for the plane's outputs j < n (rows in s.rows): the
  /// rows multiplied in place, or copied into a compact panel when too many plane columns
  /// between outputs would be computed for nothing.
  void planeProduct(const conv::PaddedPlane &plane, const float *a, std::size_t kRows,
                    std::size_t n, float *dst, std::size_t ldDst, ConvScratch &s) {
    const std::vector<conv::PlaneLine> lines = plane.lines();
    const std::size_t length = plane.lineLength();
    if (outChans == 1) {
      // The same FMA chain per element as the GEMM's single row, over real outputs only.
      gStencil(lines.size(), length, lineColumns(lines, s).data(), kRows, a, s.rows.data(), dst);
      return;
    }
    s.packed.resize(std::max(kRows * kIndirectColumnUnit, gemmScratchFloats(kRows)));
    if (!multiplyInPlace(plane, outChans)) {
      s.col.resize(kRows * std::min(kConvPanelColumns, n));
      for (std::size_t c0 = 0; c0 < n; c0 += kConvPanelColumns) {
        const std::size_t c1 = std::min(n, c0 + kConvPanelColumns), cols = c1 - c0;
        plane.panel(s.rows, lines, c0, c1, s.col.data(), cols);
        gGemm(outChans, cols, kRows, a, kRows, s.col.data(), cols, dst + c0, ldDst, false,
              s.packed.data());
      }
      return;
    }
    forEachChunk(lines, length,
                 [&](std::size_t l0, std::size_t l1, std::size_t first, std::size_t columns) {
                   const std::size_t ld = (columns + kIndirectColumnUnit - 1) /
                                          kIndirectColumnUnit * kIndirectColumnUnit;
                   s.out.resize(std::size_t(outChans) * ld);
                   gIndirectGemm(outChans, columns, kRows, a, kRows, s.rows.data(), first,
                                 s.out.data(), ld, s.packed.data());
                   for (std::size_t l = l0; l < l1; ++l)
                     for (unsigned oc = 0; oc < outChans; ++oc)
                       std::memcpy(dst + oc * ldDst + lines[l].output,
                                   s.out.data() + oc * ld + (lines[l].column - first),
                                   length * sizeof(float));
                 });
  }

  /// out[g][oc][c0 + j] = Σ_k a[oc][k] · b[k][j] for j < cols.
  void multiply(unsigned g, const float *a, std::size_t kRows, const float *b, std::size_t ldb,
                std::size_t c0, std::size_t cols, std::size_t n, ConvScratch &s) {
    const std::size_t oOffset = std::size_t(g) * outChans * n;
    if constexpr (std::is_same_v<Out, float>) {
      gGemm(outChans, cols, kRows, a, kRows, b, ldb, out.data() + oOffset + c0, n, false,
            s.packed.data());
    } else {
      s.out.resize(std::size_t(outChans) * cols);
      gGemm(outChans, cols, kRows, a, kRows, b, ldb, s.out.data(), cols, false, s.packed.data());
      for (unsigned oc = 0; oc < outChans; ++oc)
        store(s.out.data() + oc * cols, out.data() + oOffset + oc * n + c0, cols);
    }
  }

  static void store(const float *src, Out *dst, std::size_t count) {
    if constexpr (std::is_same_v<Out, float>)
      std::memcpy(dst, src, count * sizeof(float));
    else
      for (std::size_t x = 0; x < count; ++x)
        dst[x] = static_cast<Out>(src[x]);
  }

  /// Group g's weights [oc][k] as fp32 (in place for FLOAT, widened into scratch for HALF).
  const float *groupWeights(unsigned g, std::size_t kRows, ConvScratch &s) const {
    const std::size_t wOffset = std::size_t(g) * outChans * kRows;
    if constexpr (std::is_same_v<In, float>) {
      return weights.data() + wOffset;
    } else {
      s.weights.resize(outChans * kRows);
      for (std::size_t i = 0; i < s.weights.size(); ++i)
        s.weights[i] = static_cast<float>(weights[wOffset + i]);
      return s.weights.data();
    }
  }

  /// The products at the AMP rate (AmpRate.hpp) plus each worker's share of the input panel,
  /// two elements a cycle.
  std::uint64_t cycleEstimate() const {
    const BlockGeometry geo = geometry();
    const std::uint64_t k = std::uint64_t(inChans) * geo.kernelElements();
    const std::uint64_t n = std::uint64_t(batch) * geo.outPositions();
    return 60 + ampWorkerCycles<In>(std::uint64_t(groups) * outChans * k * n) +
           std::uint64_t(groups) * k * n / 12;
  }
};

template <class In> class ConvWeightGradBlock : public poplar::MultiVertex, public ConvBlockShape {
public:
  poplar::Input<poplar::Vector<In>> zDeltas;
  poplar::Input<poplar::Vector<In>> in;
  poplar::Output<poplar::Vector<float>> out;

  void compute(unsigned workerId) {
    // One panel (or plane) per group serves every output channel, so one worker does the
    // block (the cycle estimate counts it that way) rather than building the panel six times.
    if (workerId != 0)
      return;
    const BlockGeometry geo = geometry();
    const std::size_t kCols = std::size_t(inChans) * geo.kernelElements();
    const std::size_t n = std::size_t(batch) * geo.outPositions();
    const std::size_t inGroupSize = std::size_t(inChans) * batch * geo.inPositions();
    ConvScratch &s = convScratch();
    const conv::PaddedPlane plane(geo, batch);
    if (!plane.eligible()) {
      fromPanels(n, kCols, [&](unsigned g, std::size_t c0, std::size_t c1) {
        buildPanel(geo, in.data() + g * inGroupSize, inChans, batch, c0, c1, s.col.data(), c1 - c0);
      });
      return;
    }
    const std::vector<conv::PlaneLine> lines = plane.lines();
    if (outChans == 1)
      return fromStencil(plane, lines, n, kCols, inGroupSize);
    if (!multiplyInPlace(plane, outChans)) {
      fromPanels(n, kCols, [&](unsigned g, std::size_t c0, std::size_t c1) {
        if (c0 == 0) {
          plane.fill(in.data() + g * inGroupSize, inChans, s.plane, 0);
          plane.rows(s.plane.data(), inChans, s.rows);
        }
        plane.panel(s.rows, lines, c0, c1, s.col.data(), c1 - c0);
      });
      return;
    }
    // dW[oc][k] = Σ_q zPadded[oc][q] · row k [q] over the plane's columns, zDeltas spread into
    // plane columns with zeros between real outputs: one GEMM whose A rows are read in place
    // and whose B is the other operand transposed into the kernel's packed panels. Which
    // operand is transposed is chosen to transpose the least per multiply-add: zDeltas (then
    // A is the plane rows and the small result comes out transposed) when the block has more
    // kernel columns than output channels, else the plane rows. Both give every element the
    // same chain over q, so the choice never changes a bit.
    const std::size_t columns = plane.columns(), length = plane.lineLength();
    const bool transposeZ = kCols >= outChans;
    for (unsigned g = 0; g < groups; ++g) {
      plane.fill(in.data() + g * inGroupSize, inChans, s.plane, 0);
      plane.rows(s.plane.data(), inChans, s.rows);
      const In *z = zDeltas.data() + std::size_t(g) * outChans * n;
      float *dW = out.data() + std::size_t(g) * outChans * kCols;
      if (transposeZ) {
        packTransposed(
            outChans, columns,
            [&](std::size_t oc0, std::size_t lanes, float *panel) {
              for (const conv::PlaneLine &line : lines)
                transpose([&](std::size_t i) { return z + (oc0 + i) * n + line.output; }, lanes,
                          length, panel + line.column * kGemmColumnUnit, kGemmColumnUnit);
            },
            s.zPadded);
        s.result.resize(kCols * outChans);
        gRowsGemm(kCols, outChans, columns, s.rows.data(), s.zPadded.data(), s.result.data(),
                  outChans, false);
        transpose([&](std::size_t k) { return s.result.data() + k * outChans; }, kCols, outChans,
                  dW, kCols);
        continue;
      }
      s.zPadded.assign(std::size_t(outChans) * columns, 0.0f);
      s.zRows.resize(outChans);
      for (unsigned oc = 0; oc < outChans; ++oc) {
        float *row = s.zPadded.data() + oc * columns;
        s.zRows[oc] = row;
        for (const conv::PlaneLine &line : lines) {
          const In *from = z + oc * n + line.output;
          if constexpr (std::is_same_v<In, float>)
            std::memcpy(row + line.column, from, length * sizeof(float));
          else
            for (std::size_t x = 0; x < length; ++x)
              row[line.column + x] = static_cast<float>(from[x]);
        }
      }
      packTransposed(
          kCols, columns,
          [&](std::size_t k0, std::size_t lanes, float *panel) {
            transpose([&](std::size_t i) { return s.rows[k0 + i]; }, lanes, columns, panel,
                      kGemmColumnUnit);
          },
          s.col);
      gRowsGemm(outChans, kCols, columns, s.zRows.data(), s.col.data(), dW, kCols, false);
    }
  }

  /// Fills `packed` with the GEMM kernel's panels of B[q][j] for q < depth, j < width (zero
  /// past width or where fill leaves it): fill(j0, count, panel) writes columns [j0, j0 +
  /// count) into a panel of depth rows of kGemmColumnUnit floats.
  template <class Fill>
  static void packTransposed(std::size_t width, std::size_t depth, Fill &&fill,
                             std::vector<float> &packed) {
    const std::size_t panels = (width + kGemmColumnUnit - 1) / kGemmColumnUnit;
    packed.assign(panels * depth * kGemmColumnUnit, 0.0f);
    for (std::size_t p = 0; p < panels; ++p) {
      const std::size_t j0 = p * kGemmColumnUnit;
      fill(j0, std::min(kGemmColumnUnit, width - j0), packed.data() + p * depth * kGemmColumnUnit);
    }
  }

  /// One output channel per group: dW[k] = Σ_j z[j] · row k [output j] over the real outputs,
  /// line by line from the plane.
  void fromStencil(const conv::PaddedPlane &plane, const std::vector<conv::PlaneLine> &lines,
                   std::size_t n, std::size_t kCols, std::size_t inGroupSize) {
    ConvScratch &s = convScratch();
    const std::vector<std::size_t> &columns = lineColumns(lines, s);
    s.zPadded.resize(n + kIndirectColumnUnit);
    std::fill(s.zPadded.begin() + std::ptrdiff_t(n), s.zPadded.end(), 0.0f);
    for (unsigned g = 0; g < groups; ++g) {
      plane.fill(in.data() + g * inGroupSize, inChans, s.plane, kIndirectColumnUnit);
      plane.rows(s.plane.data(), inChans, s.rows);
      const In *z = zDeltas.data() + std::size_t(g) * n;
      for (std::size_t j = 0; j < n; ++j)
        s.zPadded[j] = static_cast<float>(z[j]);
      gStencilDot(lines.size(), plane.lineLength(), columns.data(), kCols, s.zPadded.data(),
                  s.rows.data(), out.data() + std::size_t(g) * kCols);
    }
  }

  /// dWᵀ[k][oc] = col[k][n] · zᵀ[n][oc], with buildPanel(g, c0, c1) writing columns [c0, c1)
  /// of group g's panel into the scratch: the panel is built in its natural (fast) order and
  /// only the smaller zDeltas block and the result are transposed.
  template <class BuildPanel>
  void fromPanels(std::size_t n, std::size_t kCols, BuildPanel &&build) {
    ConvScratch &s = convScratch();
    const std::size_t chunk = std::min(kConvPanelColumns, n);
    s.col.resize(kCols * chunk);
    s.weights.resize(chunk * outChans);
    s.out.resize(kCols * outChans);
    s.packed.resize(gemmScratchFloats(chunk));
    for (unsigned g = 0; g < groups; ++g) {
      const In *z = zDeltas.data() + std::size_t(g) * outChans * n;
      // Consecutive accumulating calls over n chunks make the same FMA chain as one call.
      for (std::size_t c0 = 0; c0 < n; c0 += chunk) {
        const std::size_t c1 = std::min(n, c0 + chunk), cols = c1 - c0;
        build(g, c0, c1);
        transpose([&](std::size_t oc) { return z + oc * n + c0; }, outChans, cols, s.weights.data(),
                  outChans);
        gGemm(kCols, outChans, cols, s.col.data(), cols, s.weights.data(), outChans, s.out.data(),
              outChans, c0 > 0, s.packed.data());
      }
      transpose([&](std::size_t k) { return s.out.data() + k * outChans; }, kCols, outChans,
                out.data() + std::size_t(g) * outChans * kCols, kCols);
    }
  }

  /// As the forward block: the products at the AMP rate, plus building and transposing each
  /// worker's share of the panels.
  std::uint64_t cycleEstimate() const {
    const BlockGeometry geo = geometry();
    const std::uint64_t k = std::uint64_t(inChans) * geo.kernelElements();
    const std::uint64_t n = std::uint64_t(batch) * geo.outPositions();
    return 60 + ampWorkerCycles<In>(std::uint64_t(groups) * outChans * k * n) +
           std::uint64_t(groups) * (k * n + outChans * n) / 12;
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
  gIndirectGemm = indirectGemmKernel();
  gRowsGemm = gemmRowsPackedKernel();
  gLineGemm = lineGemmKernel();
  gInterleavePhases = interleavePhasesKernel();
  gStencil = stencilKernel();
  gStencilDot = stencilDotKernel();
  registerConvBlock<float, float>("poplin::ConvBlock<float,float>");
  registerConvBlock<float, poplar::half>("poplin::ConvBlock<float,half>");
  registerConvBlock<poplar::half, float>("poplin::ConvBlock<half,float>");
  registerConvBlock<poplar::half, poplar::half>("poplin::ConvBlock<half,half>");
  registerWeightGrad<float>("poplin::ConvWeightGradBlock<float>");
  registerWeightGrad<poplar::half>("poplin::ConvWeightGradBlock<half>");
}

} // namespace tessera::codelets::poplin
