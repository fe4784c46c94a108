// Written once with Highway, compiled for each enabled target, dispatched at run time.
//
// IndirectGemm: GemmKernels' register blocking (an MR×NR accumulator tile, NR = 2 vectors of
// columns, one broadcast of A and two FMAs per row and k step) with each B row fetched through
// its own pointer. When several row tiles reuse a panel it is first copied into k contiguous
// rows, so the reuse comes from L1 rather than from rows scattered over the input plane.
//
// LineGemm: the same register blocking for one output phase of an input-dilated block: the
// panel is packed from whole output lines of a shared plane (no padding columns between them),
// and A's columns are picked through a list (the phase's kernel elements).
//
// InterleavePhases: the phases' compact lines back into real output lines (StoreInterleaved2
// for stride 2).
//
// Stencil / StencilDot: one output channel (depthwise convolutions): no GEMM blocking to gain,
// so each output line is computed straight from the in-place rows, two vectors of columns per
// step, and the weight gradient keeps one accumulator vector per kernel row across all lines.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "poplin/kernels/ConvKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>

#include "common/Dispatch.hpp"
#include "poplin/kernels/ConvKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::poplin {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3_ZEN4
constexpr std::size_t kRowsPerTile = 8;
#else
constexpr std::size_t kRowsPerTile = 6;
#endif

/// Where row p of the current B panel starts: a packed panel, or the rows in place.
struct PanelRows {
  const float *packed;
  const float *const *rows;
  std::size_t offset;
  const float *operator()(std::size_t p, std::size_t nr) const {
    return packed ? packed + p * nr : rows[p] + offset;
  }
};

/// A's element (row r, step p): dense columns, or the columns a list picks (the weights of one
/// output phase, whose kernel elements are a subset of the block's).
struct DenseA {
  const float *a;
  std::size_t lda;
  const float *row(std::size_t r) const { return a + r * lda; }
  std::size_t column(std::size_t p) const { return p; }
};
struct PickedA {
  const float *a;
  std::size_t lda;
  const std::size_t *columns;
  const float *row(std::size_t r) const { return a + r * lda; }
  std::size_t column(std::size_t p) const { return columns[p]; }
};

template <std::size_t R, class A>
HWY_INLINE void IndirectTile(std::size_t k, const A &a, const PanelRows &panel,
                             float *HWY_RESTRICT c, std::size_t ldc) {
  const D d;
  const std::size_t lanes = hn::Lanes(d), nr = 2 * lanes;
  V acc0[R], acc1[R];
  const float *ar[R];
  for (std::size_t r = 0; r < R; ++r) {
    acc0[r] = hn::Zero(d);
    acc1[r] = hn::Zero(d);
    ar[r] = a.row(r);
  }
  for (std::size_t p = 0; p < k; ++p) {
    const float *row = panel(p, nr);
    const V b0 = hn::LoadU(d, row);
    const V b1 = hn::LoadU(d, row + lanes);
    const std::size_t col = a.column(p);
    for (std::size_t r = 0; r < R; ++r) {
      const V av = hn::Set(d, ar[r][col]);
      acc0[r] = hn::MulAdd(av, b0, acc0[r]);
      acc1[r] = hn::MulAdd(av, b1, acc1[r]);
    }
  }
  for (std::size_t r = 0; r < R; ++r) {
    hn::StoreU(acc0[r], d, c + r * ldc);
    hn::StoreU(acc1[r], d, c + r * ldc + lanes);
  }
}

template <std::size_t R, class A>
HWY_INLINE void IndirectEdge(std::size_t rows, std::size_t k, const A &a, const PanelRows &panel,
                             float *c, std::size_t ldc) {
  if constexpr (R > 0) {
    if (rows == R)
      return IndirectTile<R>(k, a, panel, c, ldc);
    IndirectEdge<R - 1>(rows, k, a, panel, c, ldc);
  }
}

void IndirectGemm(std::size_t m, std::size_t n, std::size_t k, const float *HWY_RESTRICT a,
                  std::size_t lda, const float *const *bRows, std::size_t bOffset,
                  float *HWY_RESTRICT c, std::size_t ldc, float *HWY_RESTRICT scratch) {
  const D d;
  const std::size_t lanes = hn::Lanes(d), nr = 2 * lanes;
  const bool pack = m > kRowsPerTile;
  for (std::size_t j0 = 0; j0 < n; j0 += nr) {
    PanelRows panel{nullptr, bRows, bOffset + j0};
    if (pack) {
      for (std::size_t p = 0; p < k; ++p) {
        hn::StoreU(hn::LoadU(d, bRows[p] + bOffset + j0), d, scratch + p * nr);
        hn::StoreU(hn::LoadU(d, bRows[p] + bOffset + j0 + lanes), d, scratch + p * nr + lanes);
      }
      panel.packed = scratch;
    }
    DenseA rows{a, lda};
    std::size_t i = 0;
    for (; i + kRowsPerTile <= m; i += kRowsPerTile, rows.a += kRowsPerTile * lda)
      IndirectTile<kRowsPerTile>(k, rows, panel, c + i * ldc + j0, ldc);
    if (i < m)
      IndirectEdge<kRowsPerTile - 1>(m - i, k, rows, panel, c + i * ldc + j0, ldc);
  }
}

