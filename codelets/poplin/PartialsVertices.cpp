// Reduction of K-split partial products: out[i] = Σ_p partials[p][i] (ReducePartials) or
// out[i] += scale · Σ_p partials[p][i] (ScaledAddPartials), always summed in order p = 0, 1, …
#include <cstdint>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "poplin/PoplinCodelets.hpp"

namespace tessera::codelets::poplin {
namespace {

template <class Out, bool Accumulate> class Partials : public poplar::MultiVertex {
public:
  poplar::Input<poplar::VectorList<float>> partials;
  std::conditional_t<Accumulate, poplar::InOut<poplar::Vector<Out>>,
                     poplar::Output<poplar::Vector<Out>>>
      out;
  float scale;

  void compute(unsigned workerId) {
    const std::size_t n = out.size(), workers = numWorkers();
    const std::size_t begin = n * workerId / workers, end = n * (workerId + 1) / workers;
    const std::size_t parts = partials.size();
    for (std::size_t i = begin; i < end; ++i) {
      float sum = 0.0f;
      for (std::size_t p = 0; p < parts; ++p)
        sum += partials[p][i];
      if constexpr (Accumulate)
        out[i] = static_cast<Out>(static_cast<float>(out[i]) + scale * sum);
      else
        out[i] = static_cast<Out>(sum);
    }
  }
  std::uint64_t cycleEstimate() const { return 30 + out.size() * (partials.size() + 1) / 2; }
};

template <class Out, bool Accumulate> void registerPartials(const char *name) {
  using V = Partials<Out, Accumulate>;
  tessera::VertexTypeBuilder<V>(name)
      .field("partials", &V::partials)
      .field("out", &V::out)
      .field("scale", &V::scale)
      .add();
}

} // namespace

void registerPartialsVertices() {
  registerPartials<float, false>("poplin::ReducePartials<float>");
  registerPartials<poplar::half, false>("poplin::ReducePartials<half>");
  registerPartials<float, true>("poplin::ScaledAddPartials<float>");
  registerPartials<poplar::half, true>("poplin::ScaledAddPartials<half>");
}

} // namespace tessera::codelets::poplin
