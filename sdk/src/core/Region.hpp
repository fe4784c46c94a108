// Runs of variable elements: the building block of every tensor view.
#pragma once

#include <cstddef>

// GCC's -Wstringop-overread misreads small_vector's copy of its inline element as an overread.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#include <boost/container/small_vector.hpp>
#pragma GCC diagnostic pop

namespace poplar::core {

/// Elements [begin, end) of variable `var`.
struct Region {
  unsigned var;
  std::size_t begin;
  std::size_t end;
  std::size_t size() const { return end - begin; }
  friend bool operator==(const Region &a, const Region &b) {
    return a.var == b.var && a.begin == b.begin && a.end == b.end;
  }
};

/// A view's runs. Most views (a slice of a variable, a whole variable, a reshape of either) are
/// one run, held inline: no allocation of its own.
using RegionList = boost::container::small_vector<Region, 1>;

/// Appends `r`, merging it into the last region when it continues it.
inline void appendRegion(RegionList &out, const Region &r) {
  if (r.begin == r.end)
    return;
  if (!out.empty() && out.back().var == r.var && out.back().end == r.begin)
    out.back().end = r.end;
  else
    out.push_back(r);
}

} // namespace poplar::core
