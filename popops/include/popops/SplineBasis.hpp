// B-spline basis functions for spline-based convolutions (SplineCNN), as PyTorch-Spline-Conv
// defines them: the first half of a spline convolution, whose second half is splineWeighting.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// For each edge e (a row of `pseudo`, numEdges x numDims, FLOAT or HALF, coordinates in [0, 1])
/// and each of its numSplines = (degree + 1)^numDims neighbouring kernel points s, writes the
/// product over the dimensions of the degree-`degree` B-spline basis value into basis[e][s] and
/// the flat index of that kernel point's weight into weightIndex[e][s]. Per dimension d, with
/// k = s's d-th base-(degree+1) digit, n = kernelSize[d] and v = pseudo[e][d] · (n − degree when
/// isOpenSpline[d] is non-zero, else n): the index digit is ((int)v + k) mod n (a closed spline
/// wraps around) weighted by the product of the kernel sizes before d, and the basis factor is
/// the k-th piece of the uniform B-spline at frac(v).
///
/// `kernelSize` (INT) and `isOpenSpline` (UNSIGNED_CHAR) have one element per dimension and are
/// read on the device; a non-positive kernel size gives that dimension index digit 0.
/// `basis` (the type of `pseudo`) and `weightIndex` (INT) are numEdges x numSplines tensors the
/// caller has mapped; one vertex per run of `basis` on each tile computes them.
/// Throws poputil::poplibs_error naming the tensor at fault when a rank, type or size does not
/// fit, or when `degree` is not 1, 2 or 3.
void splineBasis(poplar::Graph &graph, const poplar::Tensor &pseudo,
                 const poplar::Tensor &kernelSize, const poplar::Tensor &isOpenSpline,
                 const poplar::Tensor &basis, const poplar::Tensor &weightIndex, unsigned degree,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace popops
