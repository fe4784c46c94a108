// Naive double-precision host references of the layers EfficientNet is built from (grouped
// convolution, batch norm with batch statistics, swish, sigmoid, squeeze-and-excitation) and the
// helpers the layer tests compare the device with: float-exact random inputs, central finite
// differences of a reference loss, and element-wise closeness. Shared by the single-layer tests
// and the tests of blocks composed of those layers, so a block's reference is built from the
// very pieces each layer was checked against.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace tessera::apps::test {

using Vec = std::vector<double>;

/// Uniform values in [lo, hi), each exactly a float (so host and device see the same inputs).
inline Vec randomValues(std::size_t n, unsigned seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist{float(lo), float(hi)};
  Vec v(n);
  for (auto &e : v)
    e = dist(rng);
  return v;
}

/// Values of magnitude in [0.5, 2) with random signs: never zero, so a zero output means
/// "dropped".
inline Vec nonZeroValues(std::size_t n, unsigned seed) {
  Vec v = randomValues(n, seed, 0.5, 2.0);
  std::mt19937 rng(seed + 1000);
  for (auto &e : v)
    e = rng() % 2 ? e : -e;
  return v;
}

inline double dot(const Vec &a, const Vec &b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    sum += a[i] * b[i];
  return sum;
}

/// Central difference of f with respect to v[i] (restored afterwards).
inline double finiteDifferenceAt(Vec &v, std::size_t i, const std::function<double()> &f,
                                 double step = 1e-4) {
  const double saved = v[i];
  v[i] = saved + step;
  const double up = f();
  v[i] = saved - step;
  const double down = f();
  v[i] = saved;
  return (up - down) / (2 * step);
}

/// Central difference of f at every element of `v` (restored afterwards).
inline Vec finiteDifference(Vec &v, const std::function<double()> &f, double step = 1e-4) {
  Vec grad(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    grad[i] = finiteDifferenceAt(v, i, f, step);
  return grad;
}

inline void expectClose(const Vec &got, const Vec &want, double tolerance,
                        const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tolerance * (1 + std::abs(want[i]))) << what << "[" << i << "]";
}

inline double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
inline double swish(double x) { return x * sigmoid(x); }

/// swish applied element-wise.
inline Vec referenceSwish(Vec x) {
  for (auto &e : x)
    e = swish(e);
  return x;
}

/// a + b element-wise.
inline Vec referenceAdd(Vec a, const Vec &b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] += b[i];
  return a;
}

// ---- Conv2d with groups ------------------------------------------------------------------------

struct ConvCase {
  const char *name;
  std::size_t batch, in, out, groups, height, width;
  unsigned kernel, stride, padding;
  bool bias;
  std::size_t outSize(std::size_t n) const { return (n + 2 * padding - kernel) / stride + 1; }
  std::size_t weightElements() const { return out * (in / groups) * kernel * kernel; }
};

/// y[b][o][i][j] = bias[o] + Σ over o's group's input channels and the kernel window, as a
/// plain loop in double. Weights [G][out/G][in/G][k][k], so output channel o's filters start
/// at o · (in/G) · k².
inline Vec referenceConv(const ConvCase &c, const Vec &x, const Vec &w, const Vec &bias) {
  const std::size_t OH = c.outSize(c.height), OW = c.outSize(c.width);
  const std::size_t inPerGroup = c.in / c.groups, outPerGroup = c.out / c.groups, k = c.kernel;
  Vec y(c.batch * c.out * OH * OW);
  for (std::size_t b = 0; b < c.batch; ++b)
    for (std::size_t o = 0; o < c.out; ++o)
      for (std::size_t i = 0; i < OH; ++i)
        for (std::size_t j = 0; j < OW; ++j) {
          const std::size_t group = o / outPerGroup;
          double acc = c.bias ? bias[o] : 0.0;
          for (std::size_t ic = 0; ic < inPerGroup; ++ic)
            for (std::size_t ky = 0; ky < k; ++ky)
              for (std::size_t kx = 0; kx < k; ++kx) {
                const long row = long(i * c.stride + ky) - long(c.padding);
                const long col = long(j * c.stride + kx) - long(c.padding);
                if (row < 0 || col < 0 || row >= long(c.height) || col >= long(c.width))
                  continue;
                const std::size_t channel = group * inPerGroup + ic;
                acc += x[((b * c.in + channel) * c.height + row) * c.width + col] *
                       w[((o * inPerGroup + ic) * k + ky) * k + kx];
              }
          y[((b * c.out + o) * OH + i) * OW + j] = acc;
        }
  return y;
}

// ---- Batch norm --------------------------------------------------------------------------------

/// Batch norm of x [B][C][field] with the batch's statistics (mean and biased variance over B
/// and the field, per channel): y = γ (x − μ) / sqrt(σ² + eps) + β.
inline Vec referenceBatchNorm(const Vec &x, std::size_t batch, std::size_t channels,
                              const Vec &gamma, const Vec &beta, double eps = 1e-5) {
  const std::size_t field = x.size() / (batch * channels);
  Vec y(x.size());
  for (std::size_t c = 0; c < channels; ++c) {
    double mean = 0, variance = 0;
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t f = 0; f < field; ++f)
        mean += x[(b * channels + c) * field + f];
    mean /= double(batch * field);
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t f = 0; f < field; ++f) {
        const double d = x[(b * channels + c) * field + f] - mean;
        variance += d * d;
      }
    variance /= double(batch * field);
    const double scale = gamma[c] / std::sqrt(variance + eps);
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t f = 0; f < field; ++f) {
        const std::size_t i = (b * channels + c) * field + f;
        y[i] = (x[i] - mean) * scale + beta[c];
      }
  }
  return y;
}

// ---- SqueezeExcite -----------------------------------------------------------------------------

struct SeShape {
  std::size_t B = 2, C = 6, H = 3, W = 4, R = 3;
};

/// y = x · sigmoid(swish(mean_hw(x) · W1 + b1) · W2 + b2) per sample and channel, in double,
/// with the parameters "<layer>/reduce/weights", "…/bias", "<layer>/expand/weights", "…/bias"
/// of `p`.
inline Vec referenceSqueezeExcite(const SeShape &s, const std::map<std::string, Vec> &p,
                                  const Vec &x, const std::string &layer = "se") {
  const Vec &w1 = p.at(layer + "/reduce/weights"), &b1 = p.at(layer + "/reduce/bias");
  const Vec &w2 = p.at(layer + "/expand/weights"), &b2 = p.at(layer + "/expand/bias");
  const std::size_t field = s.H * s.W;
  Vec y(x.size());
  for (std::size_t b = 0; b < s.B; ++b) {
    Vec squeezed(s.C, 0.0), reduced(s.R);
    for (std::size_t c = 0; c < s.C; ++c) {
      for (std::size_t f = 0; f < field; ++f)
        squeezed[c] += x[(b * s.C + c) * field + f];
      squeezed[c] /= double(field);
    }
    for (std::size_t r = 0; r < s.R; ++r) {
      double z = b1[r];
      for (std::size_t c = 0; c < s.C; ++c)
        z += squeezed[c] * w1[c * s.R + r];
      reduced[r] = swish(z);
    }
    for (std::size_t c = 0; c < s.C; ++c) {
      double z = b2[c];
      for (std::size_t r = 0; r < s.R; ++r)
        z += reduced[r] * w2[r * s.C + c];
      const double gate = sigmoid(z);
      for (std::size_t f = 0; f < field; ++f)
        y[(b * s.C + c) * field + f] = x[(b * s.C + c) * field + f] * gate;
    }
  }
  return y;
}

} // namespace tessera::apps::test
