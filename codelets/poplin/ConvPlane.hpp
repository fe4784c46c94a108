// The in-place path: a zero-padded, phase-split copy of a block's input (the "plane") in which
// every im2col row is the plane shifted by a fixed offset.
//
// When every spatial table reads input s·o + off[k] for output o and kernel element k (zero where
// that falls outside the input) — any output stride s, padding, kernel dilation or kernel flip,
// but no input dilation — split the input into s phases per dimension (input s·u + r goes to
// phase r, column u) and pad each phase image to extents E_d = out_d + max(h) − min(h), where
// h[k] = floor(off[k] / s) is kernel element k's shift within its phase r[k] = off[k] mod s.
// Output position o then lives at plane column q(o) = Σ_d o_d · S_d (S_d the plane strides), and
// kernel element k's im2col row is its phase from offset Σ_d (h_d[k] − min(h_d)) · S_d. The
// kernels multiply those rows in place, computing the plane columns between real outputs too
// (`efficiency` is the fraction that are real), or copy just the real columns into a compact
// panel, which is a few straight copies per output line rather than a table-driven gather.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "poplin/ConvGeometry.hpp"

namespace tessera::codelets::poplin::conv {

/// One run of real outputs along the innermost dimension.
struct PlaneLine {
  std::size_t column; ///< plane column of its first output
  std::size_t output; ///< index of its first output in (batch, output position) order
};

class PaddedPlane {
public:
  PaddedPlane(const BlockGeometry &geo, unsigned batch) : geo_(geo), batch_(batch) {
    std::array<std::vector<int>, 3> phase;
    for (unsigned d = 0; d < 3; ++d)
      if (!analyseDimension(d, phase[d]))
        return;
    strides_ = {extent_[1] * extent_[2], extent_[2], 1};
    image_ = extent_[0] * extent_[1] * extent_[2];
    // Only the phases some kernel element reads get a slot.
    std::vector<int> slotOf(std::size_t(stride_[0]) * stride_[1] * stride_[2], -1);
    phaseSlot_.resize(geo.kernelElements());
    for (std::size_t kp = 0; kp < geo.kernelElements(); ++kp) {
      const auto [k0, k1, k2] = kernelIndex(kp);
      const std::size_t rho =
          (std::size_t(phase[0][k0]) * stride_[1] + std::size_t(phase[1][k1])) * stride_[2] +
          std::size_t(phase[2][k2]);
      if (slotOf[rho] < 0) {
        slotOf[rho] = int(phases_.size());
        phases_.push_back({unsigned(phase[0][k0]), unsigned(phase[1][k1]), unsigned(phase[2][k2])});
      }
      phaseSlot_[kp] = std::size_t(slotOf[rho]);
    }
    const std::size_t last =
        (geo.outSize[0] - 1) * strides_[0] + (geo.outSize[1] - 1) * strides_[1] + geo.outSize[2];
    columns_ = (std::size_t(batch) - 1) * image_ + last;
    outputs_ = std::size_t(batch) * geo.outPositions();
    eligible_ = batch > 0;
  }

  bool eligible() const { return eligible_; }
  /// Fraction of the plane columns up to the last output that are real outputs.
  double efficiency() const { return columns_ ? double(outputs_) / double(columns_) : 0.0; }
  /// Plane columns up to and including the last real output.
  std::size_t columns() const { return columns_; }
  std::size_t lineLength() const { return geo_.outSize[2]; }

