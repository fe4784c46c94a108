// Helpers for element-wise operations.
#pragma once

#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace popops {

/// A new tensor of `outputType` to hold the result of an element-wise operation over `inputs`
/// (which must all have one shape), mapped so that the operation is balanced over the tiles and
/// needs little exchange: laid out like the input whose elements are completely mapped over the
/// most tiles (a linear mapping when none is mapped). Throws poputil::poplibs_error when
/// `inputs` is empty or the shapes differ.
poplar::Tensor createOutputForElementWiseOp(poplar::Graph &graph,
                                            const std::vector<poplar::Tensor> &inputs,
                                            const poplar::Type &outputType,
                                            const poplar::DebugContext &debugContext = {});

} // namespace popops
