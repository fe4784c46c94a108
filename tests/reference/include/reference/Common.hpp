// Numeric helpers shared by every golden reference and every suite that compares against one:
// shapes, seeded random data, rounding through a device type, finite differences, residuals.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <random>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Type.hpp>

namespace reference {

inline std::size_t numElements(const std::vector<std::size_t> &shape) {
  std::size_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

/// `n` values uniform in [lo, hi) from a seeded generator (the same on every machine).
inline std::vector<double> randomValues(std::size_t n, unsigned seed, double lo = -1.0,
                                        double hi = 1.0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (auto &x : v)
    x = dist(gen);
  return v;
}

/// `x` as the device holds it in `type` (FLOAT or HALF), so a reference sees the device's inputs.
inline double roundTo(const poplar::Type &type, double x) {
  if (type == poplar::HALF)
    return static_cast<float>(poplar::half(static_cast<float>(x)));
  if (type == poplar::FLOAT)
    return static_cast<float>(x);
  return x;
}
inline std::vector<double> roundTo(const poplar::Type &type, std::vector<double> v) {
  for (auto &x : v)
    x = roundTo(type, x);
  return v;
}

/// d f / d x_i at x by central differences with step h.
inline std::vector<double>
finiteDifference(const std::function<double(const std::vector<double> &)> &f, std::vector<double> x,
                 double h = 1e-4) {
  std::vector<double> g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double keep = x[i];
    x[i] = keep + h;
    const double up = f(x);
    x[i] = keep - h;
    const double down = f(x);
    x[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

inline double dot(const std::vector<double> &a, const std::vector<double> &b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    s += a[i] * b[i];
  return s;
}

/// ‖a − b‖₂ / ‖b‖₂ (‖a‖₂ when b is all zeros): the residual the linear-algebra suites bound.
inline double relativeError(const std::vector<double> &a, const std::vector<double> &b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

} // namespace reference
