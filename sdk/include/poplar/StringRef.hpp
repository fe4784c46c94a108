// A non-owning string view that converts from every string spelling Poplar accepts.
//
// C++11 like Poplar's: it holds a pointer and a length (laid out as std::string_view is, so the
// class is the same under every standard); the std::string_view conversions exist only when
// the program is compiled as C++17 or later.
#pragma once

#include <cstddef>
#include <cstring>
#include <ostream>
#include <string>
#if __cplusplus >= 201703L
#include <string_view>
#endif

namespace poplar {

class StringRef {
public:
  constexpr StringRef() = default;
  StringRef(const char *s) : size_(s ? std::strlen(s) : 0), data_(s) {}
  StringRef(const std::string &s) : size_(s.size()), data_(s.data()) {}
#if __cplusplus >= 201703L
  constexpr StringRef(std::string_view s) : size_(s.size()), data_(s.data()) {}
#endif
  StringRef(const char *s, std::size_t n) : size_(n), data_(s) {}

  const char *data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::string str() const { return data_ ? std::string(data_, size_) : std::string(); }
  operator std::string() const { return str(); }
#if __cplusplus >= 201703L
  operator std::string_view() const { return view(); }
  /// Tessera extension (C++17 and later only).
  std::string_view view() const { return std::string_view(data_, size_); }
#endif
  const char *begin() const { return data_; }
  const char *end() const { return data_ + size_; }
  friend bool operator==(StringRef a, StringRef b) {
    return a.size_ == b.size_ && (a.size_ == 0 || std::memcmp(a.data_, b.data_, a.size_) == 0);
  }
  friend std::ostream &operator<<(std::ostream &os, StringRef s) {
    return os << std::string(s.data_ ? s.data_ : "", s.size_);
  }

private:
  // The order of libstdc++'s std::string_view members, which this class held before.
  std::size_t size_ = 0;
  const char *data_ = nullptr;
};

} // namespace poplar
