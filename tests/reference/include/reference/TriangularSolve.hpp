// Golden reference for poplin/TriangularSolve.hpp: masking a triangle and solving A·X = B or
// X·A = B for one triangular A by substitution.
#pragma once

#include <cstddef>
#include <vector>

#include <reference/Common.hpp>

namespace reference {

/// a (n×n) with the unused triangle zeroed — above the diagonal when `lower`, below otherwise —
/// and ones on the diagonal when `unitDiagonal`.
inline std::vector<double> triangularMask(std::vector<double> a, std::size_t n, bool lower,
                                          bool unitDiagonal) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (unitDiagonal && i == j)
        a[i * n + j] = 1.0;
      else if (lower ? j > i : j < i)
        a[i * n + j] = 0.0;
    }
  return a;
}

/// X with A·X = B (leftSide: B is n×k) or X·A = B (B is k×n), reading only the triangle of A that
/// `lower` selects and, with `unitDiagonal`, taking its diagonal as ones.
inline std::vector<double> triangularSolve(const std::vector<double> &aIn,
                                           const std::vector<double> &b, std::size_t n,
                                           std::size_t k, bool leftSide, bool lower,
                                           bool unitDiagonal) {
  const auto a = triangularMask(aIn, n, lower, unitDiagonal);
  std::vector<double> x(b.size());
  // Column c of X (left side) or row c of X (right side, as Aᵀ·xᵀ = bᵀ) by substitution.
  auto at = [&](std::size_t i, std::size_t j) { return leftSide ? a[i * n + j] : a[j * n + i]; };
  const bool forward = leftSide ? lower : !lower;
  for (std::size_t c = 0; c < k; ++c) {
    auto bx = [&](std::size_t i) -> double & { return leftSide ? x[i * k + c] : x[c * n + i]; };
    for (std::size_t step = 0; step < n; ++step) {
      const std::size_t i = forward ? step : n - 1 - step;
      double s = leftSide ? b[i * k + c] : b[c * n + i];
      for (std::size_t j = 0; j < n; ++j)
        if (forward ? j < i : j > i)
          s -= at(i, j) * bx(j);
      bx(i) = s / at(i, i);
    }
  }
  return x;
}

} // namespace reference
