// Spline weighting: the second half of a spline-based convolution (SplineCNN), weighting each
// edge's input features by the continuous B-spline kernel that splineBasis evaluated.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// output[e][o] = Σ_s basis[e][s] · Σ_i input[e][i] · weight[weightIndex[e][s]][i][o]
/// for `input` numEdges x numInputChannels (FLOAT or HALF), `weight` numKernelPoints x
/// numInputChannels x numOutputChannels, and `basis` / `weightIndex` (INT) numEdges x numSplines
/// as splineBasis produces them. Accumulates in float. A weight index outside
/// [0, numKernelPoints) contributes nothing. The result is a new numEdges x numOutputChannels
/// tensor of the input's type, mapped linearly over the tiles; one vertex per run of it on each
/// tile computes it. Throws poputil::poplibs_error naming the tensor at fault when a rank, type
/// or size does not fit.
poplar::Tensor splineWeighting(poplar::Graph &graph, const poplar::Tensor &input,
                               const poplar::Tensor &weight, const poplar::Tensor &basis,
                               const poplar::Tensor &weightIndex, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {});

} // namespace popops
