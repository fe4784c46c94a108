// Histogram vertices for popops/GatherStatistics.hpp.
//   popops::HistogramCount<T, OutT>: counts[k] = number of elements of the tile's regions below
//     exactly levels[k..N-1] (bin k of N+1), on |x| when `absolute`.
//   popops::HistogramSum<OutT>: out[k] (+)= sum over the numParts rows of partials of column k.
#include <cmath>
#include <string>
#include <vector>

#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

template <class T, class OutT> class HistogramCount : public poplar::Vertex {
public:
  poplar::Vector<poplar::Input<poplar::Vector<T>>> regions;
  poplar::Input<poplar::Vector<T>> levels;
  poplar::Output<poplar::Vector<OutT>> counts;
  bool absolute;

  bool compute() {
    const std::size_t n = levels.size();
    // Count below each level, then take differences: bin k = below[k] - below[k-1].
    std::vector<unsigned> below(n, 0);
    unsigned total = 0;
    for (std::size_t r = 0; r < regions.size(); ++r) {
      const auto &region = regions[r];
      total += static_cast<unsigned>(region.size());
      for (std::size_t i = 0; i < region.size(); ++i) {
        float x = static_cast<float>(region[i]);
        if (absolute)
          x = std::fabs(x);
        for (std::size_t k = 0; k < n; ++k)
          below[k] += x < static_cast<float>(levels[k]) ? 1u : 0u;
      }
    }
    unsigned previous = 0;
    for (std::size_t k = 0; k < n; ++k) {
      counts[k] = static_cast<OutT>(below[k] - previous);
      previous = below[k];
    }
    counts[n] = static_cast<OutT>(total - previous);
    return true;
  }
  std::uint64_t cycleEstimate() const {
    std::uint64_t elements = 0;
    for (std::size_t r = 0; r < regions.size(); ++r)
      elements += regions[r].size();
    return 20 + elements * (1 + levels.size());
  }
};

template <class OutT> class HistogramSum : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<OutT>> partials;
  poplar::InOut<poplar::Vector<OutT>> out;
  bool update;

  bool compute() {
    const std::size_t bins = out.size(), parts = bins ? partials.size() / bins : 0;
    for (std::size_t k = 0; k < bins; ++k) {
      OutT sum = update ? out[k] : OutT(0);
      for (std::size_t p = 0; p < parts; ++p)
        sum += partials[p * bins + k];
      out[k] = sum;
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + partials.size(); }
};

template <class T, class OutT> void registerCount(const std::string &name) {
  using V = HistogramCount<T, OutT>;
  tessera::VertexTypeBuilder<V>(name)
      .field("regions", &V::regions)
      .field("levels", &V::levels)
      .field("counts", &V::counts)
      .field("absolute", &V::absolute)
      .add();
}

template <class OutT> void registerSum(const std::string &name) {
  using V = HistogramSum<OutT>;
  tessera::VertexTypeBuilder<V>(name)
      .field("partials", &V::partials)
      .field("out", &V::out)
      .field("update", &V::update)
      .add();
}

} // namespace

void registerGatherStatisticsVertices() {
  registerCount<float, unsigned>("popops::HistogramCount<float,unsigned int>");
  registerCount<float, float>("popops::HistogramCount<float,float>");
  registerCount<poplar::half, unsigned>("popops::HistogramCount<half,unsigned int>");
  registerCount<poplar::half, float>("popops::HistogramCount<half,float>");
  registerSum<unsigned>("popops::HistogramSum<unsigned int>");
  registerSum<float>("popops::HistogramSum<float>");
}

} // namespace tessera::codelets::popops