/// C[i][l · len + x] = Σ_p A[i][aColumns[p]] · rows[p][columns[l] + x]: the output lines are
/// packed back to back into each panel, so lines shorter than a panel waste no columns. A
/// panel's pieces (one per run of lines adjacent in the plane) are listed once and copied for every
/// row p, each in whole vectors: a piece's overrun is overwritten by the next piece, and the last
/// by the next row (scratch has a vector of slack at the end).
void LineGemm(std::size_t m, std::size_t lines, std::size_t len, const std::size_t *columns,
              std::size_t k, const float *HWY_RESTRICT a, std::size_t lda,
              const std::size_t *aColumns, const float *const *rows, float *HWY_RESTRICT c,
              std::size_t ldc, float *HWY_RESTRICT scratch) {
  const D d;
  const std::size_t lanes = hn::Lanes(d), nr = 2 * lanes, n = lines * len;
  struct Piece {
    std::size_t from, to, count;
  };
  Piece pieces[2 * hn::MaxLanes(D()) + 1];
  for (std::size_t j0 = 0; j0 < n; j0 += nr) {
    const std::size_t end = std::min(n, j0 + nr);
    std::size_t count = 0;
    for (std::size_t j = j0; j < end;) {
      const std::size_t l = j / len, x = j % len, q = std::min(len - x, end - j);
      // A line that starts where the previous one ends in the plane (a 1×1 kernel's lines
      // fill the plane) extends its piece: fewer, longer copies.
      if (count > 0 && pieces[count - 1].from + pieces[count - 1].count == columns[l] + x)
        pieces[count - 1].count += q;
      else
        pieces[count++] = {columns[l] + x, j - j0, q};
      j += q;
    }
    const std::size_t filled = end - j0;
    for (std::size_t p = 0; p < k; ++p) {
      const float *row = rows[p];
      float *dst = scratch + p * nr;
      for (std::size_t e = 0; e < count; ++e) {
        const Piece &piece = pieces[e];
        for (std::size_t x = 0; x < piece.count; x += lanes)
          hn::StoreU(hn::LoadU(d, row + piece.from + x), d, dst + piece.to + x);
      }
      // Past the last line (the ragged end): zeros, so C's padding columns stay finite.
      for (std::size_t x = filled; x < nr; ++x)
        dst[x] = 0.0f;
    }
    const PanelRows panel{scratch, nullptr, 0};
    PickedA rowsOfA{a, lda, aColumns};
    std::size_t i = 0;
    for (; i + kRowsPerTile <= m; i += kRowsPerTile, rowsOfA.a += kRowsPerTile * lda)
      IndirectTile<kRowsPerTile>(k, rowsOfA, panel, c + i * ldc + j0, ldc);
    if (i < m)
      IndirectEdge<kRowsPerTile - 1>(m - i, k, rowsOfA, panel, c + i * ldc + j0, ldc);
  }
}

/// Interleaves two compact lines in vectors of tag d while whole ones fit; returns the outputs
/// written.
template <class DI>
HWY_INLINE std::size_t InterleaveTwo(DI d, std::size_t x, std::size_t len, const float *s0,
                                     const float *s1, float *HWY_RESTRICT dst) {
  const std::size_t lanes = hn::Lanes(d);
  for (; x + 2 * lanes <= len; x += 2 * lanes)
    hn::StoreInterleaved2(s0 ? hn::LoadU(d, s0 + x / 2) : hn::Zero(d),
                          s1 ? hn::LoadU(d, s1 + x / 2) : hn::Zero(d), d, dst + x);
  return x;
}

/// dst[x] = src[x mod P][x / P] for x < len (a null source reads zeros): P = 1 copies, P = 2
/// (a stride-2 input gradient's columns) runs in full, then 128-bit, vector steps; the rest goes
/// phase by phase.
void InterleavePhases(std::size_t phases, std::size_t len, const float *const *src,
                      float *HWY_RESTRICT dst) {
  if (phases == 1) {
    if (src[0])
      std::copy(src[0], src[0] + len, dst);
    else
      std::fill(dst, dst + len, 0.0f);
    return;
  }
  std::size_t x = 0;
  if (phases == 2) {
    x = InterleaveTwo(D(), x, len, src[0], src[1], dst);
    x = InterleaveTwo(hn::CappedTag<float, 4>(), x, len, src[0], src[1], dst);
  }
  // x is a multiple of `phases` here: the rest of each phase's line, strided.
  for (std::size_t phi = 0; phi < phases && x + phi < len; ++phi) {
    const float *from = src[phi];
    for (std::size_t at = x + phi, m = x / phases; at < len; at += phases, ++m)
      dst[at] = from ? from[m] : 0.0f;
  }
}

