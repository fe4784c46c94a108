// The in-place convolution kernels (rows read through pointers) against plain loops.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "MatMulTestSupport.hpp"
#include "poplin/kernels/ConvKernels.hpp"
#include "poplin/kernels/GemmKernels.hpp"

namespace {

using namespace tessera::codelets::poplin;
using poplin::testing::randomValues;

/// Row pointers into one buffer at overlapping, unevenly spaced offsets, as a padded plane's
/// shifted im2col rows are.
std::vector<const float *> shiftedRows(const std::vector<float> &buffer, std::size_t rows,
                                       std::size_t spacing) {
  std::vector<const float *> p(rows);
  for (std::size_t r = 0; r < rows; ++r)
    p[r] = buffer.data() + r * spacing + (r * 7) % 5;
  return p;
}

class IndirectGemm : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(IndirectGemm, MatchesTheGemmReferenceChain) {
  const auto [mi, ni, ki] = GetParam();
  const std::size_t m = mi, n = ni, k = ki, offset = 3, lda = k + 2;
  const std::size_t ld = (n + kIndirectColumnUnit - 1) / kIndirectColumnUnit * kIndirectColumnUnit;
  const std::size_t spacing = 11; // rows overlap: row p+1 starts 11 floats after row p
  const auto buffer = randomValues(k * spacing + offset + ld + 8, 5);
  const auto rows = shiftedRows(buffer, k, spacing);
  const auto a = randomValues(m * lda, 6);
  // The same B laid out densely for the reference.
  std::vector<float> b(k * n);
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j)
      b[p * n + j] = rows[p][offset + j];
  const std::size_t ldc = ld + 4;
  std::vector<float> c(m * ldc, 9.0f), ref(m * n), scratch(k * kIndirectColumnUnit);
  indirectGemmKernel()(m, n, k, a.data(), lda, rows.data(), offset, c.data(), ldc, scratch.data());
  gemmFloatReference(m, n, k, a.data(), lda, b.data(), n, ref.data(), n, false);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      double exact = 0.0;
      for (std::size_t p = 0; p < k; ++p)
        exact += double(a[i * lda + p]) * double(b[p * n + j]);
      // One fp32 FMA chain in the reference's order: equal on FMA targets.
      EXPECT_NEAR(c[i * ldc + j], ref[i * n + j], 1e-5 * (1.0 + std::sqrt(double(k))))
          << i << "," << j;
      EXPECT_NEAR(c[i * ldc + j], exact, 1e-5 * (1.0 + double(k))) << i << "," << j;
    }
    for (std::size_t j = ld; j < ldc; ++j)
      EXPECT_EQ(c[i * ldc + j], 9.0f) << "wrote past the padded columns at row " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, IndirectGemm,
                         ::testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(8, 32, 9),
                                           std::make_tuple(5, 45, 72), std::make_tuple(9, 31, 27),
                                           std::make_tuple(17, 100, 18),
                                           std::make_tuple(33, 64, 144),
                                           std::make_tuple(64, 70, 3)));

class LineGemm : public ::testing::TestWithParam<std::tuple<int, int, int, int, int>> {};

