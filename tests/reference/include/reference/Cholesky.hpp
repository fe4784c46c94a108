// Golden reference for poplin/Cholesky.hpp: the Cholesky factor of one symmetric positive
// definite matrix, well-conditioned test matrices and the transpose the residual checks use
// (products: reference/MatMul.hpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include <reference/Common.hpp>
#include <reference/MatMul.hpp>

namespace reference {

/// Aᵀ of A [rows×cols].
inline std::vector<double> transpose(const std::vector<double> &a, std::size_t rows,
                                     std::size_t cols) {
  std::vector<double> t(a.size());
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j)
      t[j * rows + i] = a[i * cols + j];
  return t;
}

/// A well-conditioned symmetric positive definite n×n matrix: M·Mᵀ/n + I for M uniform in
/// [-1, 1) (eigenvalues in [1, about 1 + n/3]).
inline std::vector<double> randomSpd(std::size_t n, unsigned seed) {
  const auto m = randomValues(n * n, seed);
  auto a = matMul(m, transpose(m, n, n), n, n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      a[i * n + j] = a[i * n + j] / double(n) + (i == j ? 1.0 : 0.0);
  return a;
}

/// The lower Cholesky factor L of a (n×n, only its lower triangle read): A = L·Lᵀ, zeros above
/// the diagonal. The upper factor PopLibs returns for lower = false is Lᵀ of the upper triangle
/// read as Aᵀ's lower triangle.
inline std::vector<double> choleskyLower(const std::vector<double> &a, std::size_t n) {
  std::vector<double> l(n * n, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k)
      d -= l[j * n + k] * l[j * n + k];
    l[j * n + j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k)
        s -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = s / l[j * n + j];
    }
  }
  return l;
}

} // namespace reference
