// Golden reference for poplin/MultiConvolution.hpp. A multi-convolution is a set of independent
// convolutions: result i is exactly convolution i on its own operands (what each would give
// through poplin/Convolution.hpp), so the reference is one direct 2-D convolution applied per
// entry, plus its weight gradient.
#pragma once

#include <cstddef>
#include <vector>

#include <reference/Common.hpp>

namespace reference {

/// One 2-D convolution: input [batch][groups·inChans][height][width], weights
/// [groups][outChans][inChans][kernelH][kernelW], output [batch][groups·outChans][outH][outW],
/// zero padding `pad` on every side and stride `stride` in both spatial dimensions.
struct Conv2d {
  std::size_t batch = 1, groups = 1, inChans = 1, outChans = 1;
  std::size_t height = 1, width = 1, kernelH = 1, kernelW = 1;
  std::size_t pad = 0, stride = 1;
  std::size_t outHeight() const { return (height + 2 * pad - kernelH) / stride + 1; }
  std::size_t outWidth() const { return (width + 2 * pad - kernelW) / stride + 1; }
  std::size_t inputElements() const { return batch * groups * inChans * height * width; }
  std::size_t weightElements() const { return groups * outChans * inChans * kernelH * kernelW; }
  std::size_t outputElements() const {
    return batch * groups * outChans * outHeight() * outWidth();
  }

  /// Calls f(inIndex, weightIndex, outIndex) for every product that reads real (unpadded) input.
  template <class F> void forEachProduct(F &&f) const {
    const std::size_t oh = outHeight(), ow = outWidth();
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t g = 0; g < groups; ++g)
        for (std::size_t oc = 0; oc < outChans; ++oc)
          for (std::size_t y = 0; y < oh; ++y)
            for (std::size_t x = 0; x < ow; ++x)
              for (std::size_t ic = 0; ic < inChans; ++ic)
                for (std::size_t ky = 0; ky < kernelH; ++ky)
                  for (std::size_t kx = 0; kx < kernelW; ++kx) {
                    const long iy = long(y * stride + ky) - long(pad);
                    const long ix = long(x * stride + kx) - long(pad);
                    if (iy < 0 || ix < 0 || iy >= long(height) || ix >= long(width))
                      continue; // a padding zero
                    const std::size_t in =
                        (((b * groups + g) * inChans + ic) * height + std::size_t(iy)) * width +
                        std::size_t(ix);
                    const std::size_t w =
                        (((g * outChans + oc) * inChans + ic) * kernelH + ky) * kernelW + kx;
                    const std::size_t out = (((b * groups + g) * outChans + oc) * oh + y) * ow + x;
                    f(in, w, out);
                  }
  }
};

/// out = conv(in, weights).
inline std::vector<double> convolution(const Conv2d &c, const std::vector<double> &in,
                                       const std::vector<double> &weights) {
  std::vector<double> out(c.outputElements(), 0.0);
  c.forEachProduct(
      [&](std::size_t i, std::size_t w, std::size_t o) { out[o] += in[i] * weights[w]; });
  return out;
}

/// d loss / d weights given d loss / d out (`zDeltas`) and the forward input.
inline std::vector<double> weightDeltas(const Conv2d &c, const std::vector<double> &zDeltas,
                                        const std::vector<double> &in) {
  std::vector<double> dw(c.weightElements(), 0.0);
  c.forEachProduct(
      [&](std::size_t i, std::size_t w, std::size_t o) { dw[w] += zDeltas[o] * in[i]; });
  return dw;
}

/// Every convolution of a multi-convolution on its own operands.
inline std::vector<std::vector<double>>
multiConvolution(const std::vector<Conv2d> &convs, const std::vector<std::vector<double>> &inputs,
                 const std::vector<std::vector<double>> &weights) {
  std::vector<std::vector<double>> out;
  for (std::size_t i = 0; i < convs.size(); ++i)
    out.push_back(convolution(convs[i], inputs[i], weights[i]));
  return out;
}

} // namespace reference