  /// Writes the plane of `ics` channels of `in` ([ic][batch][input positions]), followed by
  /// `slack` zeros so that full-width loads past a row's last column stay inside the buffer.
  template <class In>
  void fill(const In *in, unsigned ics, std::vector<float> &plane, std::size_t slack) const {
    const std::size_t inPos = geo_.inPositions(), phaseFloats = phaseSize(ics);
    plane.resize(phases_.size() * phaseFloats + slack);
    float *dst = plane.data();
    for (const auto &r : phases_)
      for (std::size_t icb = 0; icb < std::size_t(ics) * batch_; ++icb)
        for (std::size_t u0 = 0; u0 < extent_[0]; ++u0)
          for (std::size_t u1 = 0; u1 < extent_[1]; ++u1, dst += extent_[2]) {
            const int i0 = inputIndex(0, r[0], u0), i1 = inputIndex(1, r[1], u1);
            if (i0 < 0 || i1 < 0) {
              std::fill(dst, dst + extent_[2], 0.0f);
              continue;
            }
            const In *row = in + icb * inPos +
                            (std::size_t(i0) * geo_.inSize[1] + std::size_t(i1)) * geo_.inSize[2];
            fillRow(row, r[2], dst);
          }
    std::fill(plane.begin() + std::ptrdiff_t(phases_.size() * phaseFloats), plane.end(), 0.0f);
  }

  /// Points rows[ic · kernelElements + kp] at the im2col row of input channel ic and kernel
  /// element kp in `plane` (as filled for `ics` channels).
  void rows(const float *plane, unsigned ics, std::vector<const float *> &rows) const {
    const std::size_t kElems = geo_.kernelElements(), chan = std::size_t(batch_) * image_;
    const std::size_t phaseFloats = phaseSize(ics);
    rows.resize(std::size_t(ics) * kElems);
    for (unsigned ic = 0; ic < ics; ++ic)
      for (std::size_t kp = 0; kp < kElems; ++kp) {
        const auto [k0, k1, k2] = kernelIndex(kp);
        rows[ic * kElems + kp] = plane + phaseSlot_[kp] * phaseFloats + ic * chan +
                                 shift_[0][k0] * strides_[0] + shift_[1][k1] * strides_[1] +
                                 shift_[2][k2];
      }
  }

  /// Every output line, in output order.
  std::vector<PlaneLine> lines() const {
    std::vector<PlaneLine> lines;
    std::size_t n = 0;
    for (unsigned b = 0; b < batch_; ++b)
      for (unsigned o0 = 0; o0 < geo_.outSize[0]; ++o0)
        for (unsigned o1 = 0; o1 < geo_.outSize[1]; ++o1, n += geo_.outSize[2])
          lines.push_back({b * image_ + o0 * strides_[0] + o1 * strides_[1], n});
    return lines;
  }

  /// Copies outputs [nBegin, nEnd) of every im2col row into col (row stride ld): the compact
  /// panel the table-driven builder would make, from straight copies.
  void panel(const std::vector<const float *> &rows, const std::vector<PlaneLine> &lines,
             std::size_t nBegin, std::size_t nEnd, float *col, std::size_t ld) const {
    const std::size_t len = lineLength();
    for (std::size_t p = 0; p < rows.size(); ++p) {
      const float *src = rows[p];
      float *dst = col + p * ld;
      for (std::size_t at = nBegin; at < nEnd;) {
        const PlaneLine &line = lines[at / len];
        const std::size_t within = at - line.output, count = std::min(len - within, nEnd - at);
        std::memcpy(dst + (at - nBegin), src + line.column + within, count * sizeof(float));
        at += count;
      }
    }
  }

private:
  std::size_t phaseSize(unsigned ics) const { return std::size_t(ics) * batch_ * image_; }

  std::array<std::size_t, 3> kernelIndex(std::size_t kp) const {
    return {kp / (std::size_t(geo_.kernel[1]) * geo_.kernel[2]),
            kp / geo_.kernel[2] % geo_.kernel[1], kp % geo_.kernel[2]};
  }

