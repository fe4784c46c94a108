// Filling tensors with one value.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// Appends to `prog` a compute set that sets every element of `t` to `fillValue` (converted
/// to `t`'s element type). Each tile fills the elements mapped to it; `t` must be mapped.
template <class FillValueType>
void fill(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &prog,
          FillValueType fillValue, const poplar::DebugContext &debugContext = {});

/// As `fill`, adding the vertices to an existing compute set.
template <class FillValueType>
void fill(poplar::Graph &graph, const poplar::Tensor &t, poplar::ComputeSet cs,
          FillValueType fillValue);

/// Sets every element of `t` to zero.
void zero(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext = {});

} // namespace popops
