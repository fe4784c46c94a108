// Parsing of the convolution functions' OptionFlags into a checked struct.
#pragma once

#include <string>

#include <poplar/OptionFlags.hpp>
#include <poplar/Type.hpp>

namespace poplin::detail {

struct ConvOptions {
  double availableMemoryProportion = 0.6;
  poplar::Type partialsType = poplar::FLOAT;
  std::string pass = "NONE";
  /// A canonical rendering used in planning-cache keys.
  std::string key() const;
};

/// Throws poplar::invalid_option for unknown names (suggesting the nearest) and bad values.
ConvOptions parseConvOptions(const poplar::OptionFlags &options);

} // namespace poplin::detail
