// Rows between a strided pointwise convolution's full field and its compact product
// (poplin/src/ConvAsMatMul.hpp):
//   poplin::SampleRows<T>: out[r][q] = in[r][q · step]            (the sampled input positions)
//   poplin::SpreadRows<T>: out[r][x] = in[r][x / step] when step divides x, else 0
//                                                                 (its input gradient's rows)
// Both take whole rows, so the exchange moves contiguous runs and the full tensors keep an
// ordinary layout; the stride of the outer field dimensions is taken by the row views.
#include <algorithm>
#include <cstdint>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "poplin/PoplinCodelets.hpp"

namespace tessera::codelets::poplin {
namespace {

template <class T> class SampleRows : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<T>> in;
  poplar::Output<poplar::Vector<T>> out;
  unsigned inLen, outLen, step;

  bool compute() {
    const std::size_t rows = out.size() / outLen;
    for (std::size_t r = 0; r < rows; ++r) {
      const T *src = in.data() + r * inLen;
      T *dst = out.data() + r * outLen;
      for (std::size_t q = 0; q < outLen; ++q)
        dst[q] = src[q * step];
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + 2 * std::uint64_t(out.size()); }
};

template <class T> class SpreadRows : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<T>> in;
  poplar::Output<poplar::Vector<T>> out;
  unsigned inLen, outLen, step;

  bool compute() {
    const std::size_t rows = in.size() / inLen;
    for (std::size_t r = 0; r < rows; ++r) {
      const T *src = in.data() + r * inLen;
      T *dst = out.data() + r * outLen;
      std::fill(dst, dst + outLen, T(0.0f));
      for (std::size_t q = 0; q < inLen && q * step < outLen; ++q)
        dst[q * step] = src[q];
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + 2 * std::uint64_t(out.size()); }
};

template <template <class> class V, class T> void registerRows(const char *name) {
  using Vx = V<T>;
  tessera::VertexTypeBuilder<Vx>(name)
      .field("in", &Vx::in)
      .field("out", &Vx::out)
      .field("inLen", &Vx::inLen)
      .field("outLen", &Vx::outLen)
      .field("step", &Vx::step)
      .add();
}

} // namespace

void registerStridedRowVertices() {
  registerRows<SampleRows, float>("poplin::SampleRows<float>");
  registerRows<SampleRows, poplar::half>("poplin::SampleRows<half>");
  registerRows<SpreadRows, float>("poplin::SpreadRows<float>");
  registerRows<SpreadRows, poplar::half>("poplin::SpreadRows<half>");
}

} // namespace tessera::codelets::poplin
