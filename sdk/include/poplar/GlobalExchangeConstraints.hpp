// Bandwidth limits on traffic between IPUs, as an IPU Model describes its links. Tessera keeps
// them with the target (Target::getGlobalExchangeConstraints) so programs that build them, as
// PopLibs' tools do for multi-IPU models, run unchanged; the cost model does not price links.
#pragma once

#include <vector>

#include <poplar/ArrayRef.hpp>

namespace poplar {

/// Traffic from IPU `srcIPU` to IPU `dstIPU`.
struct GlobalExchangeFlow {
  GlobalExchangeFlow(unsigned srcIPU, unsigned dstIPU) : src(srcIPU), dst(dstIPU) {}
  unsigned src;
  unsigned dst;
  friend bool operator==(const GlobalExchangeFlow &a, const GlobalExchangeFlow &b) {
    return a.src == b.src && a.dst == b.dst;
  }
  friend bool operator!=(const GlobalExchangeFlow &a, const GlobalExchangeFlow &b) {
    return !(a == b);
  }
};

/// The flows that share one link (or group of links) and its bandwidth in bits per second.
struct GlobalExchangeConstraint {
  GlobalExchangeConstraint(double bandwidth, ArrayRef<GlobalExchangeFlow> flows)
      : bandwidth(bandwidth), flows(flows.begin(), flows.end()) {}
  double bandwidth;
  std::vector<GlobalExchangeFlow> flows;
  friend bool operator==(const GlobalExchangeConstraint &a, const GlobalExchangeConstraint &b) {
    return a.bandwidth == b.bandwidth && a.flows == b.flows;
  }
  friend bool operator!=(const GlobalExchangeConstraint &a, const GlobalExchangeConstraint &b) {
    return !(a == b);
  }
};

} // namespace poplar
