// Building the names of templated vertex types: templateVertex("Foo", FLOAT, 4) == "Foo<float,4>".
#pragma once

#include <sstream>
#include <string>
#include <type_traits>

#include <poplar/Type.hpp>

namespace poputil {

namespace detail {
inline std::string templateArg(const poplar::Type &t) { return t.toString(); }
inline std::string templateArg(bool b) { return b ? "true" : "false"; }
inline std::string templateArg(const std::string &s) { return s; }
inline std::string templateArg(const char *s) { return s; }
template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value ||
                                                   std::is_enum<T>::value>::type>
std::string templateArg(T v) {
  if constexpr (std::is_enum<T>::value)
    return std::to_string(static_cast<typename std::underlying_type<T>::type>(v));
  else
    return std::to_string(v);
}
} // namespace detail

/// The registered name of a template vertex instantiated with `args` (types print as
/// "float", "half"…, bools as "true"/"false", numbers in decimal).
template <class... Args> std::string templateVertex(const std::string &name, const Args &...args) {
  if constexpr (sizeof...(Args) == 0) {
    return name;
  } else {
    // Appends piece by piece: `"," + std::string` trips GCC 12's -Wrestrict false positive
    // in callers built with -O3 -Werror.
    std::string out = name;
    out += '<';
    bool first = true;
    ((out += first ? "" : ",", out += detail::templateArg(args), first = false), ...);
    out += '>';
    return out;
  }
}

} // namespace poputil
