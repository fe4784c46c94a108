// Argument checks shared by popnn's functions: every failure throws poputil::poplibs_error whose
// message names the function, the argument and what was expected.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include <poplar/Tensor.hpp>
#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

namespace popnn::detail {

/// Concatenates the streamed form of every argument (messages built this way avoid GCC 12's
/// false -Wrestrict alarms on `"literal" + std::string`).
template <class... Parts> std::string cat(const Parts &...parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

using poputil::shapeString;

/// "fn: argument 'name' (float[2,3]) <problem>".
[[noreturn]] inline void fail(const std::string &fn, const std::string &name,
                              const poplar::Tensor &t, const std::string &problem) {
  throw poputil::poplibs_error(
      cat(fn, ": argument '", name, "' (", t.shortString(), ") ", problem));
}

inline void requireFloatType(const std::string &fn, const std::string &name,
                             const poplar::Tensor &t) {
  if (t.elementType() != poplar::FLOAT && t.elementType() != poplar::HALF)
    fail(fn, name, t, cat("must be FLOAT or HALF, not ", t.elementType().toString()));
}

/// The same for a type argument (a tensor the function is about to create).
inline void requireFloatType(const std::string &fn, const std::string &name,
                             const poplar::Type &type) {
  if (type != poplar::FLOAT && type != poplar::HALF)
    throw poputil::poplibs_error(
        cat(fn, ": argument '", name, "' must be FLOAT or HALF, not ", type.toString()));
}

inline void requireMinRank(const std::string &fn, const std::string &name, const poplar::Tensor &t,
                           unsigned rank) {
  if (t.rank() < rank)
    fail(fn, name, t, cat("must have rank >= ", rank));
}

inline void requireShape(const std::string &fn, const std::string &name, const poplar::Tensor &t,
                         const std::vector<std::size_t> &shape) {
  if (t.shape() != shape)
    fail(fn, name, t, cat("must have shape ", shapeString(shape)));
}

inline void requireSameType(const std::string &fn, const std::string &name, const poplar::Tensor &t,
                            const poplar::Type &type) {
  if (t.elementType() != type)
    fail(fn, name, t, cat("must have element type ", type.toString()));
}

} // namespace popnn::detail
