// poprand::ApplyMask<T>: out = mask != 0 ? in * scale : 0, over the tile's runs (shaped dropout
// applies a mask generated on a smaller, broadcast reference).
#include <cstddef>
#include <cstdint>

#include <poplar/Vertex.hpp>

#include "poprand/PoprandCodelets.hpp"

namespace tessera::codelets::poprand {
namespace {

template <class T> class ApplyMask : public poplar::MultiVertex {
public:
  poplar::Input<poplar::VectorList<T>> in;
  poplar::Input<poplar::VectorList<T>> mask; ///< The same run sizes as in and out.
  poplar::Output<poplar::VectorList<T>> out;
  float scale;

  void compute(unsigned workerId) {
    // Worker w takes the w-th of numWorkers() equal shares of the tile's elements.
    std::size_t total = 0;
    for (const auto &run : out)
      total += run.size();
    const std::size_t begin = total * workerId / numWorkers();
    const std::size_t end = total * (workerId + 1) / numWorkers();
    for (std::size_t r = 0, offset = 0; r < out.size() && offset < end;
         offset += out[r].size(), ++r)
      for (std::size_t i = begin > offset ? begin - offset : 0;
           i < out[r].size() && offset + i < end; ++i)
        out[r][i] = float(mask[r][i]) != 0.0f ? T(float(in[r][i]) * scale) : T(0.0f);
  }
  std::uint64_t cycleEstimate() const {
    std::uint64_t n = 0;
    for (const auto &run : out)
      n += run.size();
    return 30 + 8 * out.size() + 2 * n;
  }
};

template <class T> void registerApplyMask(const char *name) {
  tessera::VertexTypeBuilder<ApplyMask<T>>(name)
      .field("in", &ApplyMask<T>::in)
      .field("mask", &ApplyMask<T>::mask)
      .field("out", &ApplyMask<T>::out)
      .field("scale", &ApplyMask<T>::scale)
      .add();
}

} // namespace

void registerMaskVertices() {
  registerApplyMask<float>("poprand::ApplyMask<float>");
  registerApplyMask<poplar::half>("poprand::ApplyMask<half>");
}

} // namespace tessera::codelets::poprand
