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
template <class T> std::string numberArg(T v, std::true_type /*isEnum*/) {
  return std::to_string(static_cast<typename std::underlying_type<T>::type>(v));
}
template <class T> std::string numberArg(T v, std::false_type /*isEnum*/) {
  return std::to_string(v);
}
template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value ||
                                                   std::is_enum<T>::value>::type>
std::string templateArg(T v) {
  return numberArg(v, std::is_enum<T>());
}
// Appends ",arg" per argument (no comma before the first).
inline void appendTemplateArgs(std::string &, bool) {}
template <class First, class... Rest>
void appendTemplateArgs(std::string &out, bool first, const First &arg, const Rest &...rest) {
  // Piece by piece: `"," + std::string` trips GCC 12's -Wrestrict false positive in callers
  // built with -O3 -Werror.
  if (!first)
    out += ',';
  out += templateArg(arg);
  appendTemplateArgs(out, false, rest...);
}
} // namespace detail

/// The registered name of a template vertex instantiated with `args` (types print as
/// "float", "half"…, bools as "true"/"false", numbers in decimal).
template <class... Args> std::string templateVertex(const std::string &name, const Args &...args) {
  if (sizeof...(Args) == 0)
    return name;
  std::string out = name;
  out += '<';
  detail::appendTemplateArgs(out, true, args...);
  out += '>';
  return out;
}

} // namespace poputil
