// Shared helpers for the poplin tests: seeded data and the golden matMul reference.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

#include <reference/MatMul.hpp>

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

/// C[m×n] = A[m×k] · B[k×n]: the golden reference (tests/reference/include/reference/MatMul.hpp).
inline std::vector<double> referenceMatMul(const std::vector<float> &a, const std::vector<float> &b,
                                           std::size_t m, std::size_t n, std::size_t k) {
  return ::reference::matMul(a, b, m, n, k);
}

} // namespace poplin::testing
