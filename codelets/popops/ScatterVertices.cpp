// XLA scatter on the operand regions one tile holds.
//   popops::ScatterRegions<T, IndexT>: for windows [firstWindow, firstWindow + numWindows), writes
//     each update element whose operand position falls in one of `regions`.
//   popops::GatherRegions<T, IndexT>: for window firstWindow, out[j] = the operand value at
//     window element j when this tile holds it, 0 otherwise (the tiles' rows are then summed).
// A window's operand position is sum_k indices[w][k] * startStride[k] + windowDelta[j]; a window
// with some start component outside [0, maxStart[k]] is skipped (GatherRegions gives zeros).
#include <algorithm>
#include <cstdint>
#include <string>

#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

/// The fields both vertices share: where the tile's regions sit, and how windows map there.
template <class IndexT> struct WindowGeometry {
  poplar::Input<poplar::Vector<unsigned>> regionStarts;
  poplar::Input<poplar::Vector<IndexT>> indices;
  poplar::Input<poplar::Vector<unsigned>> startStride;
  poplar::Input<poplar::Vector<int>> maxStart;
  poplar::Input<poplar::Vector<unsigned>> windowDelta;
  poplar::Input<unsigned> firstWindow;

  /// The operand position of window w's first element, or -1 when the window is skipped.
  std::int64_t windowBase(std::size_t w) const {
    const std::size_t k = startStride.size();
    std::int64_t base = 0;
    for (std::size_t c = 0; c < k; ++c) {
      const std::int64_t start = static_cast<std::int64_t>(indices[w * k + c]);
      if (start < 0 || start > maxStart[c])
        return -1;
      base += start * static_cast<std::int64_t>(startStride[c]);
    }
    return base;
  }

  /// (region, offset in it) holding operand position `pos`, or region == size() if none here.
  template <class Regions>
  std::pair<std::size_t, std::size_t> locate(const Regions &regions, std::uint64_t pos) const {
    const unsigned *first = &regionStarts[0], *last = first + regionStarts.size();
    const unsigned *it = std::upper_bound(first, last, pos);
    if (it == first)
      return {regions.size(), 0};
    const std::size_t r = static_cast<std::size_t>(it - first) - 1;
    const std::uint64_t offset = pos - regionStarts[r];
    if (offset >= regions[r].size())
      return {regions.size(), 0};
    return {r, static_cast<std::size_t>(offset)};
  }
};

template <class T, class IndexT>
class ScatterRegions : public poplar::Vertex, public WindowGeometry<IndexT> {
public:
  poplar::Vector<poplar::InOut<poplar::Vector<T>>> regions;
  poplar::Input<poplar::Vector<T>> updates;
  unsigned numWindows;

  bool compute() {
    if (this->regionStarts.size() == 0)
      return true;
    const std::size_t windowSize = this->windowDelta.size();
    for (std::size_t n = 0; n < numWindows; ++n) {
      const std::int64_t base = this->windowBase(*this->firstWindow + n);
      if (base < 0)
        continue;
      for (std::size_t j = 0; j < windowSize; ++j) {
        const auto [r, offset] = this->locate(regions, base + this->windowDelta[j]);
        if (r < regions.size())
          regions[r][offset] = updates[n * windowSize + j];
      }
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + 6 * updates.size(); }
};

template <class T, class IndexT>
class GatherRegions : public poplar::Vertex, public WindowGeometry<IndexT> {
public:
  poplar::Vector<poplar::Input<poplar::Vector<T>>> regions;
  poplar::Output<poplar::Vector<T>> out;

  bool compute() {
    for (std::size_t j = 0; j < out.size(); ++j)
      out[j] = T(0);
    if (this->regionStarts.size() == 0)
      return true;
    const std::int64_t base = this->windowBase(*this->firstWindow);
    if (base < 0)
      return true;
    for (std::size_t j = 0; j < out.size(); ++j) {
      const auto [r, offset] = this->locate(regions, base + this->windowDelta[j]);
      if (r < regions.size())
        out[j] = regions[r][offset];
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + 6 * out.size(); }
};

template <class V, class IndexT>
tessera::VertexTypeBuilder<V> &geometry(tessera::VertexTypeBuilder<V> &b) {
  return b.field("regionStarts", &V::regionStarts)
      .field("indices", &V::indices)
      .field("startStride", &V::startStride)
      .field("maxStart", &V::maxStart)
      .field("windowDelta", &V::windowDelta)
      .field("firstWindow", &V::firstWindow);
}

template <class T, class IndexT>
void registerScatter(const std::string &typeName, const std::string &indexName) {
  using S = ScatterRegions<T, IndexT>;
  tessera::VertexTypeBuilder<S> s("popops::ScatterRegions<" + typeName + "," + indexName + ">");
  geometry<S, IndexT>(s)
      .field("regions", &S::regions)
      .field("updates", &S::updates)
      .field("numWindows", &S::numWindows)
      .add();
  using G = GatherRegions<T, IndexT>;
  tessera::VertexTypeBuilder<G> g("popops::GatherRegions<" + typeName + "," + indexName + ">");
  geometry<G, IndexT>(g).field("regions", &G::regions).field("out", &G::out).add();
}

template <class T> void registerForType(const std::string &typeName) {
  registerScatter<T, int>(typeName, "int");
  registerScatter<T, unsigned>(typeName, "unsigned int");
}

} // namespace

void registerScatterVertices() {
  registerForType<float>("float");
  registerForType<poplar::half>("half");
  registerForType<int>("int");
  registerForType<unsigned>("unsigned int");
}

} // namespace tessera::codelets::popops
