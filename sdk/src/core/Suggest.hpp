// The core's name for poputil's suggestions (one edit distance for the SDK and the libraries).
#pragma once

#include <poputil/Suggest.hpp>

namespace poplar::core {

using poputil::didYouMean;
using poputil::nearestName;

} // namespace poplar::core
