// One-hot encoding of class indices and filling tensors with ranges of integers.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

#include "EncodingConstants.hpp"

namespace popops {

/// Writes one one-hot row per index: encoded[r][c] = 1 if indices[r] == c, else 0.
/// `indices` is rank 1 (UNSIGNED_INT or INT) with N elements, `encoded` is [N][classes]
/// (FLOAT, HALF, INT or UNSIGNED_INT) and must be mapped; each tile writes the elements of
/// `encoded` mapped to it. An index equal to MASKED_LABEL_CODE (-1 as INT), or any other index
/// outside [0, classes), gives a row of zeros. Throws poputil::poplibs_error naming the tensor
/// when `encoded` is not rank 2, when the row counts differ, or when `indices` is not a rank-1
/// integer tensor.
void encodeOneHot(poplar::Graph &graph, const poplar::Tensor &indices,
                  const poplar::Tensor &encoded, poplar::program::Sequence &prog,
                  const poplar::DebugContext &debugContext = {});

/// As above with the "on" and "off" values taken from the one-element tensors `on` and `off`
/// (of `encoded`'s type) at run time: encoded[r][c] = indices[r] == c ? on : off.
void encodeOneHot(poplar::Graph &graph, const poplar::Tensor &indices,
                  const poplar::Tensor &encoded, poplar::program::Sequence &prog,
                  const poplar::Tensor &on, const poplar::Tensor &off,
                  const poplar::DebugContext &debugContext = {});

/// t[i] = startInteger + i for the rank-1 UNSIGNED_INT tensor `t`; each tile writes the
/// elements mapped to it. Other ranks or types throw poputil::poplibs_error naming `t`.
void iota(poplar::Graph &graph, const poplar::Tensor &t, unsigned startInteger,
          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

/// As above for an INT tensor.
void iota(poplar::Graph &graph, const poplar::Tensor &t, int startInteger,
          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace popops
