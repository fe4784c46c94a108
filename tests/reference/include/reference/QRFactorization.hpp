// Golden reference for poplin/experimental/QRFactorization.hpp: Householder QR of A [M][N]
// (M ≥ N) in double. Step k reflects column k onto (α, 0, …) with α = −sign(A_kk)·‖column‖
// (α = ‖column‖ when A_kk = 0), so R's diagonal has the opposite signs of the pivots; Q is the
// product of the reflectors (Q = H_0·…·H_{N−1}), so A = Q·R.
#pragma once

#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include <reference/Common.hpp>

namespace reference {

/// {Q [m×m], R [m×n]}.
inline std::pair<std::vector<double>, std::vector<double>>
qrFactorization(std::vector<double> r, std::size_t m, std::size_t n) {
  std::vector<double> q(m * m, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    q[i * m + i] = 1.0;
  for (std::size_t k = 0; k < n; ++k) {
    double norm2 = 0;
    for (std::size_t i = k; i < m; ++i)
      norm2 += r[i * n + k] * r[i * n + k];
    const double norm = std::sqrt(norm2);
    if (norm == 0)
      continue;
    const double x0 = r[k * n + k], alpha = x0 > 0 ? -norm : norm;
    std::vector<double> v(m - k);
    v[0] = x0 - alpha;
    for (std::size_t i = k + 1; i < m; ++i)
      v[i - k] = r[i * n + k];
    double vv = 0;
    for (double x : v)
      vv += x * x;
    // R ← H·R on columns k…n−1 (rows k…m−1); Q ← Q·H on columns k…m−1.
    for (std::size_t j = k; j < n; ++j) {
      double d = 0;
      for (std::size_t i = k; i < m; ++i)
        d += v[i - k] * r[i * n + j];
      for (std::size_t i = k; i < m; ++i)
        r[i * n + j] -= 2 * d / vv * v[i - k];
    }
    for (std::size_t row = 0; row < m; ++row) {
      double d = 0;
      for (std::size_t i = k; i < m; ++i)
        d += q[row * m + i] * v[i - k];
      for (std::size_t i = k; i < m; ++i)
        q[row * m + i] -= 2 * d / vv * v[i - k];
    }
    for (std::size_t i = k + 1; i < m; ++i)
      r[i * n + k] = 0.0;
  }
  return {q, r};
}

} // namespace reference
