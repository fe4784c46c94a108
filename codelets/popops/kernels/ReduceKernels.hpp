// SIMD kernels behind popops::reduce for FLOAT data: run sums and row-wise accumulation.
//
// A "run" is a stretch of input elements that all reduce into ONE output (inner reductions);
// "rows" are consecutive stretches of `width` elements, each adding into the same `width`
// outputs (outer reductions). Every kernel has a fixed summation order, so its result depends
// only on the data (and on the SIMD target chosen for this CPU), never on threads.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <poplar/Half.hpp>

namespace tessera::codelets::popops {

/// Sum of x[0..n) (SQUARE: of x[i]^2), blocked: vector accumulators within a block of
/// `kReduceBlock` elements, block results added in order into a float total.
using RunReduceFloatFn = float (*)(const float *x, std::size_t n);
/// acc[w] += rows[r * width + w] (SQUARE: += rows[...]^2, fused) for r = 0, 1, … numRows-1.
using RowsReduceFloatFn = void (*)(float *acc, const float *rows, std::size_t width,
                                   std::size_t numRows);

/// out[i] = the float value of half bits in[i] (exact), so HALF data can use the float kernels.
using HalfToFloatFn = void (*)(const std::uint16_t *in, float *out, std::size_t n);

inline constexpr std::size_t kReduceBlock = 2048;

/// The best Highway variants for this CPU, resolved once.
RunReduceFloatFn sumFloatKernel();
RunReduceFloatFn sumSquaresFloatKernel();
RowsReduceFloatFn addRowsFloatKernel();
RowsReduceFloatFn squareAddRowsFloatKernel();
HalfToFloatFn halfToFloatKernel();

/// Every kernel as compiled for one Highway target (for tests: each target this CPU runs).
struct ReduceKernelSet {
  const char *target;
  RunReduceFloatFn sum, sumSquares;
  RowsReduceFloatFn addRows, squareAddRows;
  HalfToFloatFn halfToFloat;
};
std::vector<ReduceKernelSet> reduceKernelsForEveryTarget();

// Scalar references the tests compare the kernels with. The run references add sequentially
// (a different order from the kernel, so tests compare within a rounding bound); the row
// references use the kernel's order and fused multiply-add, so they match bit for bit.
inline float sumFloatReference(const float *x, std::size_t n) {
  float s = 0.0f;
  for (std::size_t i = 0; i < n; ++i)
    s += x[i];
  return s;
}
inline float sumSquaresFloatReference(const float *x, std::size_t n) {
  float s = 0.0f;
  for (std::size_t i = 0; i < n; ++i)
    s = std::fma(x[i], x[i], s);
  return s;
}
inline void addRowsFloatReference(float *acc, const float *rows, std::size_t width,
                                  std::size_t numRows) {
  for (std::size_t r = 0; r < numRows; ++r)
    for (std::size_t w = 0; w < width; ++w)
      acc[w] += rows[r * width + w];
}
inline void squareAddRowsFloatReference(float *acc, const float *rows, std::size_t width,
                                        std::size_t numRows) {
  for (std::size_t r = 0; r < numRows; ++r)
    for (std::size_t w = 0; w < width; ++w)
      acc[w] = std::fma(rows[r * width + w], rows[r * width + w], acc[w]);
}

inline void halfToFloatReference(const std::uint16_t *in, float *out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    out[i] = poplar::halfBitsToFloat(in[i]);
}

} // namespace tessera::codelets::popops
