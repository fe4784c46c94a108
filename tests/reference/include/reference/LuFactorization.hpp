// Golden reference for poplin/experimental/LuFactorization.hpp: LU factorisation without
// pivoting (Doolittle), as PopLibs computes it: A [M][N] = L [M][M] · U [M][N], L unit lower
// triangular, U upper trapezoidal; when M > N the columns of L from N on are the identity's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <reference/Common.hpp>

namespace reference {

/// {L, U} of a (m×n, row-major) without row exchanges.
inline std::pair<std::vector<double>, std::vector<double>>
luFactorization(std::vector<double> a, std::size_t m, std::size_t n) {
  const std::size_t r = std::min(m, n);
  std::vector<double> l(m * m, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    l[i * m + i] = 1.0;
  for (std::size_t k = 0; k < r; ++k)
    for (std::size_t i = k + 1; i < m; ++i) {
      const double f = a[i * n + k] / a[k * n + k];
      l[i * m + k] = f;
      for (std::size_t j = k; j < n; ++j)
        a[i * n + j] -= f * a[k * n + j];
    }
  for (std::size_t i = 0; i < m; ++i) // what remains below the diagonal is rounding: zero it
    for (std::size_t j = 0; j < std::min(i, n); ++j)
      a[i * n + j] = 0.0;
  return {l, a};
}

/// A matrix with a safely pivot-free LU: uniform entries in [-1, 1) plus max(m, n) on the
/// leading diagonal (strictly diagonally dominant by rows and columns).
inline std::vector<double> diagonallyDominant(std::size_t m, std::size_t n, unsigned seed) {
  auto a = randomValues(m * n, seed);
  for (std::size_t i = 0; i < std::min(m, n); ++i)
    a[i * n + i] += double(std::max(m, n));
  return a;
}

} // namespace reference
