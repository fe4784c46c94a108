// How a multi-IPU system's IPU-Links are wired (a Target creation option on hardware).
#pragma once

#include <ostream>

namespace poplar {

enum class IpuLinkConfiguration { Default, SlidingWindow, BarleyTwist };

inline std::ostream &operator<<(std::ostream &os, IpuLinkConfiguration c) {
  switch (c) {
  case IpuLinkConfiguration::Default:
    return os << "Default";
  case IpuLinkConfiguration::SlidingWindow:
    return os << "SlidingWindow";
  case IpuLinkConfiguration::BarleyTwist:
    return os << "BarleyTwist";
  }
  return os << "<invalid IpuLinkConfiguration>";
}

} // namespace poplar
