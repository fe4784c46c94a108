// Golden reference for popnn/Recurrent.hpp: the vanilla recurrent layer
//   y_s = NL(x_s · Wff + y_{s-1} · Wfb + b),  y_{-1} = y0,
// and its gradients by backpropagation through time.
// Layouts (flat, row-major): x [S][B][I]; y0 [B][O]; Wff [I][O]; Wfb [O][O]; b [O]; y [S][B][O].
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace reference {

enum class RnnActivation { TANH, RELU, SIGMOID };

inline double rnnActivate(RnnActivation a, double x) {
  switch (a) {
  case RnnActivation::TANH:
    return std::tanh(x);
  case RnnActivation::RELU:
    return x > 0 ? x : 0;
  default:
    return 1 / (1 + std::exp(-x));
  }
}

/// d NL / d pre-activation, from the activation's output y.
inline double rnnActivationSlope(RnnActivation a, double y) {
  switch (a) {
  case RnnActivation::TANH:
    return 1 - y * y;
  case RnnActivation::RELU:
    return y > 0 ? 1 : 0;
  default:
    return y * (1 - y);
  }
}

struct RnnShape {
  std::size_t S, B, I, O;
};

inline std::vector<double> rnnForward(const RnnShape &s, RnnActivation a,
                                      const std::vector<double> &x, const std::vector<double> &y0,
                                      const std::vector<double> &Wff,
                                      const std::vector<double> &Wfb,
                                      const std::vector<double> &b) {
  std::vector<double> y(s.S * s.B * s.O);
  for (std::size_t t = 0; t < s.S; ++t)
    for (std::size_t n = 0; n < s.B; ++n)
      for (std::size_t j = 0; j < s.O; ++j) {
        double sum = b[j];
        for (std::size_t k = 0; k < s.I; ++k)
          sum += x[(t * s.B + n) * s.I + k] * Wff[k * s.O + j];
        for (std::size_t k = 0; k < s.O; ++k) {
          const double prev = t == 0 ? y0[n * s.O + k] : y[((t - 1) * s.B + n) * s.O + k];
          sum += prev * Wfb[k * s.O + j];
        }
        y[(t * s.B + n) * s.O + j] = rnnActivate(a, sum);
      }
  return y;
}

struct RnnGradients {
  std::vector<double> dx, dWff, dWfb, db; ///< shaped like x, Wff, Wfb, b
};

/// Gradients of L = Σ dy·y (dy [S][B][O]).
inline RnnGradients rnnBackward(const RnnShape &s, RnnActivation a, const std::vector<double> &x,
                                const std::vector<double> &y0, const std::vector<double> &Wff,
                                const std::vector<double> &Wfb, const std::vector<double> &b,
                                const std::vector<double> &dy) {
  const auto y = rnnForward(s, a, x, y0, Wff, Wfb, b);
  RnnGradients g{std::vector<double>(x.size()), std::vector<double>(Wff.size()),
                 std::vector<double>(Wfb.size()), std::vector<double>(b.size())};
  std::vector<double> carry(s.B * s.O, 0.0); // gradient reaching y_s from step s+1
  for (std::size_t t = s.S; t-- > 0;) {
    std::vector<double> d(s.B * s.O), next(s.B * s.O, 0.0);
    for (std::size_t e = 0; e < s.B * s.O; ++e)
      d[e] = (dy[t * s.B * s.O + e] + carry[e]) * rnnActivationSlope(a, y[t * s.B * s.O + e]);
    for (std::size_t n = 0; n < s.B; ++n)
      for (std::size_t j = 0; j < s.O; ++j) {
        const double dj = d[n * s.O + j];
        g.db[j] += dj;
        for (std::size_t k = 0; k < s.I; ++k) {
          g.dWff[k * s.O + j] += x[(t * s.B + n) * s.I + k] * dj;
          g.dx[(t * s.B + n) * s.I + k] += Wff[k * s.O + j] * dj;
        }
        for (std::size_t k = 0; k < s.O; ++k) {
          const double prev = t == 0 ? y0[n * s.O + k] : y[((t - 1) * s.B + n) * s.O + k];
          g.dWfb[k * s.O + j] += prev * dj;
          next[n * s.O + k] += Wfb[k * s.O + j] * dj;
        }
      }
    carry = next;
  }
  return g;
}

} // namespace reference
