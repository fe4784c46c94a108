// Shared helpers for the poplin tests: a naive double-precision reference and a runner that
// builds, runs and reads back one matMul program on a small IPU Model.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

namespace poplin::testing {

/// Deterministic values in [-1, 1).
inline std::vector<float> randomValues(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto &x : v)
    x = dist(gen);
  return v;
}

/// C[m×n] = A[m×k] · B[k×n], row-major, accumulated in double.
inline std::vector<double> referenceMatMul(const std::vector<float> &a, const std::vector<float> &b,
                                           std::size_t m, std::size_t n, std::size_t k) {
  std::vector<double> c(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t j = 0; j < n; ++j)
        c[i * n + j] += double(a[i * k + p]) * double(b[p * n + j]);
  return c;
}

} // namespace poplin::testing
