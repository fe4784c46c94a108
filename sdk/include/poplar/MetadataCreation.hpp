// Creating and setting QUARTER_METADATA tensors, the format and scale of QUARTER tensors.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Quarter.hpp>
#include <poplar/Tensor.hpp>

namespace poplar {

/// A constant QUARTER_METADATA scalar holding `fp8Format` and `fp8Scale`, mapped to tile 0.
/// `fp8Scale` must lie in [-31, 31], else poplar::index_error naming it.
Tensor createConstantMetadataTensor(Graph &graph, QuarterMetadata::Format fp8Format, int fp8Scale,
                                    const DebugContext &debugContext = {});

/// As createConstantMetadataTensor, but a variable (initially `fp8Format` and `fp8Scale`) that
/// programs may overwrite.
Tensor createVariableMetadataTensor(Graph &graph, QuarterMetadata::Format fp8Format, int fp8Scale,
                                    const DebugContext &debugContext = {});

/// A QUARTER_METADATA variable (mapped to tile 0) that `prog` sets to `fp8Format` and the scale
/// held in the scalar integer tensor `fp8Scale` (see setMetadataTensor).
Tensor createVariableMetadataTensor(Graph &graph, QuarterMetadata::Format fp8Format,
                                    const Tensor &fp8Scale, program::Sequence &prog,
                                    const DebugContext &debugContext = {});

/// Adds to `prog` the writing of `fp8Format` and the run-time scale `fp8Scale` (a scalar integer
/// tensor) into `metadataOut`, a QUARTER_METADATA tensor of one element. A scale outside
/// [-31, 31] at run time aborts the program with a message naming it.
void setMetadataTensor(Graph &graph, QuarterMetadata::Format fp8Format, const Tensor &fp8Scale,
                       const Tensor &metadataOut, program::Sequence &prog,
                       const DebugContext &debugContext = {});

} // namespace poplar
