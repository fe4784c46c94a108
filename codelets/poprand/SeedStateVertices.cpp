// The per-graph seed state behind seedless poprand calls: setSeed writes it, every seedless
// generator call advances it (see poprand/RandomGen.hpp).
#include <poplar/Vertex.hpp>

#include "poprand/PoprandCodelets.hpp"
#include "poprand/kernels/RandomReference.hpp"

namespace tessera::codelets::poprand {
namespace {

/// state = seedStateFromMaster(masterSeed, seedModifier).
class SetSeedState : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<unsigned>> masterSeed;
  poplar::Output<poplar::Vector<unsigned>> state;
  unsigned seedModifier;

  void compute() {
    const auto s = seedStateFromMaster(masterSeed[0], masterSeed[1], seedModifier);
    state[0] = s[0];
    state[1] = s[1];
  }
  std::uint64_t cycleEstimate() const { return 120; }
};

/// state = advancedSeedState(state).
class AdvanceSeedState : public poplar::Vertex {
public:
  poplar::InOut<poplar::Vector<unsigned>> state;

  void compute() {
    const auto s = advancedSeedState(state[0], state[1]);
    state[0] = s[0];
    state[1] = s[1];
  }
  std::uint64_t cycleEstimate() const { return 10; }
};

} // namespace

void registerSeedStateVertices() {
  tessera::VertexTypeBuilder<SetSeedState>("poprand::SetSeedState")
      .field("masterSeed", &SetSeedState::masterSeed)
      .field("state", &SetSeedState::state)
      .field("seedModifier", &SetSeedState::seedModifier)
      .add();
  tessera::VertexTypeBuilder<AdvanceSeedState>("poprand::AdvanceSeedState")
      .field("state", &AdvanceSeedState::state)
      .add();
}

} // namespace tessera::codelets::poprand
