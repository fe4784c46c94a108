// Spatial softmax over 2-D fields: the expected (y, x) coordinate of each field's activation
// mass, coordinates normalised to [-1, 1] (row 0 / column 0 at -1, the last at +1; a dimension
// of size 1 sits at -1). Used by visuomotor policies to turn feature maps into keypoints.
#pragma once

#include <utility>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popnn/NonLinearity.hpp>

namespace popnn {

/// fields is [F][H][W] (FLOAT or HALF). Adds a scalar `temperature` variable (initialised to
/// `temperature`, on tile 0), divides the fields by it and, unless disableSoftmax, applies one
/// softmax jointly over all F·H·W elements (PopLibs' behaviour; fields already softmaxed per
/// field should pass disableSoftmax). Returns ([F][2] expected coordinates — y in column 0, x in
/// column 1, so (row, column) order — and the temperature variable). Throws
/// poputil::poplibs_error (a poplar::poplar_error) naming `fields` unless it has rank 3.
std::pair<poplar::Tensor, poplar::Tensor>
spatialSoftMax2D(poplar::Graph &graph, poplar::program::Sequence &prog,
                 const poplar::Tensor &fields, float temperature, bool disableSoftmax = false,
                 const poplar::DebugContext &debugContext = {});

} // namespace popnn
