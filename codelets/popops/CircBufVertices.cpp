// Index arithmetic of popops::CircBuf, single-threaded vertices on the index's tile.
//   popops::CircBufIncrIndex: index = (index + 1) % hSize.
//   popops::CircOffset: out = (index + hSize - offset) % hSize, the position of the entry
//     `offset` adds old.
#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

class CircBufIncrIndex : public poplar::Vertex {
public:
  poplar::InOut<unsigned> index;
  unsigned hSize;

  bool compute() {
    *index = (*index + 1) % hSize;
    return true;
  }
  std::uint64_t cycleEstimate() const { return 10; }
};

class CircOffset : public poplar::Vertex {
public:
  poplar::Input<unsigned> index;
  poplar::Output<unsigned> out;
  unsigned hSize;
  unsigned offset;

  bool compute() {
    *out =
        static_cast<unsigned>((static_cast<unsigned long long>(*index) + hSize - offset) % hSize);
    return true;
  }
  std::uint64_t cycleEstimate() const { return 10; }
};

} // namespace

void registerCircBufVertices() {
  tessera::VertexTypeBuilder<CircBufIncrIndex>("popops::CircBufIncrIndex")
      .field("index", &CircBufIncrIndex::index)
      .field("hSize", &CircBufIncrIndex::hSize)
      .add();
  tessera::VertexTypeBuilder<CircOffset>("popops::CircOffset")
      .field("index", &CircOffset::index)
      .field("out", &CircOffset::out)
      .field("hSize", &CircOffset::hSize)
      .field("offset", &CircOffset::offset)
      .add();
}

} // namespace tessera::codelets::popops
