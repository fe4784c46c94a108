// Golden reference of poplin/MatMul.hpp: C = A · B on row-major matrices, accumulated in double.
#pragma once

#include <cstddef>
#include <vector>

namespace reference {

/// C[m×n] = A[m×k] · B[k×n], row-major, every product and sum in double. `T` is float or double
/// (the device's inputs as the host holds them).
template <class T>
std::vector<double> matMul(const std::vector<T> &a, const std::vector<T> &b, std::size_t m,
                           std::size_t n, std::size_t k) {
  std::vector<double> c(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t j = 0; j < n; ++j)
        c[i * n + j] += double(a[i * k + p]) * double(b[p * n + j]);
  return c;
}

} // namespace reference