TEST_P(LineGemm, MatchesAScalarFmaChainBitForBit) {
  const auto [mi, linesI, lenI, ki, gapI] = GetParam();
  const std::size_t m = mi, lines = linesI, len = lenI, k = ki, gap = gapI, n = lines * len;
  // Lines at uneven plane columns, as one outer phase's lines of a shared plane lie, or back
  // to back (gap 0), as a 1×1 kernel's are.
  std::vector<std::size_t> columns;
  for (std::size_t l = 0; l < lines; ++l)
    columns.push_back(l * (len + gap) + (gap > 0 ? l % 2 : 0));
  const std::size_t spacing = 11, span = lines * (len + gap) + 2;
  // Readable for kIndirectColumnUnit floats past the last line's end, as the contract asks.
  const auto buffer = randomValues(k * spacing + span + kIndirectColumnUnit + 8, 30);
  const auto rows = shiftedRows(buffer, k, spacing);
  // The phase's weights are some of A's columns, out of order.
  const std::size_t lda = 2 * k + 1;
  std::vector<std::size_t> aColumns(k);
  for (std::size_t p = 0; p < k; ++p)
    aColumns[p] = 2 * (k - 1 - p) + p % 2;
  const auto a = randomValues(m * lda, 31);
  const std::size_t ld = (n + kIndirectColumnUnit - 1) / kIndirectColumnUnit * kIndirectColumnUnit;
  const std::size_t ldc = ld + 4, guard = 16;
  std::vector<float> c(m * ldc, 9.0f), scratch(lineGemmScratchFloats(k) + guard, 7.0f);
  lineGemmKernel()(m, lines, len, columns.data(), k, a.data(), lda, aColumns.data(), rows.data(),
                   c.data(), ldc, scratch.data());
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t l = 0; l < lines; ++l)
      for (std::size_t x = 0; x < len; ++x) {
        float want = 0.0f;
        for (std::size_t p = 0; p < k; ++p)
          want = std::fma(a[i * lda + aColumns[p]], rows[p][columns[l] + x], want);
        // Bit for bit: the x86-64 targets dispatched here (AVX2, AVX-512) fuse MulAdd.
        ASSERT_EQ(c[i * ldc + l * len + x], want) << "row " << i << " line " << l << " x " << x;
      }
    for (std::size_t j = n; j < ld; ++j)
      EXPECT_TRUE(std::isfinite(c[i * ldc + j])) << "padding column " << j << " of row " << i;
    for (std::size_t j = ld; j < ldc; ++j)
      EXPECT_EQ(c[i * ldc + j], 9.0f) << "wrote past the padded columns at row " << i;
  }
  for (std::size_t x = lineGemmScratchFloats(k); x < scratch.size(); ++x)
    EXPECT_EQ(scratch[x], 7.0f) << "wrote past the scratch at " << x;
}

// (m, lines, len, k, gap between lines): lines shorter and longer than a panel, lengths off the
// vector width, one line, one column per line, row counts off the register tile, and lines
// back to back in the plane.
INSTANTIATE_TEST_SUITE_P(
    Shapes, LineGemm,
    ::testing::Values(std::make_tuple(1, 1, 1, 1, 3), std::make_tuple(8, 8, 4, 40, 3),
                      std::make_tuple(9, 3, 17, 5, 3), std::make_tuple(17, 5, 40, 12, 3),
                      std::make_tuple(6, 1, 33, 7, 3), std::make_tuple(33, 10, 7, 20, 3),
                      std::make_tuple(3, 40, 1, 9, 3), std::make_tuple(16, 2, 16, 3, 3),
                      std::make_tuple(7, 9, 32, 2, 3), std::make_tuple(8, 8, 4, 40, 0),
                      std::make_tuple(9, 5, 7, 6, 0), std::make_tuple(3, 40, 1, 9, 0),
                      std::make_tuple(10, 3, 20, 4, 0)));

class InterleavePhases : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(InterleavePhases, PutsPhaseXModPAtOutputX) {
  const auto [phasesI, lenI, nullPhase] = GetParam();
  const std::size_t phases = phasesI, len = lenI;
  // Each phase's compact line exactly as long as its share of the output.
  std::vector<std::vector<float>> lines(phases);
  std::vector<const float *> src(phases);
  for (std::size_t phi = 0; phi < phases; ++phi) {
    lines[phi] =
        randomValues(phi < len ? (len - phi + phases - 1) / phases : 0, 40 + unsigned(phi));
    src[phi] = int(phi) == nullPhase ? nullptr : lines[phi].data();
  }
  std::vector<float> dst(len + 5, 9.0f);
  interleavePhasesKernel()(phases, len, src.data(), dst.data());
  for (std::size_t x = 0; x < len; ++x) {
    const std::size_t phi = x % phases;
    ASSERT_EQ(dst[x], src[phi] ? lines[phi][x / phases] : 0.0f) << "output " << x;
  }
  for (std::size_t x = len; x < dst.size(); ++x)
    EXPECT_EQ(dst[x], 9.0f) << "wrote past the line at " << x;
}

// (phases, len, phase given as null or -1): whole vectors, 128-bit steps and scalar tails.
INSTANTIATE_TEST_SUITE_P(Shapes, InterleavePhases,
                         ::testing::Values(std::make_tuple(1, 1, -1), std::make_tuple(1, 13, -1),
                                           std::make_tuple(1, 7, 0), std::make_tuple(2, 1, -1),
                                           std::make_tuple(2, 2, 1), std::make_tuple(2, 7, -1),
                                           std::make_tuple(2, 8, 1), std::make_tuple(2, 31, 0),
                                           std::make_tuple(2, 64, -1), std::make_tuple(2, 75, 1),
                                           std::make_tuple(3, 1, -1), std::make_tuple(3, 2, 1),
                                           std::make_tuple(3, 10, -1), std::make_tuple(3, 35, 2),
                                           std::make_tuple(3, 64, 0)));

