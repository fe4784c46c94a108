// popops::SortRows<T> and popops::SortKeyValueRows<K,V>: stable ascending sorts of each row of
// rowSize elements; worker w sorts a fixed range of rows, so results never depend on threads.
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

template <class T> class SortRows : public poplar::MultiVertex {
public:
  poplar::InOut<poplar::Vector<T>> data;
  unsigned rowSize;

  void compute(unsigned workerId) {
    if (rowSize == 0)
      return;
    const std::size_t rows = data.size() / rowSize;
    const std::size_t r0 = rows * workerId / numWorkers();
    const std::size_t r1 = rows * (workerId + 1) / numWorkers();
    for (std::size_t r = r0; r < r1; ++r)
      std::stable_sort(data.data() + r * rowSize, data.data() + (r + 1) * rowSize, keyLess<T>);
  }
  std::uint64_t cycleEstimate() const { return 50 + 8 * data.size(); }
};

template <class K, class V> class SortKeyValueRows : public poplar::MultiVertex {
public:
  poplar::InOut<poplar::Vector<K>> keys;
  poplar::InOut<poplar::Vector<V>> values;
  unsigned rowSize;

  void compute(unsigned workerId) {
    if (rowSize == 0)
      return;
    const std::size_t rows = keys.size() / rowSize;
    const std::size_t r0 = rows * workerId / numWorkers();
    const std::size_t r1 = rows * (workerId + 1) / numWorkers();
    std::vector<unsigned> order(rowSize);
    std::vector<K> k(rowSize);
    std::vector<V> v(rowSize);
    for (std::size_t r = r0; r < r1; ++r) {
      K *kr = keys.data() + r * rowSize;
      V *vr = values.data() + r * rowSize;
      std::iota(order.begin(), order.end(), 0u);
      std::stable_sort(order.begin(), order.end(),
                       [kr](unsigned a, unsigned b) { return keyLess(kr[a], kr[b]); });
      for (std::size_t i = 0; i < rowSize; ++i) {
        k[i] = kr[order[i]];
        v[i] = vr[order[i]];
      }
      std::copy(k.begin(), k.end(), kr);
      std::copy(v.begin(), v.end(), vr);
    }
  }
  std::uint64_t cycleEstimate() const { return 50 + 12 * keys.size(); }
};

template <class T> void registerSort(const std::string &name) {
  tessera::VertexTypeBuilder<SortRows<T>>("popops::SortRows<" + name + ">")
      .field("data", &SortRows<T>::data)
      .field("rowSize", &SortRows<T>::rowSize)
      .add();
}

template <class K, class V> void registerSortKeyValue(const std::string &k, const std::string &v) {
  using Vx = SortKeyValueRows<K, V>;
  tessera::VertexTypeBuilder<Vx>("popops::SortKeyValueRows<" + k + "," + v + ">")
      .field("keys", &Vx::keys)
      .field("values", &Vx::values)
      .field("rowSize", &Vx::rowSize)
      .add();
}

template <class K> void registerSortKeyValueForKey(const std::string &k) {
  registerSortKeyValue<K, float>(k, "float");
  registerSortKeyValue<K, poplar::half>(k, "half");
  registerSortKeyValue<K, int>(k, "int");
  registerSortKeyValue<K, unsigned>(k, "unsigned int");
}

} // namespace

void registerSortVertices() {
  registerSort<float>("float");
  registerSort<poplar::half>("half");
  registerSort<int>("int");
  registerSort<unsigned>("unsigned int");
  registerSortKeyValueForKey<float>("float");
  registerSortKeyValueForKey<poplar::half>("half");
  registerSortKeyValueForKey<int>("int");
  registerSortKeyValueForKey<unsigned>("unsigned int");
}

} // namespace tessera::codelets::popops
