// popops::TopKRows<T>: for each row of rowSize elements, the k best (largest or smallest) values
// and their indices within the row. Ties go to the lower index; NaN counts as the largest value.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"
#include "popops/SortOrdering.hpp"

namespace tessera::codelets::popops {
namespace {

template <class T> class TopKRows : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<T>> in;
  poplar::Output<poplar::Vector<T>> values;
  poplar::Output<poplar::Vector<unsigned>> indices;
  unsigned rowSize;
  unsigned k;
  unsigned largest;
  unsigned order; ///< 0: best first (popops::SortOrder::NONE), 1: ascending, 2: descending.

  void compute(unsigned workerId) {
    if (rowSize == 0 || k == 0)
      return;
    const std::size_t rows = in.size() / rowSize;
    const std::size_t r0 = rows * workerId / numWorkers();
    const std::size_t r1 = rows * (workerId + 1) / numWorkers();
    std::vector<unsigned> idx(rowSize);
    for (std::size_t r = r0; r < r1; ++r) {
      const T *row = in.data() + r * rowSize;
      // Strict total orders (value, then index) so the selection is fully determined.
      const auto descending = [row](unsigned a, unsigned b) {
        return keyLess(row[b], row[a]) || (!keyLess(row[a], row[b]) && a < b);
      };
      const auto ascending = [row](unsigned a, unsigned b) {
        return keyLess(row[a], row[b]) || (!keyLess(row[b], row[a]) && a < b);
      };
      std::iota(idx.begin(), idx.end(), 0u);
      if (largest)
        std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), descending);
      else
        std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), ascending);
      if (order == 1)
        std::sort(idx.begin(), idx.begin() + k, ascending);
      else if (order == 2)
        std::sort(idx.begin(), idx.begin() + k, descending);
      for (std::size_t i = 0; i < k; ++i) {
        values[r * k + i] = row[idx[i]];
        indices[r * k + i] = idx[i];
      }
    }
  }
  std::uint64_t cycleEstimate() const { return 50 + 6 * in.size(); }
};

template <class T> void registerTopK(const std::string &name) {
  using V = TopKRows<T>;
  tessera::VertexTypeBuilder<V>("popops::TopKRows<" + name + ">")
      .field("in", &V::in)
      .field("values", &V::values)
      .field("indices", &V::indices)
      .field("rowSize", &V::rowSize)
      .field("k", &V::k)
      .field("largest", &V::largest)
      .field("order", &V::order)
      .add();
}

} // namespace

void registerTopKVertices() {
  registerTopK<float>("float");
  registerTopK<poplar::half>("half");
  registerTopK<int>("int");
  registerTopK<unsigned>("unsigned int");
}

} // namespace tessera::codelets::popops
