// Non-owning views of contiguous arrays and strings, accepted wherever Poplar accepts them.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <vector>

namespace poplar {

/// A read-only view of a contiguous array: built from a `std::vector`, a `std::array`, a braced
/// list, a pointer and length, or a single element. It never owns the elements, so it must not
/// outlive them (a braced list lives until the end of the full expression).
template <class T> class ArrayRef {
public:
  using value_type = T;
  using const_iterator = const T *;

  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T *data, std::size_t size) : data_(data), size_(size) {}
  constexpr ArrayRef(const T &one) : data_(&one), size_(1) {}
  ArrayRef(const std::vector<T> &v) : data_(v.data()), size_(v.size()) {}
  template <std::size_t N>
  constexpr ArrayRef(const std::array<T, N> &a) : data_(a.data()), size_(N) {}
  // A braced list's array lives until the end of the full expression, which is exactly as long
  // as an ArrayRef argument is used; GCC cannot see that, hence the pragma.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  constexpr ArrayRef(std::initializer_list<T> list) : data_(list.begin()), size_(list.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  constexpr const T *data() const { return data_; }
  constexpr std::size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T &operator[](std::size_t i) const { return data_[i]; }
  constexpr const T &front() const { return data_[0]; }
  constexpr const T &back() const { return data_[size_ - 1]; }
  constexpr const T *begin() const { return data_; }
  constexpr const T *end() const { return data_ + size_; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  operator std::vector<T>() const { return vec(); }

private:
  const T *data_ = nullptr;
  std::size_t size_ = 0;
};

} // namespace poplar

/// Poplar's ArrayRef lives in namespace gccs and is re-exported into poplar; programs name it
/// either way (`gccs::ArrayRef(vector)` deduces the element type).
namespace gccs {
using poplar::ArrayRef;
} // namespace gccs
