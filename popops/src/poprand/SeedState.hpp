// Seeds of poprand calls: checking seed tensors and the graph's seed state variable.
#pragma once

#include <string>

#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>

namespace poprand::detail {

/// The debug name of the graph's seed state variable (see poprand/RandomGen.hpp).
inline constexpr const char *kSeedStateName = "poprand/seedState";

/// Throws poputil::poplibs_error naming `what` in `function` unless `seed` is a [2] UNSIGNED_INT
/// tensor.
void checkSeedTensor(const poplar::Tensor &seed, const char *function, const char *what);

/// The graph's seed state variable, created (on tile 0, with the default seed) on first use.
poplar::Tensor seedState(poplar::Graph &graph);

} // namespace poprand::detail
