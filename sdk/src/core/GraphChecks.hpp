// Checks shared by the Graph member functions (split over several files).
#pragma once

#include <string>

#include <poplar/Tensor.hpp>
#include <poplar/exceptions.hpp>

#include "core/GraphData.hpp"
#include "core/TensorData.hpp"

namespace poplar::core {

/// Throws graph_connection_error unless `t` is a valid tensor of graph `g`; `what()` names the
/// operation for the message and is only called when the check fails (it may be costly).
template <class What> void requireSameGraphLazy(const GraphData &g, const Tensor &t, What &&what) {
  if (!t.valid())
    throw graph_connection_error(what() + ": the tensor is invalid (default-constructed)");
  if (t.data().graph != &g)
    throw graph_connection_error(what() + ": " + describe(t) + " belongs to another graph");
}

/// As above, for an operation named by a string at hand.
inline void requireSameGraph(const GraphData &g, const Tensor &t, const std::string &what) {
  requireSameGraphLazy(g, t, [&] { return what; });
}

} // namespace poplar::core
