// Golden reference of poplin/Convolution.hpp: the full ConvParams semantics (input and kernel
// truncation, dilation, padding and flips; output truncation, stride and padding; groups), built
// by materialising each transformed axis as a list of source indices — independently of poplin's
// own index arithmetic — and summing every product in double.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

#include <poplin/ConvParams.hpp>

namespace reference {

using poplin::ConvParams;

/// One axis after an input transform: the source index of each element, or -1 for a zero.
inline std::vector<long> transformedAxis(std::size_t size, const ConvParams::InputTransform &t,
                                         unsigned d) {
  std::vector<long> axis;
  for (std::size_t i = t.truncationLower[d]; i + t.truncationUpper[d] < size; ++i) {
    if (!axis.empty())
      axis.insert(axis.end(), t.dilation[d] - 1, -1);
    axis.push_back(long(i));
  }
  axis.insert(axis.begin(), t.paddingLower[d], -1);
  axis.insert(axis.end(), t.paddingUpper[d], -1);
  if (t.flip[d])
    std::reverse(axis.begin(), axis.end());
  return axis;
}

/// Each final output position's raw (untransformed) output position, or -1 for padding.
inline std::vector<long> outputAxis(std::size_t rawSize, const ConvParams::OutputTransform &t,
                                    unsigned d) {
  std::vector<long> axis(t.paddingLower[d], -1);
  for (std::size_t r = t.truncationLower[d]; r + t.truncationUpper[d] < rawSize; r += t.stride[d])
    axis.push_back(long(r));
  axis.insert(axis.end(), t.paddingUpper[d], -1);
  return axis;
}

/// Calls f(inIndex, weightIndex, outIndex) for every product of the convolution (row-major
/// indices into in [B][G*IC][fields], weights [G][OC][IC][kernel], out [B][G*OC][out fields]).
template <class F> void forEachProduct(const ConvParams &p, F &&f) {
  const unsigned dims = unsigned(p.getNumFieldDims());
  std::array<std::vector<long>, 3> inAxis, kAxis, outAx;
  std::array<std::size_t, 3> inSize{1, 1, 1}, kSize{1, 1, 1}, outSize{1, 1, 1};
  for (unsigned d = 0; d < 3; ++d) {
    if (d < dims) {
      inAxis[d] = transformedAxis(p.inputFieldShape[d], p.inputTransform, d);
      kAxis[d] = transformedAxis(p.kernelShape[d], p.kernelTransform, d);
      outAx[d] = outputAxis(inAxis[d].size() - kAxis[d].size() + 1, p.outputTransform, d);
      inSize[d] = p.inputFieldShape[d];
      kSize[d] = p.kernelShape[d];
      outSize[d] = outAx[d].size();
    } else {
      inAxis[d] = kAxis[d] = outAx[d] = {0};
    }
  }
  const std::size_t G = p.numConvGroups, IC = p.inputChannelsPerConvGroup;
  const std::size_t OC = p.outputChannelsPerConvGroup;
  const std::size_t inField = inSize[0] * inSize[1] * inSize[2];
  const std::size_t kField = kSize[0] * kSize[1] * kSize[2];
  const std::size_t outField = outSize[0] * outSize[1] * outSize[2];
  for (std::size_t b = 0; b < p.batchSize; ++b)
    for (std::size_t g = 0; g < G; ++g)
      for (std::size_t oc = 0; oc < OC; ++oc)
        for (std::size_t o0 = 0; o0 < outSize[0]; ++o0)
          for (std::size_t o1 = 0; o1 < outSize[1]; ++o1)
            for (std::size_t o2 = 0; o2 < outSize[2]; ++o2) {
              const long r0 = outAx[0][o0], r1 = outAx[1][o1], r2 = outAx[2][o2];
              if (r0 < 0 || r1 < 0 || r2 < 0)
                continue;
              const std::size_t outIndex =
                  (b * G * OC + g * OC + oc) * outField + (o0 * outSize[1] + o1) * outSize[2] + o2;
              for (std::size_t j0 = 0; j0 < kAxis[0].size(); ++j0)
                for (std::size_t j1 = 0; j1 < kAxis[1].size(); ++j1)
                  for (std::size_t j2 = 0; j2 < kAxis[2].size(); ++j2) {
                    const long k0 = kAxis[0][j0], k1 = kAxis[1][j1], k2 = kAxis[2][j2];
                    const long i0 = inAxis[0][r0 + j0], i1 = inAxis[1][r1 + j1],
                               i2 = inAxis[2][r2 + j2];
                    if (k0 < 0 || k1 < 0 || k2 < 0 || i0 < 0 || i1 < 0 || i2 < 0)
                      continue;
                    for (std::size_t ic = 0; ic < IC; ++ic) {
                      const std::size_t inIndex = (b * G * IC + g * IC + ic) * inField +
                                                  (i0 * inSize[1] + i1) * inSize[2] + i2;
                      const std::size_t wIndex =
                          ((g * OC + oc) * IC + ic) * kField + (k0 * kSize[1] + k1) * kSize[2] + k2;
                      f(inIndex, wIndex, outIndex);
                    }
                  }
            }
}

inline std::size_t product(const std::vector<std::size_t> &v) {
  std::size_t n = 1;
  for (auto x : v)
    n *= x;
  return n;
}
inline std::size_t inputElements(const ConvParams &p) {
  return p.batchSize * p.getNumInputChans() * product(p.inputFieldShape);
}
inline std::size_t weightElements(const ConvParams &p) {
  return p.numConvGroups * p.inputChannelsPerConvGroup * p.outputChannelsPerConvGroup *
         product(p.kernelShape);
}
inline std::size_t outputElements(const ConvParams &p) {
  return p.batchSize * p.getNumOutputChans() * product(p.getOutputFieldShape());
}

inline std::vector<double> referenceForward(const ConvParams &p, const std::vector<float> &in,
                                            const std::vector<float> &w) {
  std::vector<double> out(outputElements(p), 0.0);
  forEachProduct(p, [&](std::size_t i, std::size_t k, std::size_t o) {
    out[o] += double(in[i]) * double(w[k]);
  });
  return out;
}
inline std::vector<double> referenceInputGrad(const ConvParams &p, const std::vector<float> &dOut,
                                              const std::vector<float> &w) {
  std::vector<double> dIn(inputElements(p), 0.0);
  forEachProduct(p, [&](std::size_t i, std::size_t k, std::size_t o) {
    dIn[i] += double(dOut[o]) * double(w[k]);
  });
  return dIn;
}
inline std::vector<double> referenceWeightGrad(const ConvParams &p, const std::vector<float> &dOut,
                                               const std::vector<float> &in) {
  std::vector<double> dW(weightElements(p), 0.0);
  forEachProduct(p, [&](std::size_t i, std::size_t k, std::size_t o) {
    dW[k] += double(dOut[o]) * double(in[i]);
  });
  return dW;
}

/// poplin::fullyConnectedWeightTranspose: forward fully-connected weights held as 1-d
/// convolution weights w[g][i][o][k] ([groups][inChans][outChans][kernel]) rearranged for the
/// backward pass, out[g][o][i][k] = w[g][i][o][k].
inline std::vector<double> fullyConnectedWeightTranspose(std::size_t groups, std::size_t inChans,
                                                         std::size_t outChans, std::size_t kernel,
                                                         const std::vector<double> &w) {
  std::vector<double> out(w.size());
  for (std::size_t g = 0; g < groups; ++g)
    for (std::size_t i = 0; i < inChans; ++i)
      for (std::size_t o = 0; o < outChans; ++o)
        for (std::size_t k = 0; k < kernel; ++k)
          out[((g * outChans + o) * inChans + i) * kernel + k] =
              w[((g * inChans + i) * outChans + o) * kernel + k];
  return out;
}

} // namespace reference
