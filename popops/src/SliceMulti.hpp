// The argument checks and per-base lowering that multiSlice/multiUpdate* and their grouped forms
// share (DynamicSlice.cpp defines them; SliceGrouped.cpp runs them once per group).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include "SliceCommon.hpp"

namespace popops::detail {

/// A checked multi-slice: the sliced dim, slice rows, flat offsets and the index mode.
struct MultiArgs {
  unsigned dim;
  std::size_t size;
  poplar::Tensor offsets; // [numOffsets]
  unsigned indexMode;
};

/// Checks a multiSlice/multiUpdate* call on base `t` (one dim, UNSIGNED_INT offsets of shape
/// [numOffsets][1] or [numOffsets], a non-empty sliced dim, valid options).
MultiArgs checkMultiArgs(const std::string &fn, const poplar::Tensor &t,
                         const poplar::Tensor &offsets, const std::vector<std::size_t> &dims,
                         const std::vector<std::size_t> &sizes, const poplar::OptionFlags &options);

/// [numOffsets][t's shape with dim replaced by size].
std::vector<std::size_t> multiSliceShape(const poplar::Tensor &t, const MultiArgs &a);

/// Throws naming `scale` unless it is one element of t's type (or FLOAT for a HALF `t`, as
/// PopLibs allows).
void checkScale(const std::string &fn, const poplar::Tensor &t, const poplar::Tensor &scale);

/// Adds the slice vertices of base `t` (slices into `out2d`, [numOffsets * size][columns]).
void addMultiSliceVertices(poplar::Graph &graph, poplar::ComputeSet cs, const poplar::Tensor &t,
                           const poplar::Tensor &out2d, const MultiArgs &a);

/// Adds the update vertices of base `t` from slices `s` (shaped as multiSliceShape).
void addMultiUpdateVertices(poplar::Graph &graph, poplar::ComputeSet cs, RowOp op,
                            const poplar::Tensor &t, const poplar::Tensor &s, const MultiArgs &a,
                            const poplar::Tensor *scale);

} // namespace popops::detail