  /// Checks dimension d's table is t[k][o] = s·o + off[k] clipped to the input, and records
  /// its stride, shifts and extent.
  bool analyseDimension(unsigned d, std::vector<int> &phase) {
    const unsigned o = geo_.outSize[d], k = geo_.kernel[d];
    const int in = int(geo_.inSize[d]);
    if (k == 0 || o == 0)
      return false;
    // The stride, from any kernel element with two consecutive real inputs.
    int s = 1;
    for (unsigned kd = 0; kd < k; ++kd) {
      const int *t = geo_.table[d] + std::size_t(kd) * o;
      for (unsigned od = 0; od + 1 < o; ++od)
        if (t[od] >= 0 && t[od + 1] >= 0) {
          s = t[od + 1] - t[od];
          kd = k;
          break;
        }
    }
    if (s < 1)
      return false;
    std::vector<int> shift(k);
    phase.resize(k);
    for (unsigned kd = 0; kd < k; ++kd) {
      const int *t = geo_.table[d] + std::size_t(kd) * o;
      unsigned first = 0;
      while (first < o && t[first] < 0)
        ++first;
      if (first == o)
        return false; // this kernel element never meets the input: leave it to the gather
      const int off = t[first] - s * int(first);
      for (unsigned od = 0; od < o; ++od) {
        const int i = s * int(od) + off;
        if (t[od] != (i >= 0 && i < in ? i : -1))
          return false;
      }
      phase[kd] = ((off % s) + s) % s;
      shift[kd] = (off - phase[kd]) / s;
    }
    const auto [lo, hi] = std::minmax_element(shift.begin(), shift.end());
    minShift_[d] = *lo;
    extent_[d] = o + std::size_t(*hi - *lo);
    stride_[d] = s;
    shift_[d].resize(k);
    for (unsigned kd = 0; kd < k; ++kd)
      shift_[d][kd] = std::size_t(shift[kd] - *lo);
    return true;
  }

  /// The input index of plane column u of phase r in dimension d, or −1 for padding.
  int inputIndex(unsigned d, unsigned r, std::size_t u) const {
    const int i = stride_[d] * (int(u) + minShift_[d]) + int(r);
    return i >= 0 && i < int(geo_.inSize[d]) ? i : -1;
  }

  /// Plane columns [begin, end) of phase r in dimension d that hold real inputs.
  std::pair<std::size_t, std::size_t> realColumns(unsigned d, unsigned r) const {
    // i = s·(u + minShift) + r lies in [0, in) for u in [ceil(−r / s), ceil((in − r) / s)) −
    // minShift.
    const int s = stride_[d], in = int(geo_.inSize[d]), e = int(extent_[d]);
    auto ceilDiv = [s](int a) { return a >= 0 ? (a + s - 1) / s : -((-a) / s); };
    const int begin = std::clamp(ceilDiv(-int(r)) - minShift_[d], 0, e);
    const int end = std::clamp(ceilDiv(in - int(r)) - minShift_[d], begin, e);
    return {std::size_t(begin), std::size_t(end)};
  }

  template <class In> void fillRow(const In *row, unsigned r, float *dst) const {
    const auto [begin, end] = realColumns(2, r);
    std::fill(dst, dst + begin, 0.0f);
    const std::size_t s = std::size_t(stride_[2]);
    const In *from = row + (stride_[2] * (int(begin) + minShift_[2]) + int(r));
    if (std::is_same_v<In, float> && s == 1)
      std::memcpy(dst + begin, from, (end - begin) * sizeof(float));
    else
      for (std::size_t x = 0; x < end - begin; ++x)
        dst[begin + x] = static_cast<float>(from[x * s]);
    std::fill(dst + end, dst + extent_[2], 0.0f);
  }

  const BlockGeometry &geo_;
  unsigned batch_;
  bool eligible_ = false;
  std::array<int, 3> stride_{1, 1, 1}, minShift_{};
  std::array<std::vector<std::size_t>, 3> shift_;
  std::array<std::size_t, 3> extent_{1, 1, 1}, strides_{1, 1, 1};
  std::vector<std::array<unsigned, 3>> phases_;
  std::vector<std::size_t> phaseSlot_;
  std::size_t image_ = 1, columns_ = 0, outputs_ = 0;
};

} // namespace tessera::codelets::poplin::conv
