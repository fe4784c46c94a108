// Dropout for training layers: poprand's counter-based dropout under popnn's name.
#pragma once

#include <cstdint>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popnn {

/// Keeps each element of `input` with probability `keepProbability`, scaling kept elements by
/// `scale` (usually 1 / keepProbability) and zeroing the rest. The mask depends only on `seed`
/// (two UNSIGNED_INT, or null for the graph's seed state), `seedModifier` and each element's
/// row-major index in `reference`, so the backward pass reproduces it by calling again with
/// the same arguments. Errors are those of poprand::dropout (poputil::poplibs_error naming the
/// argument). Call poprand::addCodelets (or popnn::addCodelets) first.
poplar::Tensor dropout(poplar::Graph &graph, const poplar::Tensor *seed, std::uint32_t seedModifier,
                       const poplar::Tensor &input, const poplar::Tensor &reference,
                       double keepProbability, double scale, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {});

} // namespace popnn
