// popops::EncodeOneHot<IndexT, OutT>: one run of a [rows][classes] one-hot matrix.
#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"

namespace tessera::codelets::popops {
namespace {

/// `out` is a run of the row-major encoded matrix starting `offset` elements into the row of
/// `indices[0]`; element k sits in row (offset + k) / numClasses, column (offset + k) %
/// numClasses and is `on` when that column is the row's index, `off` otherwise. Indices outside
/// [0, numClasses) (MASKED_LABEL_CODE among them) leave their row all `off`.
template <class IndexT, class OutT> class EncodeOneHot : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<IndexT>> indices;
  poplar::Output<poplar::Vector<OutT>> out;
  poplar::Input<OutT> on;
  poplar::Input<OutT> off;
  unsigned offset;
  unsigned numClasses;

  bool compute(unsigned workerId) {
    const std::size_t n = out.size(), workers = numWorkers();
    const std::size_t begin = n * workerId / workers, end = n * (workerId + 1) / workers;
    if (begin == end)
      return true;
    const OutT offValue = *off, onValue = *on;
    for (std::size_t k = begin; k < end; ++k)
      out[k] = offValue;
    // Rows this worker's chunk touches; the hot element of each is set when inside the chunk.
    const std::size_t firstRow = (offset + begin) / numClasses;
    const std::size_t lastRow = (offset + end - 1) / numClasses;
    for (std::size_t r = firstRow; r <= lastRow; ++r) {
      const auto index = static_cast<std::uint64_t>(static_cast<std::uint32_t>(indices[r]));
      if (index >= numClasses)
        continue;
      const std::size_t position = r * numClasses + index; // relative to the run's first row
      if (position >= offset + begin && position < offset + end)
        out[position - offset] = onValue;
    }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 20 + out.size() / 2 + 2 * indices.size(); }
};

template <class IndexT, class OutT> void registerEncodeOneHot(const std::string &name) {
  using V = EncodeOneHot<IndexT, OutT>;
  tessera::VertexTypeBuilder<V>(name)
      .field("indices", &V::indices)
      .field("out", &V::out)
      .field("on", &V::on)
      .field("off", &V::off)
      .field("offset", &V::offset)
      .field("numClasses", &V::numClasses)
      .add();
}

template <class IndexT> void registerForIndex(const std::string &indexName) {
  const std::string prefix = "popops::EncodeOneHot<" + indexName + ",";
  registerEncodeOneHot<IndexT, float>(prefix + "float>");
  registerEncodeOneHot<IndexT, poplar::half>(prefix + "half>");
  registerEncodeOneHot<IndexT, int>(prefix + "int>");
  registerEncodeOneHot<IndexT, unsigned>(prefix + "unsigned int>");
}

} // namespace

void registerEncodingVertices() {
  registerForIndex<unsigned>("unsigned int");
  registerForIndex<int>("int");
}

} // namespace tessera::codelets::popops
