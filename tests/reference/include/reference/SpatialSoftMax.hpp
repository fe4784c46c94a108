// Golden reference for popnn/SpatialSoftMax.hpp.
//
// Semantics (PopLibs' spatialSoftMax2D): fields [F][H][W] are divided by the temperature, then
// (unless disabled) one softmax runs over all F·H·W elements jointly; the result for field f is
// (Σ p[f][h][w]·y_h, Σ p[f][h][w]·x_w) with y_h = -1 + 2h / (H - 1), x_w = -1 + 2w / (W - 1)
// (a dimension of size 1 has its one coordinate at -1). Output [F][2], y first.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace reference {

inline std::vector<double> spatialSoftMax2D(const std::vector<double> &fields, std::size_t F,
                                            std::size_t H, std::size_t W, double temperature,
                                            bool disableSoftmax = false) {
  std::vector<double> p(fields.size());
  for (std::size_t i = 0; i < fields.size(); ++i)
    p[i] = fields[i] / temperature;
  if (!disableSoftmax) {
    double m = -INFINITY, s = 0;
    for (double v : p)
      m = std::max(m, v);
    for (double &v : p) {
      v = std::exp(v - m);
      s += v;
    }
    for (double &v : p)
      v /= s;
  }
  auto coord = [](std::size_t i, std::size_t n) {
    return n == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
  };
  std::vector<double> out(F * 2, 0.0);
  for (std::size_t f = 0; f < F; ++f)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t w = 0; w < W; ++w) {
        const double v = p[(f * H + h) * W + w];
        out[f * 2] += v * coord(h, H);
        out[f * 2 + 1] += v * coord(w, W);
      }
  return out;
}

} // namespace reference
