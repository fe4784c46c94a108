// Golden reference for popnn/Pooling.hpp: MAX, AVG and SUM pooling of [B][C][F1][F2]… planes
// over 1-, 2- or 3-D windows, and their input gradients.
//
// Semantics (PopLibs' reference, lib/poplibs_test/Pooling.cpp):
//  - output o of dimension i reads input o * stride[i] + k - padLower[i] for kernel offset k;
//    positions outside [0, field[i]) are padding and take no part in the window;
//  - the output field is (field + padLower + padUpper - kernel) / stride + 1 per dimension;
//  - MAX of a window that covers only padding is 0 (it has no maximum); AVG divides by the number
//    of real inputs in the window (0 for a window of padding alone); SUM adds the real inputs;
//  - the MAX input gradient sends each window's gradient to every real input equal to the
//    window's maximum (divided by how many there are when `scaled`); AVG and SUM spread it back
//    over the window's real inputs (AVG scaled by 1 / their number).
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "Common.hpp"

namespace reference {

enum class PoolKind { MAX, AVG, SUM };

struct PoolGeometry {
  std::size_t batch = 1, channels = 1;
  std::vector<std::size_t> field, kernel, stride;
  std::vector<int> padLower, padUpper;

  std::vector<std::size_t> outField() const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < field.size(); ++i)
      out.push_back((field[i] + padLower[i] + padUpper[i] - kernel[i]) / stride[i] + 1);
    return out;
  }
};

namespace detail_pool {

/// Calls fn(flat input index) for every real input in the window of output `o` (flat in
/// outField) of one plane.
template <class Fn> void forEachInWindow(const PoolGeometry &g, std::size_t o, Fn fn) {
  const auto outField = g.outField();
  const std::size_t d = g.field.size();
  std::vector<std::size_t> oc(d);
  for (std::size_t i = d, rem = o; i-- > 0; rem /= outField[i])
    oc[i] = rem % outField[i];
  for (std::size_t k = 0; k < numElements(g.kernel); ++k) {
    std::vector<std::size_t> kc(d);
    for (std::size_t i = d, rem = k; i-- > 0; rem /= g.kernel[i])
      kc[i] = rem % g.kernel[i];
    std::size_t flat = 0;
    bool inside = true;
    for (std::size_t i = 0; i < d; ++i) {
      const long pos = static_cast<long>(oc[i] * g.stride[i] + kc[i]) - g.padLower[i];
      inside = inside && pos >= 0 && pos < static_cast<long>(g.field[i]);
      flat = flat * g.field[i] + (inside ? static_cast<std::size_t>(pos) : 0);
    }
    if (inside)
      fn(flat);
  }
}

} // namespace detail_pool

/// Forward pooling of `in` ([B][C][field…] flat) into [B][C][outField…].
inline std::vector<double> pool(PoolKind kind, const PoolGeometry &g,
                                const std::vector<double> &in) {
  const std::size_t planes = g.batch * g.channels, inPlane = numElements(g.field),
                    outPlane = numElements(g.outField());
  std::vector<double> out(planes * outPlane);
  for (std::size_t p = 0; p < planes; ++p)
    for (std::size_t o = 0; o < outPlane; ++o) {
      double acc = kind == PoolKind::MAX ? -std::numeric_limits<double>::infinity() : 0.0;
      std::size_t count = 0;
      detail_pool::forEachInWindow(g, o, [&](std::size_t i) {
        const double v = in[p * inPlane + i];
        acc = kind == PoolKind::MAX ? std::max(acc, v) : acc + v;
        ++count;
      });
      if (count == 0)
        acc = 0.0; // a window of padding alone
      else if (kind == PoolKind::AVG)
        acc /= static_cast<double>(count);
      out[p * outPlane + o] = acc;
    }
  return out;
}

/// Input gradient ([B][C][field…]) from the pooled gradient; `pooled` is pool(kind, g, in).
inline std::vector<double> poolInputGradient(PoolKind kind, const PoolGeometry &g,
                                             const std::vector<double> &in,
                                             const std::vector<double> &pooled,
                                             const std::vector<double> &pooledGradient,
                                             bool scaled) {
  const std::size_t planes = g.batch * g.channels, inPlane = numElements(g.field),
                    outPlane = numElements(g.outField());
  std::vector<double> grad(planes * inPlane, 0.0);
  for (std::size_t p = 0; p < planes; ++p)
    for (std::size_t o = 0; o < outPlane; ++o) {
      const double y = pooled[p * outPlane + o], dy = pooledGradient[p * outPlane + o];
      std::size_t count = 0, hits = 0;
      detail_pool::forEachInWindow(g, o, [&](std::size_t i) {
        ++count;
        hits += in[p * inPlane + i] == y;
      });
      detail_pool::forEachInWindow(g, o, [&](std::size_t i) {
        double &dx = grad[p * inPlane + i];
        if (kind == PoolKind::MAX) {
          if (in[p * inPlane + i] == y)
            dx += scaled ? dy / static_cast<double>(hits) : dy;
        } else {
          dx += kind == PoolKind::AVG ? dy / static_cast<double>(count) : dy;
        }
      });
    }
  return grad;
}

} // namespace reference
