// Golden reference of popops/Reduce.hpp: popops::reduce over any set of dimensions with every
// popops::Operation, in double. An empty group gives the operation's identity (0 for ADD and
// SQUARE_ADD, 1 for MUL, -inf for MAX and LOG_ADD, +inf for MIN, true for LOGICAL_AND).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include <popops/OperationDef.hpp>

namespace reference {

/// Naive reference: folds element i of `in` (row-major, shape `shape`) into the output index
/// made of its non-reduced coordinates, in double.
inline std::vector<double> reduce(const std::vector<double> &in,
                                  const std::vector<std::size_t> &shape,
                                  const std::vector<std::size_t> &dims, popops::Operation op) {
  using popops::Operation;
  std::vector<bool> reduced(shape.size(), false);
  for (auto d : dims)
    reduced[d] = true;
  std::size_t numOut = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!reduced[d])
      numOut *= shape[d];
  std::vector<std::vector<double>> groups(numOut);
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::size_t rem = i, o = 0, stride = 1;
    for (std::size_t d = shape.size(); d-- > 0;) {
      const std::size_t c = rem % shape[d];
      rem /= shape[d];
      if (!reduced[d]) {
        o += c * stride;
        stride *= shape[d];
      }
    }
    groups[o].push_back(in[i]);
  }
  std::vector<double> out(numOut);
  for (std::size_t o = 0; o < numOut; ++o) {
    const auto &g = groups[o];
    double r = 0;
    switch (op) {
    case Operation::ADD:
      for (double x : g)
        r += x;
      break;
    case Operation::SQUARE_ADD:
      for (double x : g)
        r += x * x;
      break;
    case Operation::MUL:
      r = 1;
      for (double x : g)
        r *= x;
      break;
    case Operation::MAX:
      r = -std::numeric_limits<double>::infinity();
      for (double x : g)
        r = std::max(r, x);
      break;
    case Operation::MIN:
      r = std::numeric_limits<double>::infinity();
      for (double x : g)
        r = std::min(r, x);
      break;
    case Operation::LOGICAL_AND:
      r = 1;
      for (double x : g)
        r = (r != 0 && x != 0) ? 1 : 0;
      break;
    case Operation::LOGICAL_OR:
      for (double x : g)
        r = (r != 0 || x != 0) ? 1 : 0;
      break;
    case Operation::LOG_ADD: {
      double m = -std::numeric_limits<double>::infinity(), s = 0;
      for (double x : g)
        m = std::max(m, x);
      for (double x : g)
        s += std::exp(x - m);
      r = g.empty() ? m : m + std::log(s);
      break;
    }
    }
    out[o] = r;
  }
  return out;
}

} // namespace reference
