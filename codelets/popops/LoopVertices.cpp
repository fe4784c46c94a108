// Loop counters for popops/Loop.hpp, single-threaded vertices on one tile.
//   popops::LoopCounterStep: count += increment (countedLoop's induction variable).
//   popops::ForLoopCounter<T>: count += increment, then comparisonResult = (count != limit).
#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

class LoopCounterStep : public poplar::Vertex {
public:
  poplar::InOut<unsigned> count;
  unsigned increment;

  bool compute() {
    *count = *count + increment;
    return true;
  }
  std::uint64_t cycleEstimate() const { return 8; }
};

template <class T> class ForLoopCounter : public poplar::Vertex {
public:
  poplar::InOut<T> count;
  poplar::Input<T> limit;
  poplar::Output<unsigned> comparisonResult;
  int increment;

  bool compute() {
    // Wrap-around arithmetic in unsigned, as the C loop over T would do.
    *count = static_cast<T>(static_cast<unsigned>(*count) + static_cast<unsigned>(increment));
    *comparisonResult = *count != *limit ? 1u : 0u;
    return true;
  }
  std::uint64_t cycleEstimate() const { return 10; }
};

template <class T> void registerForLoopCounter(const char *name) {
  using V = ForLoopCounter<T>;
  tessera::VertexTypeBuilder<V>(name)
      .field("count", &V::count)
      .field("limit", &V::limit)
      .field("comparisonResult", &V::comparisonResult)
      .field("increment", &V::increment)
      .add();
}

} // namespace

void registerLoopVertices() {
  tessera::VertexTypeBuilder<LoopCounterStep>("popops::LoopCounterStep")
      .field("count", &LoopCounterStep::count)
      .field("increment", &LoopCounterStep::increment)
      .add();
  registerForLoopCounter<int>("popops::ForLoopCounter<int>");
  registerForLoopCounter<unsigned>("popops::ForLoopCounter<unsigned int>");
}

} // namespace tessera::codelets::popops
