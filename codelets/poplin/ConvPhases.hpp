// Output phases of input-dilated dimensions (a strided convolution's input gradient), so the
// padded plane can serve them too.
//
// With input dilation s in a dimension, output o meets kernel element k only when o + off[k] is
// a multiple of s. The outputs of one phase φ (o = φ + s·m) therefore meet a fixed subset of the
// kernel and read input m + shift[k]: a stride-1 convolution over m with fewer kernel elements.
// Splitting every dimension so, each combination of phases becomes a BlockGeometry of its own
// (derived tables), computed in compact order and scattered to its outputs; a combination that
// some dimension's kernel never meets is all zeros. The split is exact for any table — each
// phase's table is the original one subsampled — so only the plane's acceptance of every
// phase's geometry decides whether it is used.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "poplin/ConvGeometry.hpp"

namespace tessera::codelets::poplin::conv {

/// One phase of one dimension.
struct DimPhase {
  unsigned first = 0;           ///< φ: the phase's first output
  unsigned count = 0;           ///< outputs φ, φ + s, φ + 2s, … below the dimension's size
  std::vector<unsigned> kernel; ///< kernel elements that meet the input at this phase
  std::vector<int> table;       ///< the derived table [kernel.size()][count]
};

class ConvPhases {
public:
  explicit ConvPhases(const BlockGeometry &geo) {
    for (unsigned d = 0; d < 3; ++d) {
      period_[d] = periodOf(geo, d);
      split_ = split_ || period_[d] > 1;
      for (unsigned phi = 0; phi < period_[d] && phi < geo.outSize[d]; ++phi)
        phases_[d].push_back(derive(geo, d, phi));
    }
  }

  /// Whether any dimension has a period above 1.
  bool split() const { return split_; }
  const std::array<unsigned, 3> &period() const { return period_; }
  /// Dimension d's phases.
  const std::vector<DimPhase> &phases(unsigned d) const { return phases_[d]; }

  /// The geometry of one combination of phases: `geo` with the derived tables.
  static BlockGeometry geometry(const BlockGeometry &geo,
                                const std::array<const DimPhase *, 3> &combo) {
    BlockGeometry g = geo;
    for (unsigned d = 0; d < 3; ++d) {
      g.kernel[d] = unsigned(combo[d]->kernel.size());
      g.outSize[d] = combo[d]->count;
      g.table[d] = combo[d]->table.data();
    }
    return g;
  }

private:
  /// The gap between the first two real entries of any kernel element's row (1 if none).
  static unsigned periodOf(const BlockGeometry &geo, unsigned d) {
    const unsigned o = geo.outSize[d], k = geo.kernel[d];
    const int *t = geo.table[d];
    for (unsigned kd = 0; kd < k; ++kd) {
      int previous = -1;
      for (unsigned od = 0; od < o; ++od)
        if (t[kd * o + od] >= 0) {
          if (previous >= 0)
            return od - unsigned(previous);
          previous = int(od);
        }
    }
    return 1;
  }

  DimPhase derive(const BlockGeometry &geo, unsigned d, unsigned phi) const {
    const unsigned o = geo.outSize[d], k = geo.kernel[d], s = period_[d];
    const int *t = geo.table[d];
    DimPhase p;
    p.first = phi;
    p.count = (o - phi + s - 1) / s;
    for (unsigned kd = 0; kd < k; ++kd) {
      bool meets = s == 1; // an undivided dimension keeps its whole kernel
      for (unsigned m = 0; m < p.count && !meets; ++m)
        meets = t[kd * o + phi + s * m] >= 0;
      if (!meets)
        continue;
      p.kernel.push_back(kd);
      for (unsigned m = 0; m < p.count; ++m)
        p.table.push_back(t[kd * o + phi + s * m]);
    }
    return p;
  }

  std::array<unsigned, 3> period_{1, 1, 1};
  std::array<std::vector<DimPhase>, 3> phases_;
  bool split_ = false;
};

} // namespace tessera::codelets::poplin::conv
