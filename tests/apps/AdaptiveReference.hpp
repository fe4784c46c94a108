// The AdamW and LAMB updates in double precision on the host, as the papers write them: the
// golden results of the optimiser, accumulation and loss-scaling tests.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <poplar/Type.hpp>
#include <tessera/apps/AdaptiveOptimisers.hpp>

#include "OptimiserRig.hpp"

namespace tessera::apps::test {

enum class Kind { AdamW, Lamb };

/// One parameter's host state, updated in double precision as the papers write it.
struct HostParameter {
  std::string name;
  poplar::Type type;
  bool decay;
  std::vector<double> w, m, v;
};

/// The update both optimisers make, in double; `t` is the 1-based step.
inline void hostStep(Kind kind, const AdaptiveOptions &o, std::vector<HostParameter> &params,
                     const std::vector<std::vector<float>> &grads, double lr, double gradScale,
                     int t) {
  const double b1 = o.beta1, b2 = o.beta2;
  for (std::size_t k = 0; k < params.size(); ++k) {
    HostParameter &p = params[k];
    const double wd = p.decay ? o.weightDecay : 0.0;
    std::vector<double> u(p.w.size());
    double wNorm2 = 0, uNorm2 = 0;
    for (std::size_t i = 0; i < p.w.size(); ++i) {
      const double g = grads[k][i] * gradScale;
      p.m[i] = b1 * p.m[i] + (1 - b1) * g;
      p.v[i] = b2 * p.v[i] + (1 - b2) * g * g;
      const double mHat = o.biasCorrection ? p.m[i] / (1 - std::pow(b1, t)) : p.m[i];
      const double vHat = o.biasCorrection ? p.v[i] / (1 - std::pow(b2, t)) : p.v[i];
      u[i] = mHat / (std::sqrt(vHat) + o.epsilon) + wd * p.w[i];
      wNorm2 += p.w[i] * p.w[i];
      uNorm2 += u[i] * u[i];
    }
    const double ratio = kind == Kind::Lamb && wNorm2 > 0 && uNorm2 > 0
                             ? std::sqrt(wNorm2) / std::sqrt(uNorm2)
                             : 1.0;
    for (std::size_t i = 0; i < p.w.size(); ++i) {
      p.w[i] -= lr * ratio * u[i];
      if (p.type == poplar::HALF)
        p.w[i] = roundToHalf(p.w[i]);
    }
  }
}

} // namespace tessera::apps::test
