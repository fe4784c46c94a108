// Golden reference for popnn/NonLinearity.hpp's element-wise types (forward and input gradient).
//
// Semantics: sigmoid 1 / (1 + e^-x); hard sigmoid clamp(0.2 x + 0.5, 0, 1); relu max(0, x);
// tanh; gelu x Φ(x) with the tanh approximation Φ(x) ≈ (1 + tanh(√(2/π)(x + 0.044715 x³))) / 2;
// gelu_erf x Φ(x) exactly; swish x sigmoid(x). The input gradient takes the forward OUTPUT for
// sigmoid, hard sigmoid (slope 0.2 strictly inside (0, 1)), relu (1 where the output is > 0)
// and tanh, and the forward INPUT for the gelus and swish.
#pragma once

#include <algorithm>
#include <cmath>

namespace reference {

enum class ElementWiseNonLinearity { SIGMOID, HARD_SIGMOID, RELU, TANH, GELU, GELU_ERF, SWISH };

inline double nonLinearity(ElementWiseNonLinearity t, double x) {
  const double s = 1.0 / (1.0 + std::exp(-x));
  switch (t) {
  case ElementWiseNonLinearity::SIGMOID:
    return s;
  case ElementWiseNonLinearity::HARD_SIGMOID:
    return std::clamp(0.2 * x + 0.5, 0.0, 1.0);
  case ElementWiseNonLinearity::RELU:
    return std::max(0.0, x);
  case ElementWiseNonLinearity::TANH:
    return std::tanh(x);
  case ElementWiseNonLinearity::GELU:
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  case ElementWiseNonLinearity::GELU_ERF:
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  case ElementWiseNonLinearity::SWISH:
    return x * s;
  }
  return x;
}

/// The input gradient given `act` (output or input, as above) and the output gradient g.
inline double nonLinearityGradient(ElementWiseNonLinearity t, double act, double g) {
  switch (t) {
  case ElementWiseNonLinearity::SIGMOID:
    return g * act * (1 - act);
  case ElementWiseNonLinearity::HARD_SIGMOID:
    return act > 0 && act < 1 ? 0.2 * g : 0.0;
  case ElementWiseNonLinearity::RELU:
    return act > 0 ? g : 0.0;
  case ElementWiseNonLinearity::TANH:
    return g * (1 - act * act);
  default: { // derivative of the forward at the input, by central difference in double
    const double h = 1e-6;
    return g * (nonLinearity(t, act + h) - nonLinearity(t, act - h)) / (2 * h);
  }
  }
}

} // namespace reference
