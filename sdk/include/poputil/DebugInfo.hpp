// Debug records of library operations, as PopLibs writes them: `toProfileValue` for the types
// operations take, `OpDebugInfo` / `PoplibsOpDebugInfo`, and `DI_ARGS(a, b, …)`, which names
// each argument after its expression.
#pragma once

#include <cstddef>
#include <map>
#if __cplusplus >= 201703L
#include <optional>
#endif
#include <string>
#include <utility>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/ProfileValue.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace poputil {

/// A value's debug form. Defined for the types below; containers of them use the overloads.
template <typename T> poplar::ProfileValue toProfileValue(const T &t);

template <> poplar::ProfileValue toProfileValue(const bool &t);
template <> poplar::ProfileValue toProfileValue(const int &t);
template <> poplar::ProfileValue toProfileValue(const unsigned &t);
template <> poplar::ProfileValue toProfileValue(const long &t);
template <> poplar::ProfileValue toProfileValue(const unsigned long &t);
template <> poplar::ProfileValue toProfileValue(const long long &t);
template <> poplar::ProfileValue toProfileValue(const unsigned long long &t);
template <> poplar::ProfileValue toProfileValue(const float &t);
template <> poplar::ProfileValue toProfileValue(const double &t);
template <> poplar::ProfileValue toProfileValue(const std::string &t);
template <> poplar::ProfileValue toProfileValue(const poplar::ProfileValue &t);
/// A tensor: {"shape": […], "type": "float", "name": the first variable's debug name}.
template <> poplar::ProfileValue toProfileValue(const poplar::Tensor &t);
template <> poplar::ProfileValue toProfileValue(const poplar::Type &t);
/// {"id": …}
template <> poplar::ProfileValue toProfileValue(const poplar::ComputeSet &t);
/// The flags as a map of strings.
template <> poplar::ProfileValue toProfileValue(const poplar::OptionFlags &t);
template <> poplar::ProfileValue toProfileValue(const poplar::Interval &t);

template <typename T> poplar::ProfileValue toProfileValue(const std::vector<T> &v) {
  poplar::ProfileValue::Vector out;
  out.reserve(v.size());
  for (const auto &e : v)
    out.push_back(toProfileValue(e));
  return out;
}
template <typename T> poplar::ProfileValue toProfileValue(const poplar::ArrayRef<T> &v) {
  poplar::ProfileValue::Vector out;
  for (const auto &e : v)
    out.push_back(toProfileValue(e));
  return out;
}
#if __cplusplus >= 201703L
/// An empty optional is the string "<none>" (C++17 and later only).
template <typename T> poplar::ProfileValue toProfileValue(const std::optional<T> &v) {
  return v ? toProfileValue(*v) : poplar::ProfileValue("<none>");
}
#endif
template <typename T> poplar::ProfileValue toProfileValue(const std::map<std::string, T> &m) {
  poplar::ProfileValue::Map out;
  for (const auto &entry : m)
    out.emplace(entry.first, toProfileValue(entry.second));
  return out;
}
/// A pointer is its pointee, or "<nullptr>".
template <typename T> poplar::ProfileValue toProfileValue(T *const &p) {
  return p ? toProfileValue(*p) : poplar::ProfileValue("<nullptr>");
}

/// One named argument of an operation.
using ArgType = std::pair<const std::string, poplar::ProfileValue>;

/// The debug record of one library operation: layer "poplibs", its API name, arguments and
/// outputs.
class OpDebugInfo : public poplar::DebugInfo {
public:
  OpDebugInfo(const poplar::DebugContext &debugContext, std::string api);
  OpDebugInfo(const OpDebugInfo &) = delete;
  OpDebugInfo &operator=(const OpDebugInfo &) = delete;
  ~OpDebugInfo() override;

  /// Records `args` as a map under `name` (e.g. "args").
  void add(std::string name, const std::vector<ArgType> &args);
  void add(std::string name, poplar::ProfileValue pv);
  /// Outputs are collected and recorded under "outputs" when the record is destroyed.
  void addOutputs(const std::map<std::string, poplar::ProfileValue> &outputs);
  void addOutput(const poplar::Tensor &output);

private:
  poplar::ProfileValue::Map outputs_;
};

