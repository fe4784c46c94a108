// Building the names of templated vertex types: templateVertex("Foo", FLOAT, 4) == "Foo<float,4>".
// How one template argument is spelt is VertexTemplateToString<T>::to_string; libraries specialise
// it for their enums so a vertex name reads "Reduce<popops::Operation::ADD>" (as PopLibs' do).
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
} // namespace detail

/// Spells one template argument of a vertex name. The primary template covers types ("float",
/// "half"…), bools ("true"/"false"), strings, numbers and enums (by value, in decimal);
/// specialise it for an enum to spell the enumerator, as popops/OperationDefUtil.hpp does.
template <typename T> struct VertexTemplateToString {
  static std::string to_string(const T &x) { return detail::templateArg(x); }
};

namespace detail {
// Appends ",arg" per argument (no comma before the first).
inline void appendTemplateArgs(std::string &, bool) {}
template <class First, class... Rest>
void appendTemplateArgs(std::string &out, bool first, const First &arg, const Rest &...rest) {
  // Piece by piece: `"," + std::string` trips GCC 12's -Wrestrict false positive in callers
  // built with -O3 -Werror.
  if (!first)
    out += ',';
  out += VertexTemplateToString<typename std::decay<const First>::type>::to_string(arg);
  appendTemplateArgs(out, false, rest...);
}
} // namespace detail

/// The template-argument list of a vertex name: "<float,4>" when `first`, ",float,4" otherwise
/// (empty with no arguments).
template <class... Args> std::string templateVertexParams(bool first, const Args &...args) {
  std::string out;
  if (sizeof...(Args) == 0)
    return out;
  out += first ? '<' : ',';
  detail::appendTemplateArgs(out, true, args...);
  if (first)
    out += '>';
  return out;
}

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
