// Reduction of K-split partial products: out[i] = Σ_p partials[p][i] (ReducePartials) or
// out[i] += scale · Σ_p partials[p][i] (ScaledAddPartials), always summed in order p = 0, 1, …
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/VertexType.hpp>

#include "poplin/PoplinCodelets.hpp"

namespace tessera::codelets::poplin {
namespace {

template <class Partial, class Out, bool Accumulate> class Partials : public poplar::MultiVertex {
public:
  poplar::Input<poplar::VectorList<Partial>> partials;
  std::conditional_t<Accumulate, poplar::InOut<poplar::Vector<Out>>,
                     poplar::Output<poplar::Vector<Out>>>
      out;
  float scale;

  void compute(unsigned workerId) {
    const std::size_t n = out.size(), workers = numWorkers();
    const std::size_t begin = n * workerId / workers, end = n * (workerId + 1) / workers;
    const std::size_t parts = partials.size(), count = end - begin;
    if (count == 0)
      return;
    // Streams one partial at a time into an fp32 sum (the same order p = 0, 1, … per element).
    float *sum;
    thread_local std::vector<float> buffer;
    if constexpr (std::is_same_v<Out, float> && !Accumulate) {
      sum = out.data() + begin;
    } else {
      buffer.resize(count);
      sum = buffer.data();
    }
    if (parts == 0) {
      std::fill(sum, sum + count, 0.0f);
    } else {
      const Partial *first = partials[0].data() + begin;
      for (std::size_t i = 0; i < count; ++i)
        sum[i] = static_cast<float>(first[i]);
      for (std::size_t p = 1; p < parts; ++p) {
        const Partial *src = partials[p].data() + begin;
        for (std::size_t i = 0; i < count; ++i)
          sum[i] += static_cast<float>(src[i]);
      }
    }
    if constexpr (Accumulate) {
      for (std::size_t i = 0; i < count; ++i)
        out[begin + i] = static_cast<Out>(static_cast<float>(out[begin + i]) + scale * sum[i]);
    } else if constexpr (!std::is_same_v<Out, float>) {
      for (std::size_t i = 0; i < count; ++i)
        out[begin + i] = static_cast<Out>(sum[i]);
    }
  }
  std::uint64_t cycleEstimate() const { return 30 + out.size() * (partials.size() + 1) / 2; }
};

template <class Partial, class Out, bool Accumulate> void registerPartials(const char *name) {
  using V = Partials<Partial, Out, Accumulate>;
  tessera::VertexTypeBuilder<V>(name)
      .field("partials", &V::partials)
      .field("out", &V::out)
      .field("scale", &V::scale)
      .add();
}

} // namespace

void registerPartialsVertices() {
  // FLOAT partials (the default) by the output type alone; HALF partials (partialsType "half")
  // as <partials, output>.
  registerPartials<float, float, false>("poplin::ReducePartials<float>");
  registerPartials<float, poplar::half, false>("poplin::ReducePartials<half>");
  registerPartials<float, float, true>("poplin::ScaledAddPartials<float>");
  registerPartials<float, poplar::half, true>("poplin::ScaledAddPartials<half>");
  registerPartials<poplar::half, float, false>("poplin::ReducePartials<half,float>");
  registerPartials<poplar::half, poplar::half, false>("poplin::ReducePartials<half,half>");
  registerPartials<poplar::half, float, true>("poplin::ScaledAddPartials<half,float>");
  registerPartials<poplar::half, poplar::half, true>("poplin::ScaledAddPartials<half,half>");
}

} // namespace tessera::codelets::poplin