/// A PopLibs operation's record: its arguments under "args". An empty `api` takes the name of
/// the function the DebugContext was made in (the operation itself, when the context is its
/// defaulted last argument).
class PoplibsOpDebugInfo : public OpDebugInfo {
public:
  PoplibsOpDebugInfo(const poplar::DebugContext &debugContext,
                     const std::vector<ArgType> &args = {}, const std::string &api = "");
};

} // namespace poputil

// ---- DI_ARGS(a, b, …): {{"a", toProfileValue(a)}, {"b", toProfileValue(b)}, …} ----------------
#define POPUTIL_DI_ARG(x)                                                                          \
  ::poputil::ArgType { #x, ::poputil::toProfileValue(x) }
#if __cplusplus >= 202002L
#define POPUTIL_DI_PARENS ()
#define POPUTIL_DI_EXPAND(...)                                                                     \
  POPUTIL_DI_EXPAND3(POPUTIL_DI_EXPAND3(POPUTIL_DI_EXPAND3(POPUTIL_DI_EXPAND3(__VA_ARGS__))))
#define POPUTIL_DI_EXPAND3(...)                                                                    \
  POPUTIL_DI_EXPAND2(POPUTIL_DI_EXPAND2(POPUTIL_DI_EXPAND2(POPUTIL_DI_EXPAND2(__VA_ARGS__))))
#define POPUTIL_DI_EXPAND2(...)                                                                    \
  POPUTIL_DI_EXPAND1(POPUTIL_DI_EXPAND1(POPUTIL_DI_EXPAND1(POPUTIL_DI_EXPAND1(__VA_ARGS__))))
#define POPUTIL_DI_EXPAND1(...) __VA_ARGS__
#define POPUTIL_DI_FOR_EACH(...)                                                                   \
  __VA_OPT__(POPUTIL_DI_EXPAND(POPUTIL_DI_FOR_EACH_HELPER(__VA_ARGS__)))
#define POPUTIL_DI_FOR_EACH_HELPER(a1, ...)                                                        \
  POPUTIL_DI_ARG(a1) __VA_OPT__(, POPUTIL_DI_FOR_EACH_AGAIN POPUTIL_DI_PARENS(__VA_ARGS__))
#define POPUTIL_DI_FOR_EACH_AGAIN() POPUTIL_DI_FOR_EACH_HELPER
#else
// Before C++20 (no __VA_OPT__): counted, 1 to 16 arguments.
#define POPUTIL_DI_CAT(a, b) POPUTIL_DI_CAT_(a, b)
#define POPUTIL_DI_CAT_(a, b) a##b
#define POPUTIL_DI_COUNT(...)                                                                      \
  POPUTIL_DI_COUNT_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define POPUTIL_DI_COUNT_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,   \
                          N, ...)                                                                  \
  N
#define POPUTIL_DI_FOR_EACH(...)                                                                   \
  POPUTIL_DI_CAT(POPUTIL_DI_FOR_EACH_, POPUTIL_DI_COUNT(__VA_ARGS__))(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_1(a) POPUTIL_DI_ARG(a)
#define POPUTIL_DI_FOR_EACH_2(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_1(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_3(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_2(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_4(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_3(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_5(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_4(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_6(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_5(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_7(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_6(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_8(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_7(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_9(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_8(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_10(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_9(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_11(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_10(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_12(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_11(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_13(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_12(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_14(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_13(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_15(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_14(__VA_ARGS__)
#define POPUTIL_DI_FOR_EACH_16(a, ...) POPUTIL_DI_ARG(a), POPUTIL_DI_FOR_EACH_15(__VA_ARGS__)
#endif
/// The named arguments for PoplibsOpDebugInfo: each argument under its own spelling.
#define DI_ARGS(...) std::vector<::poputil::ArgType>({POPUTIL_DI_FOR_EACH(__VA_ARGS__)})
