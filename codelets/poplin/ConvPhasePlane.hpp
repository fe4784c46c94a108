// One zero-padded plane for every output phase of an input-dilated block (a strided
// convolution's input gradient), so the phases share one copy of the input.
//
// Splitting an input-dilated dimension into output phases (ConvPhases.hpp) leaves, per phase φ
// and kernel element j it keeps, a stride-1 table: compact output m reads input m + off[φ][j],
// or a zero outside the input. One plane over input positions [lo, hi) per dimension — lo and hi
// the extremes of m + off over every phase, kernel element and output — then holds every
// phase's im2col row j as the plane shifted by off[φ][j] − lo, with compact output m at plane
// column m (times the plane strides). The phases of the innermost dimension therefore share
// their output lines' plane columns, and their results interleave into the real output lines.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include "poplin/ConvGeometry.hpp"
#include "poplin/ConvPhases.hpp"

namespace tessera::codelets::poplin::conv {

class PhasePlane {
public:
  PhasePlane(const BlockGeometry &geo, const ConvPhases &split, unsigned batch)
      : geo_(geo), split_(split), batch_(batch) {
    for (unsigned d = 0; d < 3; ++d)
      if (!analyseDimension(d))
        return;
    strides_ = {extent_[1] * extent_[2], extent_[2], 1};
    image_ = extent_[0] * extent_[1] * extent_[2];
    eligible_ = batch > 0;
  }

  /// Whether every kept kernel element's table is m + off clipped to the input.
  bool eligible() const { return eligible_; }
  std::size_t image() const { return image_; }
  const std::array<std::size_t, 3> &strides() const { return strides_; }

  /// The plane column of compact line (b, m0, m1) of any phase.
  std::size_t lineColumn(unsigned b, unsigned m0, unsigned m1) const {
    return b * image_ + m0 * strides_[0] + m1 * strides_[1];
  }

  /// Writes the plane of `ics` channels of `in` ([ic][batch][input positions]) followed by
  /// `slack` zeros, so full-width loads past a row's last column stay inside the buffer.
  template <class In>
  void fill(const In *in, unsigned ics, std::vector<float> &plane, std::size_t slack) const {
    const std::size_t inPos = geo_.inPositions(), images = std::size_t(ics) * batch_;
    plane.resize(images * image_ + slack);
    float *dst = plane.data();
    const int in2 = int(geo_.inSize[2]);
    const std::size_t begin = std::size_t(std::clamp(-lo_[2], 0, int(extent_[2])));
    const std::size_t end = std::size_t(std::clamp(in2 - lo_[2], int(begin), int(extent_[2])));
    for (std::size_t icb = 0; icb < images; ++icb)
      for (std::size_t u0 = 0; u0 < extent_[0]; ++u0)
        for (std::size_t u1 = 0; u1 < extent_[1]; ++u1, dst += extent_[2]) {
          const int i0 = int(u0) + lo_[0], i1 = int(u1) + lo_[1];
          if (i0 < 0 || i0 >= int(geo_.inSize[0]) || i1 < 0 || i1 >= int(geo_.inSize[1])) {
            std::fill(dst, dst + extent_[2], 0.0f);
            continue;
          }
          const In *row = in + icb * inPos +
                          (std::size_t(i0) * geo_.inSize[1] + std::size_t(i1)) * geo_.inSize[2] +
                          std::ptrdiff_t(begin) + lo_[2];
          std::fill(dst, dst + begin, 0.0f);
          if constexpr (std::is_same_v<In, float>)
            std::memcpy(dst + begin, row, (end - begin) * sizeof(float));
          else
            for (std::size_t x = 0; x < end - begin; ++x)
              dst[begin + x] = static_cast<float>(row[x]);
          std::fill(dst + end, dst + extent_[2], 0.0f);
        }
    std::fill(plane.begin() + std::ptrdiff_t(images * image_), plane.end(), 0.0f);
  }

  /// For the combination of phases `phase` (an index per dimension), the im2col rows in
  /// `plane` (filled for `ics` channels) in (ic, kept kernel elements) order, and each row's
  /// column in the block's weights [oc][ic][kernel elements].
  void rows(const float *plane, unsigned ics, const std::array<std::size_t, 3> &phase,
            std::vector<const float *> &rows, std::vector<std::size_t> &columns) const {
    const DimPhase &p0 = split_.phases(0)[phase[0]], &p1 = split_.phases(1)[phase[1]];
    const DimPhase &p2 = split_.phases(2)[phase[2]];
    const std::size_t chan = std::size_t(batch_) * image_, kElems = geo_.kernelElements();
    rows.clear();
    columns.clear();
    for (unsigned ic = 0; ic < ics; ++ic)
      for (std::size_t j0 = 0; j0 < p0.kernel.size(); ++j0)
        for (std::size_t j1 = 0; j1 < p1.kernel.size(); ++j1)
          for (std::size_t j2 = 0; j2 < p2.kernel.size(); ++j2) {
            rows.push_back(plane + ic * chan + shift(0, phase[0], j0) * strides_[0] +
                           shift(1, phase[1], j1) * strides_[1] + shift(2, phase[2], j2));
            columns.push_back(ic * kElems +
                              (std::size_t(p0.kernel[j0]) * geo_.kernel[1] + p1.kernel[j1]) *
                                  geo_.kernel[2] +
                              p2.kernel[j2]);
          }
  }

private:
  /// Kernel element j of phase φ in dimension d starts this many plane columns in.
  std::size_t shift(unsigned d, std::size_t phi, std::size_t j) const {
    return std::size_t(offset_[d][phi][j] - lo_[d]);
  }

  /// Checks every kept kernel element of every phase of dimension d reads m + off (zero outside
  /// the input), and records the offsets and the plane's extent.
  bool analyseDimension(unsigned d) {
    const int in = int(geo_.inSize[d]);
    const auto &phases = split_.phases(d);
    if (phases.empty())
      return false;
    int lo = 0, hi = 0;
    bool any = false;
    offset_[d].resize(phases.size());
    for (std::size_t phi = 0; phi < phases.size(); ++phi) {
      const DimPhase &p = phases[phi];
      for (std::size_t j = 0; j < p.kernel.size(); ++j) {
        const int *t = p.table.data() + j * p.count;
        unsigned first = 0;
        while (first < p.count && t[first] < 0)
          ++first;
        if (first == p.count)
          return false; // never meets the input (an undivided dimension's edge block)
        const int off = t[first] - int(first);
        for (unsigned m = 0; m < p.count; ++m) {
          const int i = int(m) + off;
          if (t[m] != (i >= 0 && i < in ? i : -1))
            return false;
        }
        offset_[d][phi].push_back(off);
        lo = any ? std::min(lo, off) : off;
        hi = any ? std::max(hi, off + int(p.count)) : off + int(p.count);
        any = true;
      }
    }
    if (!any) { // no phase meets the input: a one-column plane of zeros
      lo = 0;
      hi = 1;
    }
    lo_[d] = lo;
    extent_[d] = std::size_t(hi - lo);
    return true;
  }

  const BlockGeometry &geo_;
  const ConvPhases &split_;
  unsigned batch_;
  bool eligible_ = false;
  std::array<int, 3> lo_{};
  std::array<std::vector<std::vector<int>>, 3> offset_;
  std::array<std::size_t, 3> extent_{1, 1, 1}, strides_{1, 1, 1};
  std::size_t image_ = 1;
};

} // namespace tessera::codelets::poplin::conv
