// Written once with Highway, compiled for each enabled target, dispatched at run time.
//
// Blocking: B is walked one panel of NR = 2 vectors of columns at a time (packed into k rows of
// NR floats, zero-padded, unless only one micro-tile row uses it); each panel is swept by
// an MR×NR accumulator tile held in registers (MR = 8 with 32 vector registers, 6 otherwise), one
// broadcast of A and two FMAs per row and k step. GemmRowsPacked is the same tile over rows of A
// given by pointer and a B its caller packed (a convolution's weight gradient).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "poplin/kernels/GemmKernels.cpp"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>

#include "common/Dispatch.hpp"
#include "poplin/kernels/GemmKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::poplin {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX3_ZEN4
constexpr std::size_t kRowsPerTile = 8;
#else
constexpr std::size_t kRowsPerTile = 6;
#endif

// Packs columns [j0, j0 + cols) of B (cols ≤ NR) into k rows of NR floats.
HWY_INLINE void PackPanel(std::size_t k, const float *HWY_RESTRICT b, std::size_t ldb,
                          std::size_t cols, std::size_t nr, float *HWY_RESTRICT panel) {
  for (std::size_t p = 0; p < k; ++p) {
    const float *row = b + p * ldb;
    float *dst = panel + p * nr;
    std::memcpy(dst, row, cols * sizeof(float));
    for (std::size_t j = cols; j < nr; ++j)
      dst[j] = 0.0f;
  }
}

// Packs a full panel (NR = 2 vectors of columns) of B into k contiguous rows of NR floats.
HWY_INLINE void PackFullPanel(std::size_t k, const float *HWY_RESTRICT b, std::size_t ldb,
                              float *HWY_RESTRICT panel) {
  const D d;
  const std::size_t lanes = hn::Lanes(d);
  constexpr std::size_t kAhead = 8; // rows of B prefetched ahead of the copy
  for (std::size_t p = 0; p < k; ++p) {
    if (p + kAhead < k) {
      hwy::Prefetch(b + (p + kAhead) * ldb);
      hwy::Prefetch(b + (p + kAhead) * ldb + 2 * lanes - 1);
    }
    hn::StoreU(hn::LoadU(d, b + p * ldb), d, panel + 2 * p * lanes);
    hn::StoreU(hn::LoadU(d, b + p * ldb + lanes), d, panel + (2 * p + 1) * lanes);
  }
}

// Floats per 64-byte cache line.
constexpr std::size_t kLineFloats = 16;

/// Rows of A lda floats apart.
struct StridedRows {
  const float *a;
  std::size_t lda;
  HWY_INLINE float at(std::size_t r, std::size_t p) const { return a[r * lda + p]; }
  HWY_INLINE StridedRows from(std::size_t i) const { return {a + i * lda, lda}; }
  // Step p of `rows` rows starts a new cache line of each row every kLineFloats steps.
  HWY_INLINE void prefetch(std::size_t rows, std::size_t p) const {
    if (p % kLineFloats == 0)
      for (std::size_t r = 0; r < rows; ++r)
        hwy::Prefetch(a + r * lda + p);
  }
};

/// A stored transposed ([k][m], lda floats between its k rows): row r of A is column r there.
/// The micro-tile's R values for one p are then adjacent.
struct TransposedRows {
  const float *a;
  std::size_t lda;
  HWY_INLINE float at(std::size_t r, std::size_t p) const { return a[p * lda + r]; }
  HWY_INLINE TransposedRows from(std::size_t i) const { return {a + i, lda}; }
  // Step p of `rows` rows reads rows adjacent floats at a + p · lda (one or two lines).
  HWY_INLINE void prefetch(std::size_t rows, std::size_t p) const {
    hwy::Prefetch(a + p * lda);
    hwy::Prefetch(a + p * lda + rows - 1);
  }
};

