// Output phases of an input-dilated innermost dimension (a strided convolution's input
// gradient), so the padded plane can serve it too.
//
// With input dilation s, output o meets kernel element k only when o + off[k] is a multiple of s.
// Outputs of one phase φ (o = φ + s·m) therefore meet a fixed subset of the kernel, and read input
// m + shift[k]: a stride-1 convolution over m with fewer kernel elements. Each phase becomes a
// BlockGeometry of its own (same outer dimensions, derived innermost table), computed in compact
// order and scattered to every s-th output; a phase no kernel element meets is all zeros.
// poplin already splits the outer dimensions' phases into separate vertices.
#pragma once

#include <cstddef>
#include <vector>

#include "poplin/ConvGeometry.hpp"

namespace tessera::codelets::poplin::conv {

struct InnerPhase {
  unsigned first = 0;           ///< φ: the phase's first output
  unsigned count = 0;           ///< outputs φ, φ + s, φ + 2s, … below the dimension's size
  std::vector<unsigned> kernel; ///< innermost kernel elements that meet the input
  std::vector<int> table;       ///< the derived table [kernel.size()][count]
};

/// The period s > 1 of the innermost table and its phases, or period 0 when the table has no
/// such pattern (then the plane or the table-driven gather handles the block).
struct InnerPhases {
  unsigned period = 0;
  std::vector<InnerPhase> phases;

  explicit InnerPhases(const BlockGeometry &geo) {
    const unsigned o = geo.outSize[2], k = geo.kernel[2];
    const int *t = geo.table[2];
    // The period: the gap between the first two real entries of any kernel element's row.
    unsigned s = 0;
    for (unsigned kd = 0; kd < k && s == 0; ++kd) {
      int previous = -1;
      for (unsigned od = 0; od < o; ++od)
        if (t[kd * o + od] >= 0) {
          if (previous >= 0) {
            s = od - unsigned(previous);
            break;
          }
          previous = int(od);
        }
    }
    if (s < 2)
      return;
    for (unsigned phi = 0; phi < s && phi < o; ++phi) {
      InnerPhase p;
      p.first = phi;
      p.count = (o - phi + s - 1) / s;
      for (unsigned kd = 0; kd < k; ++kd) {
        bool meets = false;
        for (unsigned m = 0; m < p.count && !meets; ++m)
          meets = t[kd * o + phi + s * m] >= 0;
        if (!meets)
          continue;
        p.kernel.push_back(kd);
        for (unsigned m = 0; m < p.count; ++m)
          p.table.push_back(t[kd * o + phi + s * m]);
      }
      phases.push_back(std::move(p));
    }
    // Each phase's table is the original one subsampled, so the split is exact whatever the
    // table; the plane must still accept every phase's geometry for it to be used.
    period = s;
  }

  /// Phase p's geometry: `geo` with the derived innermost dimension.
  BlockGeometry geometry(const BlockGeometry &geo, const InnerPhase &p) const {
    BlockGeometry g = geo;
    g.kernel[2] = unsigned(p.kernel.size());
    g.outSize[2] = p.count;
    g.table[2] = p.table.data();
    return g;
  }
};

} // namespace tessera::codelets::poplin::conv
