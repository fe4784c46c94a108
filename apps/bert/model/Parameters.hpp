// How the BERT model creates its trainable tensors: spread over the tiles, registered with the
// BuildContext (so optimisers and checkpoints see them) and given their initial values in the
// context's initialisation program, as BERT initialises them.
#pragma once

#include <string>
#include <vector>

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::bert {

/// A weight of `shape` drawn from a normal distribution of standard deviation `stdDev`
/// truncated at ±2σ (BERT's initialiser), mapped linearly with whole rows per tile. Weight decay
/// applies to it.
apps::Parameter &addNormalWeight(apps::BuildContext &ctx, const std::string &name,
                                 const std::vector<std::size_t> &shape, float stdDev);

/// A weight created elsewhere (e.g. a sliceable embedding table) given the same initialiser.
apps::Parameter &registerNormalWeight(apps::BuildContext &ctx, const std::string &name,
                                      const poplar::Tensor &value, float stdDev);

/// A bias or normalisation parameter of `size` elements, every one `value` (0 for biases and
/// layer-norm shifts, 1 for layer-norm scales). No weight decay.
apps::Parameter &addConstantParameter(apps::BuildContext &ctx, const std::string &name,
                                      std::size_t size, float value);

} // namespace tessera::bert
