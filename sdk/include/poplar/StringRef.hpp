// A non-owning string view that converts from every string spelling Poplar accepts.
#pragma once

#include <cstddef>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>

namespace poplar {

class StringRef {
public:
  constexpr StringRef() = default;
  StringRef(const char *s) : view_(s ? std::string_view(s) : std::string_view()) {}
  StringRef(const std::string &s) : view_(s) {}
  constexpr StringRef(std::string_view s) : view_(s) {}
  StringRef(const char *s, std::size_t n) : view_(s, n) {}

  const char *data() const { return view_.data(); }
  std::size_t size() const { return view_.size(); }
  bool empty() const { return view_.empty(); }
  std::string str() const { return std::string(view_); }
  operator std::string() const { return str(); }
  operator std::string_view() const { return view_; }
  std::string_view view() const { return view_; }
  const char *begin() const { return view_.data(); }
  const char *end() const { return view_.data() + view_.size(); }
  friend bool operator==(StringRef a, StringRef b) { return a.view_ == b.view_; }
  friend std::ostream &operator<<(std::ostream &os, StringRef s) { return os << s.view_; }

private:
  std::string_view view_;
};

} // namespace poplar