/// Rows of A anywhere: row r is the k floats at rows[r] (a convolution's plane rows in place).
struct PointerRows {
  const float *const *rows;
  HWY_INLINE float at(std::size_t r, std::size_t p) const { return rows[r][p]; }
  HWY_INLINE PointerRows from(std::size_t i) const { return {rows + i}; }
  HWY_INLINE void prefetch(std::size_t count, std::size_t p) const {
    if (p % kLineFloats == 0)
      for (std::size_t r = 0; r < count; ++r)
        hwy::Prefetch(rows[r] + p);
  }
};

// C[R×cols] = A[R×k] · panel, R ≤ kRowsPerTile rows. While it runs, the first `nextRows` rows
// of `next` (the rows of A the following micro-tile reads) are prefetched step by step: a tile's
// rows arrive from the exchange or a previous step, often not in cache, and each is too short a
// stream for the hardware prefetcher to run ahead of.
template <std::size_t R, class ARows>
HWY_INLINE void MicroTile(std::size_t k, ARows a, ARows next, std::size_t nextRows,
                          const float *HWY_RESTRICT panel, std::size_t ldp, float *HWY_RESTRICT c,
                          std::size_t ldc, std::size_t cols, bool accumulate) {
  const D d;
  const std::size_t lanes = hn::Lanes(d), nr = 2 * lanes;
  using V = hn::Vec<D>;
  V acc0[R], acc1[R];
  HWY_ALIGN float tmp[2 * HWY_MAX_BYTES / sizeof(float)];
  for (std::size_t r = 0; r < R; ++r) {
    if (!accumulate) {
      acc0[r] = hn::Zero(d);
      acc1[r] = hn::Zero(d);
    } else if (cols == nr) {
      acc0[r] = hn::LoadU(d, c + r * ldc);
      acc1[r] = hn::LoadU(d, c + r * ldc + lanes);
    } else {
      std::memcpy(tmp, c + r * ldc, cols * sizeof(float));
      std::fill(tmp + cols, tmp + nr, 0.0f);
      acc0[r] = hn::Load(d, tmp);
      acc1[r] = hn::Load(d, tmp + lanes);
    }
  }
  for (std::size_t p = 0; p < k; ++p) {
    if (nextRows)
      next.prefetch(nextRows, p);
    const V b0 = hn::LoadU(d, panel + p * ldp);
    const V b1 = hn::LoadU(d, panel + p * ldp + lanes);
    for (std::size_t r = 0; r < R; ++r) {
      const V av = hn::Set(d, a.at(r, p));
      acc0[r] = hn::MulAdd(av, b0, acc0[r]);
      acc1[r] = hn::MulAdd(av, b1, acc1[r]);
    }
  }
  if (cols == nr) {
    for (std::size_t r = 0; r < R; ++r) {
      hn::StoreU(acc0[r], d, c + r * ldc);
      hn::StoreU(acc1[r], d, c + r * ldc + lanes);
    }
    return;
  }
  for (std::size_t r = 0; r < R; ++r) {
    hn::Store(acc0[r], d, tmp);
    hn::Store(acc1[r], d, tmp + lanes);
    std::memcpy(c + r * ldc, tmp, cols * sizeof(float));
  }
}

template <std::size_t R, class ARows>
HWY_INLINE void EdgeRows(std::size_t rows, std::size_t k, ARows a, const float *panel,
                         std::size_t ldp, float *c, std::size_t ldc, std::size_t cols,
                         bool accumulate) {
  if constexpr (R > 0) {
    if (rows == R)
      return MicroTile<R>(k, a, a, 0, panel, ldp, c, ldc, cols, accumulate);
    EdgeRows<R - 1>(rows, k, a, panel, ldp, c, ldc, cols, accumulate);
  }
}

/// Every row block of A against one panel of columns [j0, j0 + cols) of C.
template <class ARows>
HWY_INLINE void PanelColumn(std::size_t m, std::size_t k, ARows a, const float *panel,
                            std::size_t ldp, float *c, std::size_t ldc, std::size_t j0,
                            std::size_t cols, bool accumulate) {
  std::size_t i = 0;
  for (; i + kRowsPerTile <= m; i += kRowsPerTile) {
    const std::size_t next = i + kRowsPerTile;
    MicroTile<kRowsPerTile>(k, a.from(i), a.from(next < m ? next : i),
                            std::min(kRowsPerTile, m - next), panel, ldp, c + i * ldc + j0, ldc,
                            cols, accumulate);
  }
  if (i < m)
    EdgeRows<kRowsPerTile - 1>(m - i, k, a.from(i), panel, ldp, c + i * ldc + j0, ldc, cols,
                               accumulate);
}

