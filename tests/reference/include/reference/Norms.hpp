// Golden reference for popnn's normalisations (popnn/BatchNorm.hpp, GroupNorm.hpp,
// LayerNorm.hpp, InstanceNorm.hpp, Norms.hpp) over [B][C][F] activations (F = the product of the
// field dimensions, 1 for rank 2).
//
// Semantics:
//  - a statistic covers the elements `statOf(b, c)` maps to: per channel (batch norm), per sample
//    and group (group norm; strided: channel c in group c % G, contiguous: c / (C / G)), per
//    sample (layer norm), per sample and channel (instance norm, G = C);
//  - mean = Σx / n; invStdDev = 1 / sqrt(var + eps), var the biased variance (× n / (n - 1) when
//    unbiased and n > 1); a statistic over no elements has mean 0 and var 0;
//  - normalised = gamma[c] * (x - mean) * invStdDev + beta[c];
//  - gammaDelta[c] = Σ gradsIn · whitened, betaDelta[c] = Σ gradsIn over batch and field (0 when
//    there are none); the input gradient is that of the whole layer, statistics included:
//    invStdDev * (g - mean(g) - whitened * mean(g · whitened)) over each statistic, g = gradsIn ·
//    gamma[c];
//  - parameter update: p += scale * delta.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

#include "Common.hpp"

namespace reference {

struct NormShape {
  std::size_t batch = 0, channels = 0, field = 1;
  std::size_t numStats = 0;
  std::function<std::size_t(std::size_t b, std::size_t c)> statOf;

  static NormShape batchNorm(std::size_t B, std::size_t C, std::size_t F) {
    return {B, C, F, C, [](std::size_t, std::size_t c) { return c; }};
  }
  static NormShape groupNorm(std::size_t B, std::size_t C, std::size_t F, std::size_t G,
                             bool strided) {
    return {B, C, F, B * G, [C, G, strided](std::size_t b, std::size_t c) {
              return b * G + (strided ? c % G : c / (C / G));
            }};
  }
  static NormShape instanceNorm(std::size_t B, std::size_t C, std::size_t F) {
    return {B, C, F, B * C, [C](std::size_t b, std::size_t c) { return b * C + c; }};
  }
  std::size_t index(std::size_t b, std::size_t c, std::size_t f) const {
    return (b * channels + c) * field + f;
  }
};

struct NormStatistics {
  std::vector<double> mean, invStdDev;
};

inline NormStatistics normStatistics(const NormShape &s, const std::vector<double> &x, double eps,
                                     bool unbiased) {
  std::vector<double> sum(s.numStats, 0.0), count(s.numStats, 0.0), sq(s.numStats, 0.0);
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t c = 0; c < s.channels; ++c)
      for (std::size_t f = 0; f < s.field; ++f) {
        sum[s.statOf(b, c)] += x[s.index(b, c, f)];
        count[s.statOf(b, c)] += 1;
      }
  NormStatistics r;
  r.mean.assign(s.numStats, 0.0);
  r.invStdDev.assign(s.numStats, 0.0);
  for (std::size_t i = 0; i < s.numStats; ++i)
    r.mean[i] = count[i] > 0 ? sum[i] / count[i] : 0.0;
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t c = 0; c < s.channels; ++c)
      for (std::size_t f = 0; f < s.field; ++f) {
        const double d = x[s.index(b, c, f)] - r.mean[s.statOf(b, c)];
        sq[s.statOf(b, c)] += d * d;
      }
  for (std::size_t i = 0; i < s.numStats; ++i) {
    const double n = count[i];
    const double var = n > 0 ? sq[i] / (unbiased && n > 1 ? n - 1 : n) : 0.0;
    r.invStdDev[i] = 1.0 / std::sqrt(var + eps);
  }
  return r;
}

/// (gamma * whitened + beta, whitened).
inline std::pair<std::vector<double>, std::vector<double>>
normalise(const NormShape &s, const std::vector<double> &x, const NormStatistics &st,
          const std::vector<double> &gamma, const std::vector<double> &beta) {
  std::vector<double> y(x.size()), w(x.size());
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t c = 0; c < s.channels; ++c)
      for (std::size_t f = 0; f < s.field; ++f) {
        const std::size_t i = s.index(b, c, f), k = s.statOf(b, c);
        w[i] = (x[i] - st.mean[k]) * st.invStdDev[k];
        y[i] = gamma[c] * w[i] + beta[c];
      }
  return {y, w};
}

/// (gammaDelta, betaDelta) per channel.
inline std::pair<std::vector<double>, std::vector<double>>
normParamGradients(const NormShape &s, const std::vector<double> &whitened,
                   const std::vector<double> &gradsIn) {
  std::vector<double> dGamma(s.channels, 0.0), dBeta(s.channels, 0.0);
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t c = 0; c < s.channels; ++c)
      for (std::size_t f = 0; f < s.field; ++f) {
        const std::size_t i = s.index(b, c, f);
        dGamma[c] += gradsIn[i] * whitened[i];
        dBeta[c] += gradsIn[i];
      }
  return {dGamma, dBeta};
}

/// Gradient with respect to the input through the whole layer.
inline std::vector<double> normGradients(const NormShape &s, const std::vector<double> &whitened,
                                         const std::vector<double> &gradsIn,
                                         const std::vector<double> &invStdDev,
                                         const std::vector<double> &gamma) {
  std::vector<double> sumG(s.numStats, 0.0), sumGW(s.numStats, 0.0), count(s.numStats, 0.0);
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t c = 0; c < s.channels; ++c)
      for (std::size_t f = 0; f < s.field; ++f) {
        const std::size_t i = s.index(b, c, f), k = s.statOf(b, c);
        const double g = gradsIn[i] * gamma[c];
        sumG[k] += g;
        sumGW[k] += g * whitened[i];
        count[k] += 1;
      }
  std::vector<double> dx(whitened.size());
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t c = 0; c < s.channels; ++c)
      for (std::size_t f = 0; f < s.field; ++f) {
        const std::size_t i = s.index(b, c, f), k = s.statOf(b, c);
        const double g = gradsIn[i] * gamma[c];
        dx[i] = invStdDev[k] * (g - sumG[k] / count[k] - whitened[i] * sumGW[k] / count[k]);
      }
  return dx;
}

} // namespace reference
