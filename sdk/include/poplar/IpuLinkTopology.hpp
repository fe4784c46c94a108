// The shape of a multi-IPU system's IPU-Link network.
#pragma once

#include <ostream>

namespace poplar {

enum class IpuLinkTopology { Mesh, Torus, Line };

inline std::ostream &operator<<(std::ostream &os, IpuLinkTopology t) {
  switch (t) {
  case IpuLinkTopology::Mesh:
    return os << "Mesh";
  case IpuLinkTopology::Torus:
    return os << "Torus";
  case IpuLinkTopology::Line:
    return os << "Line";
  }
  return os << "<invalid IpuLinkTopology>";
}

} // namespace poplar