template <class ARows>
HWY_INLINE void GemmWith(std::size_t m, std::size_t n, std::size_t k, ARows a,
                         const float *HWY_RESTRICT b, std::size_t ldb, float *HWY_RESTRICT c,
                         std::size_t ldc, bool accumulate, float *HWY_RESTRICT scratch) {
  const D d;
  const std::size_t nr = 2 * hn::Lanes(d);
  if (k == 0) {
    if (accumulate)
      return;
    for (std::size_t i = 0; i < m; ++i)
      std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  for (std::size_t j0 = 0; j0 < n; j0 += nr) {
    const std::size_t cols = std::min(nr, n - j0);
    // The panel is packed into k contiguous rows of NR floats whenever several micro-tiles reuse
    // it: read in place, rows ldb apart (often a power of two) fall into a few L1 sets and evict
    // each other. A ragged right-edge panel is always packed, zero-padded to NR columns.
    const float *panel = b + j0;
    std::size_t ldp = ldb;
    if (cols < nr) {
      PackPanel(k, b + j0, ldb, cols, nr, scratch);
      panel = scratch;
      ldp = nr;
    } else if (m >= 4 * kRowsPerTile) {
      PackFullPanel(k, b + j0, ldb, scratch);
      panel = scratch;
      ldp = nr;
    }
    PanelColumn(m, k, a, panel, ldp, c, ldc, j0, cols, accumulate);
  }
}

void GemmFloat(std::size_t m, std::size_t n, std::size_t k, const float *HWY_RESTRICT a,
               std::size_t lda, const float *HWY_RESTRICT b, std::size_t ldb, float *HWY_RESTRICT c,
               std::size_t ldc, bool accumulate, float *HWY_RESTRICT scratch) {
  GemmWith(m, n, k, StridedRows{a, lda}, b, ldb, c, ldc, accumulate, scratch);
}

void GemmTransposedA(std::size_t m, std::size_t n, std::size_t k, const float *HWY_RESTRICT a,
                     std::size_t lda, const float *HWY_RESTRICT b, std::size_t ldb,
                     float *HWY_RESTRICT c, std::size_t ldc, bool accumulate,
                     float *HWY_RESTRICT scratch) {
  GemmWith(m, n, k, TransposedRows{a, lda}, b, ldb, c, ldc, accumulate, scratch);
}

void GemmRowsPacked(std::size_t m, std::size_t n, std::size_t k, const float *const *aRows,
                    const float *HWY_RESTRICT bPacked, float *HWY_RESTRICT c, std::size_t ldc,
                    bool accumulate) {
  const D d;
  const std::size_t nr = 2 * hn::Lanes(d);
  for (std::size_t j0 = 0; j0 < n; j0 += nr) {
    // Panel j0 / kGemmColumnUnit holds these columns; NR divides the unit.
    const float *panel =
        bPacked + (j0 / kGemmColumnUnit) * k * kGemmColumnUnit + j0 % kGemmColumnUnit;
    PanelColumn(m, k, PointerRows{aRows}, panel, kGemmColumnUnit, c, ldc, j0, std::min(nr, n - j0),
                accumulate);
  }
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::poplin
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::poplin {
HWY_EXPORT(GemmFloat);
HWY_EXPORT(GemmRowsPacked);
HWY_EXPORT(GemmTransposedA);
GemmFloatFn gemmFloatKernel() { return TESSERA_DYNAMIC_POINTER(GemmFloat); }
GemmFloatFn gemmTransposedAKernel() { return TESSERA_DYNAMIC_POINTER(GemmTransposedA); }
GemmRowsPackedFn gemmRowsPackedKernel() { return TESSERA_DYNAMIC_POINTER(GemmRowsPacked); }
} // namespace tessera::codelets::poplin
#endif
