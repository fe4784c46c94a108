#include "SeedState.hpp"

#include <cstdint>
#include <vector>

#include <poplar/exceptions.hpp>
#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

namespace poprand::detail {

void checkSeedTensor(const poplar::Tensor &seed, const char *function, const char *what) {
  if (seed.elementType() != poplar::UNSIGNED_INT || seed.rank() != 1 || seed.numElements() != 2)
    throw poputil::poplibs_error(std::string("poprand::") + function + ": " + what + " " +
                                 poputil::describe(seed) +
                                 " must be a tensor of 2 UNSIGNED_INT elements (shape [2])");
}

poplar::Tensor seedState(poplar::Graph &graph) {
  // Graph has no per-graph slots for libraries, so the variable is found by its reserved name
  // (ids are dense from 0; getDebugStr throws index_error past the last one).
  for (unsigned id = 0;; ++id) {
    poplar::VariableRef ref;
    ref.id = id;
    std::string name;
    try {
      name = graph.getDebugStr(ref);
    } catch (const poplar::index_error &) {
      break;
    }
    if (name == kSeedStateName)
      return graph.getVariable(ref);
  }
  poplar::Tensor state = graph.addVariable(poplar::UNSIGNED_INT, {2}, kSeedStateName);
  graph.setTileMapping(state, 0);
  const std::vector<unsigned> defaultSeed{0xAA99330Fu, 0xCC55E1B4u};
  graph.setInitialValue<unsigned>(state, defaultSeed);
  return state;
}

} // namespace poprand::detail
