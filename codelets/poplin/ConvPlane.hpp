// The in-place path for stride-1 blocks: a zero-padded copy of the block's input (the
// "plane") in which every im2col row is the plane shifted by a fixed offset.
//
// When every spatial table reads input o + off[k] for output o and kernel element k (zero where
// that falls outside the input) — stride 1 with any padding, kernel dilation or kernel flip —
// pad each input image to extents E_d = out_d + max(off) − min(off). Output position o then
// lives at plane column q(o) = Σ_d o_d · S_d (S_d the plane strides), and kernel element k's
// im2col row is the plane from offset Σ_d (off_d[k] − min(off_d)) · S_d. The kernels multiply
// those rows in place, computing the plane columns between valid outputs too; `efficiency` is
// the fraction of columns that are real outputs, which the vertices weigh against the cost of
// building a panel.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include "poplin/ConvGeometry.hpp"

namespace tessera::codelets::poplin::conv {

struct PaddedPlane {
  bool eligible = false;
  std::array<std::vector<int>, 3> offset; ///< per dimension, per kernel element: off − min(off)
  std::array<int, 3> minOffset{};
  std::array<std::size_t, 3> extent{1, 1, 1};
  std::array<std::size_t, 3> stride{1, 1, 1}; ///< plane strides of the three dimensions
  std::size_t image = 1;                      ///< floats per padded image
  std::size_t columns = 0;                    ///< plane columns up to the last real output + 1
  std::size_t outputs = 0;                    ///< real outputs (batch × output positions)

  PaddedPlane(const BlockGeometry &geo, unsigned batch) {
    for (unsigned d = 0; d < 3; ++d) {
      const unsigned o = geo.outSize[d], k = geo.kernel[d];
      const int in = int(geo.inSize[d]);
      std::vector<int> off(k);
      for (unsigned kd = 0; kd < k; ++kd) {
        const int *t = geo.table[d] + std::size_t(kd) * o;
        unsigned first = 0;
        while (first < o && t[first] < 0)
          ++first;
        if (first == o)
          return; // this kernel element never meets the input: leave it to the panel
        off[kd] = t[first] - int(first);
        for (unsigned od = 0; od < o; ++od) {
          const int i = int(od) + off[kd];
          if (t[od] != (i >= 0 && i < in ? i : -1))
            return;
        }
      }
      const auto [lo, hi] = std::minmax_element(off.begin(), off.end());
      minOffset[d] = *lo;
      extent[d] = o + std::size_t(*hi - *lo);
      for (int &x : off)
        x -= minOffset[d];
      offset[d] = std::move(off);
    }
    stride = {extent[1] * extent[2], extent[2], 1};
    image = extent[0] * extent[1] * extent[2];
    const std::size_t last =
        (geo.outSize[0] - 1) * stride[0] + (geo.outSize[1] - 1) * stride[1] + geo.outSize[2];
    columns = (std::size_t(batch) - 1) * image + last;
    outputs = std::size_t(batch) * geo.outPositions();
    eligible = batch > 0;
  }

  double efficiency() const { return columns ? double(outputs) / double(columns) : 0.0; }

  /// Floats of one channel's padded images (batch of them).
  std::size_t channelFloats(unsigned batch) const { return std::size_t(batch) * image; }

  /// Offset in the plane of kernel element kp's im2col row (kp in row-major kernel order).
  std::size_t rowOffset(const BlockGeometry &geo, std::size_t kp) const {
    const std::size_t k2 = kp % geo.kernel[2], k1 = kp / geo.kernel[2] % geo.kernel[1],
                      k0 = kp / (std::size_t(geo.kernel[1]) * geo.kernel[2]);
    return offset[0][k0] * stride[0] + offset[1][k1] * stride[1] + offset[2][k2];
  }

  /// Writes the plane of `ics` channels of `in` ([ic][batch][input positions]) into `plane`
  /// (ics · channelFloats floats, then `slack` zeros so full-width loads past the end stay
  /// inside the buffer).
  template <class In>
  void fill(const BlockGeometry &geo, const In *in, unsigned ics, unsigned batch,
            std::vector<float> &plane, std::size_t slack) const {
    const std::size_t chan = channelFloats(batch);
    plane.resize(ics * chan + slack);
    const std::size_t inPos = geo.inPositions();
    const std::size_t in12 = std::size_t(geo.inSize[1]) * geo.inSize[2];
    const int in2 = int(geo.inSize[2]);
    // Columns u of a padded row that hold input (the rest are zeros).
    const std::size_t u2Begin = std::size_t(std::clamp(-minOffset[2], 0, int(extent[2])));
    const std::size_t u2End = std::size_t(std::clamp(in2 - minOffset[2], 0, int(extent[2])));
    float *dst = plane.data();
    for (std::size_t icb = 0; icb < std::size_t(ics) * batch; ++icb) {
      const In *src = in + icb * inPos;
      for (std::size_t u0 = 0; u0 < extent[0]; ++u0)
        for (std::size_t u1 = 0; u1 < extent[1]; ++u1, dst += extent[2]) {
          const int i0 = int(u0) + minOffset[0], i1 = int(u1) + minOffset[1];
          if (i0 < 0 || i0 >= int(geo.inSize[0]) || i1 < 0 || i1 >= int(geo.inSize[1]) ||
              u2Begin >= u2End) {
            std::fill(dst, dst + extent[2], 0.0f);
            continue;
          }
          const In *row = src + std::size_t(i0) * in12 + std::size_t(i1) * geo.inSize[2];
          std::fill(dst, dst + u2Begin, 0.0f);
          const In *from = row + (std::ptrdiff_t(u2Begin) + minOffset[2]);
          if constexpr (std::is_same_v<In, float>)
            std::memcpy(dst + u2Begin, from, (u2End - u2Begin) * sizeof(float));
          else
            for (std::size_t x = 0; x < u2End - u2Begin; ++x)
              dst[u2Begin + x] = static_cast<float>(from[x]);
          std::fill(dst + u2End, dst + extent[2], 0.0f);
        }
    }
    std::fill(plane.begin() + std::ptrdiff_t(ics * chan), plane.end(), 0.0f);
  }

  /// Calls f(planeColumn, outputIndex, length) for every run of outputs along the innermost
  /// dimension, in output order (outputIndex counts (batch, output position)).
  template <class F> void forEachLine(const BlockGeometry &geo, unsigned batch, F &&f) const {
    std::size_t n = 0;
    for (unsigned b = 0; b < batch; ++b)
      for (unsigned o0 = 0; o0 < geo.outSize[0]; ++o0)
        for (unsigned o1 = 0; o1 < geo.outSize[1]; ++o1, n += geo.outSize[2])
          f(b * image + o0 * stride[0] + o1 * stride[1], n, std::size_t(geo.outSize[2]));
  }
};

} // namespace tessera::codelets::poplin::conv
