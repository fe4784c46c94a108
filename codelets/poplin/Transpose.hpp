// A cache-blocked transpose shared by poplin's vertices (operands that arrive in the other
// orientation than their GEMM kernel wants).
#pragma once

#include <cstddef>

namespace tessera::codelets::poplin {

/// dst[j][i] = row(i)[j] for i < rows, j < cols (dst row stride ldd), converted to float, in
/// 8 × 8 blocks so both sides stay within a few cache lines. Out of line, so the compiler keeps
/// the loop in registers (inlined into a vertex's compute it spilled every index).
template <class Row>
[[gnu::noinline]] void transpose(Row row, std::size_t rows, std::size_t cols, float *__restrict dst,
                                 std::size_t ldd) {
  constexpr std::size_t kBlock = 8;
  std::size_t i0 = 0;
  for (; i0 + kBlock <= rows; i0 += kBlock) {
    decltype(row(0)) src[kBlock];
    for (std::size_t i = 0; i < kBlock; ++i)
      src[i] = row(i0 + i);
    for (std::size_t j = 0; j < cols; ++j)
      for (std::size_t i = 0; i < kBlock; ++i)
        dst[j * ldd + i0 + i] = static_cast<float>(src[i][j]);
  }
  for (std::size_t i = i0; i < rows; ++i) {
    const auto *src = row(i);
    for (std::size_t j = 0; j < cols; ++j)
      dst[j * ldd + i] = static_cast<float>(src[j]);
  }
}

} // namespace tessera::codelets::poplin
