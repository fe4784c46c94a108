// Half-open index ranges [begin, end), used for tile mappings and tensor regions.
#pragma once

#include <cstddef>
#include <ostream>

namespace poplar {

template <class T> class GenericInterval {
public:
  constexpr GenericInterval() = default;
  constexpr GenericInterval(T begin, T end) : begin_(begin), end_(end) {}
  constexpr T begin() const { return begin_; }
  constexpr T end() const { return end_; }
  /// Poplar's other names for begin() and end().
  constexpr T lower() const { return begin_; }
  constexpr T upper() const { return end_; }
  constexpr T size() const { return end_ - begin_; }
  friend constexpr bool operator==(const GenericInterval &a, const GenericInterval &b) {
    return a.begin_ == b.begin_ && a.end_ == b.end_;
  }
  friend constexpr bool operator!=(const GenericInterval &a, const GenericInterval &b) {
    return !(a == b);
  }
  friend constexpr bool operator<(const GenericInterval &a, const GenericInterval &b) {
    return a.begin_ < b.begin_ || (a.begin_ == b.begin_ && a.end_ < b.end_);
  }
  friend std::ostream &operator<<(std::ostream &os, const GenericInterval &i) {
    return os << '[' << i.begin_ << ", " << i.end_ << ')';
  }

private:
  T begin_{};
  T end_{};
};

using Interval = GenericInterval<std::size_t>;

} // namespace poplar
