// Helpers that derive one convolution's parameters from another's, as Poplar's ConvUtil.hpp.
#pragma once

#include <poplin/ConvParams.hpp>

namespace poplin {

/// The parameters of the input-gradient convolution of the forward convolution `params`:
/// input = the forward output gradient [B][G*OCperG][out fields…], output = the forward input's
/// shape, channels swapped, strides turned into input dilation and padding mirrored. Use with
/// convolution(…, transposeAndFlipWeights = true) and the forward weights.
ConvParams getGradientParams(const ConvParams &params);

} // namespace poplin
