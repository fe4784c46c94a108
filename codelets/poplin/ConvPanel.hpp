// Building a block's im2col panel (the general path, for every ConvParams transform).
#pragma once

#include <algorithm>
#include <cstddef>

#include "poplin/ConvGeometry.hpp"

namespace tessera::codelets::poplin::conv {

/// Fills col[row][j - nBegin] (row = (ic, kernel element), row stride ld) for columns
/// [nBegin, nEnd) of n = (batch, output position). `in` is [ic][batch][input positions] for
/// one group. Positions are walked with counters (no division per element); each run along
/// the innermost output dimension is one gather through its table row.
template <class In>
void buildPanel(const BlockGeometry &geo, const In *in, unsigned ics, unsigned batch,
                std::size_t nBegin, std::size_t nEnd, float *col, std::size_t ld) {
  const std::size_t outPos = geo.outPositions(), inPos = geo.inPositions();
  const std::size_t kElems = geo.kernelElements();
  const std::size_t in12 = std::size_t(geo.inSize[1]) * geo.inSize[2];
  const unsigned o0 = geo.outSize[0], o1 = geo.outSize[1], o2 = geo.outSize[2];
  const std::size_t b0 = nBegin / outPos, pos0 = nBegin % outPos;
  const unsigned q0 = unsigned(pos0 / (std::size_t(o1) * o2)), q1 = unsigned(pos0 / o2 % o1),
                 q2 = unsigned(pos0 % o2);
  for (unsigned ic = 0; ic < ics; ++ic)
    for (std::size_t kp = 0; kp < kElems; ++kp) {
      const unsigned k0 = unsigned(kp / (std::size_t(geo.kernel[1]) * geo.kernel[2]));
      const unsigned k1 = unsigned(kp / geo.kernel[2] % geo.kernel[1]);
      const unsigned k2 = unsigned(kp % geo.kernel[2]);
      const int *t0 = geo.table[0] + std::size_t(k0) * o0;
      const int *t1 = geo.table[1] + std::size_t(k1) * o1;
      const int *t2 = geo.table[2] + std::size_t(k2) * o2;
      float *dst = col + (ic * kElems + kp) * ld;
      std::size_t b = b0;
      unsigned p0 = q0, p1 = q1, p2 = q2;
      for (std::size_t j = nBegin; j < nEnd;) {
        const std::size_t run = std::min<std::size_t>(nEnd - j, o2 - p2);
        const int i0 = t0[p0], i1 = t1[p1];
        if (i0 < 0 || i1 < 0) {
          std::fill(dst, dst + run, 0.0f);
        } else {
          const In *base = in + (std::size_t(ic) * batch + b) * inPos + std::size_t(i0) * in12 +
                           std::size_t(i1) * geo.inSize[2];
          const int *t = t2 + p2;
          // Runs are usually zeros (padding), then consecutive inputs, then zeros: copy those
          // as blocks; anything else (dilation, strides) is gathered element by element.
          std::size_t lead = 0, trail = 0;
          while (lead < run && t[lead] < 0)
            ++lead;
          while (trail < run - lead && t[run - 1 - trail] < 0)
            ++trail;
          const std::size_t mid = run - lead - trail;
          if (mid > 0 && std::size_t(t[lead + mid - 1] - t[lead]) == mid - 1) {
            std::fill(dst, dst + lead, 0.0f);
            const In *src = base + t[lead];
            for (std::size_t x = 0; x < mid; ++x)
              dst[lead + x] = static_cast<float>(src[x]);
            std::fill(dst + lead + mid, dst + run, 0.0f);
          } else {
            for (std::size_t x = 0; x < run; ++x)
              dst[x] = t[x] >= 0 ? static_cast<float>(base[t[x]]) : 0.0f;
          }
        }
        dst += run;
        j += run;
        p2 = 0;
        if (++p1 == o1) {
          p1 = 0;
          if (++p0 == o0) {
            p0 = 0;
            ++b;
          }
        }
      }
    }
}

} // namespace tessera::codelets::poplin::conv
