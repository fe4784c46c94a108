#include "ConvIndexing.hpp"

#include <algorithm>

namespace poplin::detail {

long inputIndex(const ConvParams &p, unsigned d, std::size_t oFinal, std::size_t k) {
  const auto &it = p.inputTransform, &kt = p.kernelTransform;
  const auto &ot = p.outputTransform;
  const long tk = long(p.getTransformedKernelSize(d)), ti = long(p.getTransformedInputSize(d));
  const long raw = ti - tk + 1;
  const long truncated = raw - long(ot.truncationLower[d]) - long(ot.truncationUpper[d]);
  const long strided = (truncated + ot.stride[d] - 1) / long(ot.stride[d]);
  long o = long(oFinal) - long(ot.paddingLower[d]);
  if (o < 0 || o >= strided)
    return -1;
  const long r = long(ot.truncationLower[d]) + o * long(ot.stride[d]);
  if (long(k) < long(kt.truncationLower[d]) ||
      long(k) >= long(p.kernelShape[d]) - long(kt.truncationUpper[d]))
    return -1;
  long kp = long(kt.paddingLower[d]) + (long(k) - long(kt.truncationLower[d])) * kt.dilation[d];
  if (kt.flip[d])
    kp = tk - 1 - kp;
  long t = r + kp;
  if (it.flip[d])
    t = ti - 1 - t;
  const long u = t - long(it.paddingLower[d]);
  const long kept =
      long(p.inputFieldShape[d]) - long(it.truncationLower[d]) - long(it.truncationUpper[d]);
  const long dilated = kept == 0 ? 0 : (kept - 1) * long(it.dilation[d]) + 1;
  if (u < 0 || u >= dilated || u % long(it.dilation[d]) != 0)
    return -1;
  return u / long(it.dilation[d]) + long(it.truncationLower[d]);
}

std::vector<int> inputIndexTable(const ConvParams &p, unsigned d, std::size_t oBegin,
                                 std::size_t oEnd, std::pair<std::size_t, std::size_t> &range) {
  const std::size_t count = oEnd - oBegin, kSize = p.kernelShape[d];
  std::vector<int> table(kSize * count);
  long lo = -1, hi = -1;
  for (std::size_t k = 0; k < kSize; ++k)
    for (std::size_t o = oBegin; o < oEnd; ++o) {
      const long i = inputIndex(p, d, o, k);
      table[k * count + (o - oBegin)] = int(i);
      if (i >= 0) {
        lo = lo < 0 ? i : std::min(lo, i);
        hi = std::max(hi, i + 1);
      }
    }
  if (lo < 0) {
    range = {0, 0};
    return table;
  }
  range = {std::size_t(lo), std::size_t(hi)};
  for (auto &v : table)
    if (v >= 0)
      v -= int(lo);
  return table;
}

} // namespace poplin::detail
