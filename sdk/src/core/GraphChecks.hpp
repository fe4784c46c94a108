// Checks shared by the Graph member functions (split over several files).
#pragma once

#include <string>

#include <poplar/Tensor.hpp>
#include <poplar/exceptions.hpp>

#include "core/GraphData.hpp"
#include "core/TensorData.hpp"

namespace poplar::core {

/// Throws graph_connection_error unless `t` is a valid tensor of graph `g`; `what` names the
/// operation for the message.
inline void requireSameGraph(const GraphData &g, const Tensor &t, const std::string &what) {
  if (!t.valid())
    throw graph_connection_error(what + ": the tensor is invalid (default-constructed)");
  if (t.data().graph != &g)
    throw graph_connection_error(what + ": " + describe(t) + " belongs to another graph");
}

} // namespace poplar::core
