// Runs of variable elements: the building block of every tensor view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

// GCC's -Wstringop-overread misreads small_vector's copy of its inline element as an overread.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#include <boost/container/small_vector.hpp>
#pragma GCC diagnostic pop

namespace poplar::core {

/// `count` elements of variable `var`: begin, begin + stride, begin + 2 * stride, ... A stride of
/// 1 is a contiguous run, -1 a reversed one, 0 one element repeated, anything else a strided run
/// (a column of a transposed matrix). A run of one element always has stride 1, so equal element
/// sequences built the same way compare equal field by field.
struct Region {
  unsigned var = 0;
  std::int32_t stride = 1;
  std::size_t begin = 0;
  std::size_t count = 0;

  Region() = default;
  Region(unsigned var, std::int32_t stride, std::size_t begin, std::size_t count)
      : var(var), stride(count == 1 ? 1 : stride), begin(begin), count(count) {}
  /// The contiguous elements [begin, end) of `var`.
  static Region contiguous(unsigned var, std::size_t begin, std::size_t end) {
    return Region(var, 1, begin, end - begin);
  }

  std::size_t size() const { return count; }
  bool isContiguous() const { return stride == 1 || count <= 1; }
  /// The variable element at position k of the run.
  std::size_t at(std::size_t k) const {
    return begin + static_cast<std::size_t>(static_cast<std::ptrdiff_t>(k) * stride);
  }
  /// Where an element continuing the run's stride would be.
  std::size_t next() const { return at(count); }
  /// Positions [from, from + n) of the run.
  Region sub(std::size_t from, std::size_t n) const { return Region(var, stride, at(from), n); }

  friend bool operator==(const Region &a, const Region &b) {
    return a.var == b.var && a.stride == b.stride && a.begin == b.begin && a.count == b.count;
  }
};
static_assert(sizeof(Region) == 24, "a run is 24 bytes");

/// A view's runs. Most views (a slice of a variable, a whole variable, a reshape of either) are
/// one run, held inline: no allocation of its own.
using RegionList = boost::container::small_vector<Region, 1>;

/// Appends `r` as if its elements were appended one by one, each extending the last run when it
/// continues that run's stride (a one-element run takes any stride that fits in 32 bits). So a
/// view's runs depend only on its element sequence: contiguous pieces merge as they always did,
/// and single elements a fixed distance apart (a transposed column) become one strided run.
inline void appendRegion(RegionList &out, const Region &r) {
  if (r.count == 0)
    return;
  if (!out.empty() && out.back().var == r.var) {
    Region &last = out.back();
    bool first = false; // r's first element joined `last`
    if (last.count == 1) {
      const auto d = static_cast<std::int64_t>(r.begin) - static_cast<std::int64_t>(last.begin);
      if (d >= std::numeric_limits<std::int32_t>::min() &&
          d <= std::numeric_limits<std::int32_t>::max()) {
        last.stride = static_cast<std::int32_t>(d);
        last.count = 2;
        first = true;
      }
    } else if (last.next() == r.begin) {
      ++last.count;
      first = true;
    }
    if (first) {
      if (r.count == 1)
        return;
      if (r.stride == last.stride) {
        last.count += r.count - 1;
        return;
      }
      out.push_back(r.sub(1, r.count - 1));
      return;
    }
  }
  out.push_back(r);
}

/// Calls fn(var, begin, end) for each maximal contiguous range of elements of `regions` in order
/// (strided runs expanded, neighbouring pieces that continue each other joined): exactly the
/// coalesced runs a list of contiguous regions would hold.
template <class Range, class Fn> void forEachUnitRun(const Range &regions, Fn &&fn) {
  bool have = false;
  unsigned v = 0;
  std::size_t b = 0, e = 0;
  auto piece = [&](unsigned var, std::size_t pb, std::size_t pe) {
    if (have && v == var && e == pb) {
      e = pe;
      return;
    }
    if (have)
      fn(v, b, e);
    have = true;
    v = var;
    b = pb;
    e = pe;
  };
  for (const Region &r : regions) {
    if (r.isContiguous()) {
      piece(r.var, r.begin, r.begin + r.count);
    } else {
      for (std::size_t k = 0; k < r.count; ++k) {
        const std::size_t x = r.at(k);
        piece(r.var, x, x + 1);
      }
    }
  }
  if (have)
    fn(v, b, e);
}

/// The contiguous runs of `regions` as a list (see forEachUnitRun).
template <class Range> RegionList unitRuns(const Range &regions) {
  RegionList out;
  forEachUnitRun(regions, [&](unsigned var, std::size_t b, std::size_t e) {
    out.push_back(Region::contiguous(var, b, e));
  });
  return out;
}

} // namespace poplar::core