void Stencil(std::size_t lines, std::size_t len, const std::size_t *columns, std::size_t k,
             const float *HWY_RESTRICT w, const float *const *rows, float *HWY_RESTRICT out) {
  const D d;
  const std::size_t lanes = hn::Lanes(d);
  for (std::size_t l = 0; l < lines; ++l) {
    const std::size_t column = columns[l];
    float *dst = out + l * len;
    std::size_t x = 0;
    for (; x + 2 * lanes <= len; x += 2 * lanes) {
      V acc0 = hn::Zero(d), acc1 = hn::Zero(d);
      for (std::size_t p = 0; p < k; ++p) {
        const V wv = hn::Set(d, w[p]);
        const float *row = rows[p] + column + x;
        acc0 = hn::MulAdd(wv, hn::LoadU(d, row), acc0);
        acc1 = hn::MulAdd(wv, hn::LoadU(d, row + lanes), acc1);
      }
      hn::StoreU(acc0, d, dst + x);
      hn::StoreU(acc1, d, dst + x + lanes);
    }
    for (; x < len; x += lanes) {
      V acc = hn::Zero(d);
      for (std::size_t p = 0; p < k; ++p)
        acc = hn::MulAdd(hn::Set(d, w[p]), hn::LoadU(d, rows[p] + column + x), acc);
      if (x + lanes <= len) {
        hn::StoreU(acc, d, dst + x);
      } else {
        HWY_ALIGN float tail[hn::MaxLanes(D())];
        hn::Store(acc, d, tail);
        std::copy(tail, tail + (len - x), dst + x);
      }
    }
  }
}

/// Kernel rows [p0, p0 + R) of StencilDot, R accumulators held in registers.
template <std::size_t R>
HWY_INLINE void StencilDotRows(std::size_t lines, std::size_t len, const std::size_t *columns,
                               const float *HWY_RESTRICT z, const float *const *rows,
                               float *HWY_RESTRICT out) {
  const D d;
  const std::size_t lanes = hn::Lanes(d);
  V acc[R];
  for (std::size_t r = 0; r < R; ++r)
    acc[r] = hn::Zero(d);
  for (std::size_t l = 0; l < lines; ++l) {
    const std::size_t column = columns[l];
    for (std::size_t x = 0; x < len; x += lanes) {
      const auto real = hn::FirstN(d, len - x);
      const V zv = hn::IfThenElseZero(real, hn::LoadU(d, z + l * len + x));
      for (std::size_t r = 0; r < R; ++r)
        acc[r] =
            hn::MulAdd(zv, hn::IfThenElseZero(real, hn::LoadU(d, rows[r] + column + x)), acc[r]);
    }
  }
  for (std::size_t r = 0; r < R; ++r)
    out[r] = hn::GetLane(hn::SumOfLanes(d, acc[r]));
}

constexpr std::size_t kStencilDotRows = 8;

template <std::size_t R>
HWY_INLINE void StencilDotEdge(std::size_t rowsLeft, std::size_t lines, std::size_t len,
                               const std::size_t *columns, const float *z, const float *const *rows,
                               float *out) {
  if constexpr (R > 0) {
    if (rowsLeft == R)
      return StencilDotRows<R>(lines, len, columns, z, rows, out);
    StencilDotEdge<R - 1>(rowsLeft, lines, len, columns, z, rows, out);
  }
}

void StencilDot(std::size_t lines, std::size_t len, const std::size_t *columns, std::size_t k,
                const float *HWY_RESTRICT z, const float *const *rows, float *HWY_RESTRICT out) {
  std::size_t p = 0;
  for (; p + kStencilDotRows <= k; p += kStencilDotRows)
    StencilDotRows<kStencilDotRows>(lines, len, columns, z, rows + p, out + p);
  if (p < k)
    StencilDotEdge<kStencilDotRows - 1>(k - p, lines, len, columns, z, rows + p, out + p);
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::poplin
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::poplin {
HWY_EXPORT(IndirectGemm);
HWY_EXPORT(LineGemm);
HWY_EXPORT(InterleavePhases);
HWY_EXPORT(Stencil);
HWY_EXPORT(StencilDot);
IndirectGemmFn indirectGemmKernel() { return TESSERA_DYNAMIC_POINTER(IndirectGemm); }
LineGemmFn lineGemmKernel() { return TESSERA_DYNAMIC_POINTER(LineGemm); }
InterleavePhasesFn interleavePhasesKernel() { return TESSERA_DYNAMIC_POINTER(InterleavePhases); }
StencilFn stencilKernel() { return TESSERA_DYNAMIC_POINTER(Stencil); }
StencilDotFn stencilDotKernel() { return TESSERA_DYNAMIC_POINTER(StencilDot); }
} // namespace tessera::codelets::poplin
#endif
