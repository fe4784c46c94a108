// popops::SequenceSlice<T>: the tOut regions one tile holds, each element taken from the tIn row
// the first covering entry maps it to (entries stop at the first tN == 0), or zeroed / kept
// when no entry covers its row.
#include <algorithm>
#include <string>

#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

template <class T> class SequenceSlice : public poplar::Vertex {
public:
  poplar::Vector<poplar::InOut<poplar::Vector<T>>> regions;
  poplar::Input<poplar::Vector<unsigned>> regionStarts; // tOut element of each region's start
  poplar::Input<poplar::Vector<T>> in;                  // all of tIn, row-major
  poplar::Input<poplar::Vector<unsigned>> n;
  poplar::Input<poplar::Vector<unsigned>> inOffset;
  poplar::Input<poplar::Vector<unsigned>> outOffset;
  unsigned rowSize;
  unsigned inRows;
  bool zeroUnused;

  /// The tIn row that tOut row `r` copies, or -1 when no entry covers it.
  long long sourceRow(unsigned r) const {
    for (std::size_t i = 0; i < n.size() && n[i] != 0; ++i) {
      const unsigned long long first = outOffset[i];
      if (r >= first && r < first + n[i]) {
        const unsigned long long row = inOffset[i] + (r - first);
        return row < inRows ? static_cast<long long>(row) : -1;
      }
    }
    return -1;
  }

  bool compute() {
    for (std::size_t g = 0; g < regions.size(); ++g) {
      auto &region = regions[g];
      const std::size_t start = regionStarts[g];
      std::size_t k = 0;
      while (k < region.size()) {
        // One tOut row (or the part of it in this region) at a time.
        const std::size_t pos = start + k;
        const unsigned r = static_cast<unsigned>(pos / rowSize);
        const std::size_t c0 = pos % rowSize;
        const std::size_t count = std::min<std::size_t>(rowSize - c0, region.size() - k);
        const long long src = sourceRow(r);
        if (src >= 0) {
          const T *from = &in[static_cast<std::size_t>(src) * rowSize + c0];
          for (std::size_t c = 0; c < count; ++c)
            region[k + c] = from[c];
        } else if (zeroUnused) {
          for (std::size_t c = 0; c < count; ++c)
            region[k + c] = T(0);
        }
        k += count;
      }
    }
    return true;
  }
  std::uint64_t cycleEstimate() const {
    std::uint64_t elements = 0;
    for (std::size_t g = 0; g < regions.size(); ++g)
      elements += regions[g].size();
    return 20 + elements + 4 * n.size();
  }
};

template <class T> void registerSequenceSlice(const std::string &typeName) {
  using V = SequenceSlice<T>;
  tessera::VertexTypeBuilder<V>("popops::SequenceSlice<" + typeName + ">")
      .field("regions", &V::regions)
      .field("regionStarts", &V::regionStarts)
      .field("in", &V::in)
      .field("n", &V::n)
      .field("inOffset", &V::inOffset)
      .field("outOffset", &V::outOffset)
      .field("rowSize", &V::rowSize)
      .field("inRows", &V::inRows)
      .field("zeroUnused", &V::zeroUnused)
      .add();
}

} // namespace

void registerSequenceSliceVertices() {
  registerSequenceSlice<float>("float");
  registerSequenceSlice<poplar::half>("half");
  registerSequenceSlice<int>("int");
  registerSequenceSlice<unsigned>("unsigned int");
}

} // namespace tessera::codelets::popops