class Stencil : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

/// Plane-like buffer, line columns at an uneven spacing, and k shifted rows into it.
struct StencilInput {
  std::vector<float> buffer;
  std::vector<const float *> rows;
  std::vector<std::size_t> columns;
};

StencilInput stencilInput(std::size_t lines, std::size_t len, std::size_t k) {
  StencilInput s;
  for (std::size_t l = 0; l < lines; ++l)
    s.columns.push_back(l * (len + 3) + l % 2);
  const std::size_t span = lines * (len + 3) + 2;
  s.buffer = randomValues(k * 11 + span + kIndirectColumnUnit + 8, 10);
  s.rows = shiftedRows(s.buffer, k, 11);
  return s;
}

TEST_P(Stencil, MatchesTheOneRowIndirectGemmBitForBit) {
  const auto [linesI, lenI, kI] = GetParam();
  const std::size_t lines = linesI, len = lenI, k = kI;
  const StencilInput in = stencilInput(lines, len, k);
  const auto w = randomValues(k, 11);
  std::vector<float> out(lines * len + 5, 9.0f), scratch(k * kIndirectColumnUnit);
  stencilKernel()(lines, len, in.columns.data(), k, w.data(), in.rows.data(), out.data());
  std::vector<float> line(len + kIndirectColumnUnit);
  for (std::size_t l = 0; l < lines; ++l) {
    indirectGemmKernel()(1, len, k, w.data(), k, in.rows.data(), in.columns[l], line.data(),
                         line.size(), scratch.data());
    for (std::size_t x = 0; x < len; ++x) {
      double exact = 0.0;
      for (std::size_t p = 0; p < k; ++p)
        exact += double(w[p]) * double(in.rows[p][in.columns[l] + x]);
      EXPECT_EQ(out[l * len + x], line[x]) << "line " << l << " column " << x;
      EXPECT_NEAR(out[l * len + x], exact, 1e-5 * (1.0 + double(k))) << l << "," << x;
    }
  }
  for (std::size_t i = lines * len; i < out.size(); ++i)
    EXPECT_EQ(out[i], 9.0f) << "wrote past the lines at " << i;
}

TEST_P(Stencil, DotMatchesDoublePrecisionSums) {
  const auto [linesI, lenI, kI] = GetParam();
  const std::size_t lines = linesI, len = lenI, k = kI;
  const StencilInput in = stencilInput(lines, len, k);
  auto z = randomValues(lines * len + kIndirectColumnUnit, 12);
  std::vector<float> out(k + 3, 9.0f), again(k + 3, 9.0f);
  stencilDotKernel()(lines, len, in.columns.data(), k, z.data(), in.rows.data(), out.data());
  stencilDotKernel()(lines, len, in.columns.data(), k, z.data(), in.rows.data(), again.data());
  for (std::size_t p = 0; p < k; ++p) {
    double exact = 0.0, magnitude = 0.0;
    for (std::size_t l = 0; l < lines; ++l)
      for (std::size_t x = 0; x < len; ++x) {
        const double t = double(z[l * len + x]) * double(in.rows[p][in.columns[l] + x]);
        exact += t;
        magnitude += std::abs(t);
      }
    EXPECT_NEAR(out[p], exact, 1e-6 * (1.0 + magnitude)) << "kernel row " << p;
    EXPECT_EQ(out[p], again[p]) << "not repeatable at " << p;
  }
  for (std::size_t p = k; p < out.size(); ++p)
    EXPECT_EQ(out[p], 9.0f) << "wrote past the kernel rows at " << p;
}

INSTANTIATE_TEST_SUITE_P(Shapes, Stencil,
                         ::testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(7, 4, 9),
                                           std::make_tuple(3, 16, 9), std::make_tuple(5, 37, 25),
                                           std::make_tuple(2, 8, 17), std::make_tuple(4, 3, 8),
                                           std::make_tuple(6, 33, 3)));

} // namespace
