// popops::MultiSlice<T>, MultiUpdate<T>, MultiUpdateAdd<T>, MultiUpdateMax<T>,
// MultiUpdateMul<T>: row copies (or row-wise combines) between a base region
// [numBaseRows][rowSize] and a slice region [offsets.size() * sliceRows][rowSize], with the
// offsets read on the device. The library splits a base by columns over tiles, so each vertex
// sees whole rows of its own columns.
#include <algorithm>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>

#include <poplar/Half.hpp>
#include <poplar/Vertex.hpp>

#include "popops/PopopsCodelets.hpp"
#include "popops/SliceRows.hpp"
#include "popops/kernels/SliceKernels.hpp"

namespace tessera::codelets::popops {
namespace {

/// Taken once, when the types register.
ScaledAccumulateFloatFn gScaledAccumulateFloat = nullptr;

std::size_t share(std::size_t n, unsigned worker, unsigned workers) { return n * worker / workers; }

constexpr const char *kOffsetOutOfRange =
    "an offset (index) is outside the sliced dimension (checked under debug.runtimeVerify or "
    "the validateIndices option; without them the slice reads zeros and the update is "
    "skipped)";

/// The state every slice vertex shares: which rows the offsets select, and how they are checked.
class SliceRowsVertex : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<unsigned>> offsets;
  unsigned numBaseRows;
  unsigned rowSize;
  unsigned sliceRows;
  unsigned indexMode; ///< kIndex* bits (SliceRows.hpp).

  /// Under debug.runtimeVerify or kIndexValidate: false unless every slice of every offset lies
  /// inside the base (or wraps, or is remapped, or is the padding index). Otherwise always true
  /// (out-of-range slices have a defined meaning).
  bool offsetsAcceptable() const {
    if (!(indexMode & kIndexValidate) && !poplar::detail::runtimeVerify())
      return true;
    for (unsigned o : offsets) {
      if (isPaddingIndex(o, numBaseRows, indexMode))
        continue;
      for (unsigned j = 0; j < sliceRows; ++j)
        if (!baseRowOf(o, j, sliceRows, numBaseRows, indexMode))
          return false;
    }
    return true;
  }
  std::optional<std::size_t> baseRow(std::size_t o, std::size_t j) const {
    return baseRowOf(offsets[o], j, sliceRows, numBaseRows, indexMode);
  }
  /// The columns [first, second) of every row that worker `workerId` owns.
  std::pair<std::size_t, std::size_t> workerColumns(unsigned workerId) const {
    return {share(rowSize, workerId, numWorkers()), share(rowSize, workerId + 1, numWorkers())};
  }
  const char *failureReason() const { return kOffsetOutOfRange; }
};

/// Slices: worker w fills the slices of offsets [share(w), share(w+1)); out of range gives zeros.
template <class T> class MultiSlice : public SliceRowsVertex {
public:
  poplar::Input<poplar::Vector<T>> baseT;
  poplar::Output<poplar::Vector<T>> subT;

  bool compute(unsigned workerId) {
    if (!offsetsAcceptable())
      return false;
    const unsigned workers = numWorkers();
    const std::size_t begin = share(offsets.size(), workerId, workers);
    const std::size_t end = share(offsets.size(), workerId + 1, workers);
    for (std::size_t o = begin; o < end; ++o)
      for (std::size_t j = 0; j < sliceRows; ++j) {
        T *dst = subT.data() + (o * sliceRows + j) * rowSize;
        if (const auto row = baseRow(o, j))
          std::memcpy(dst, baseT.data() + *row * rowSize, rowSize * sizeof(T));
        else
          for (std::size_t c = 0; c < rowSize; ++c)
            dst[c] = T(0);
      }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30 + subT.size() / 2; }
};

/// Updates: worker w owns columns [share(w), share(w+1)) and applies the offsets in order, so a
/// repeated offset ends with its last slice. Out-of-range slices are ignored.
template <class T> class MultiUpdate : public SliceRowsVertex {
public:
  poplar::InOut<poplar::Vector<T>> baseT;
  poplar::Input<poplar::Vector<T>> subT;

  bool compute(unsigned workerId) {
    if (!offsetsAcceptable())
      return false;
    const auto [c0, c1] = workerColumns(workerId);
    for (std::size_t o = 0; c1 > c0 && o < offsets.size(); ++o)
      for (std::size_t j = 0; j < sliceRows; ++j)
        if (const auto row = baseRow(o, j))
          std::memcpy(baseT.data() + *row * rowSize + c0,
                      subT.data() + (o * sliceRows + j) * rowSize + c0, (c1 - c0) * sizeof(T));
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30 + subT.size() / 2; }
};

/// base[row] += scale * slice, offsets applied in order (so repeated offsets accumulate in a
/// fixed order); worker w owns a fixed column range. Out-of-range slices are ignored. The scale
/// has the table's type, or is FLOAT for a HALF table (S = float: used at full precision, the
/// multiply-add in float and rounded once to HALF).
template <class T, class S = T> class MultiUpdateAdd : public SliceRowsVertex {
public:
  poplar::InOut<poplar::Vector<T>> baseT;
  poplar::Input<poplar::Vector<T>> subT;
  poplar::Input<S> scale;

  bool compute(unsigned workerId) {
    if (!offsetsAcceptable())
      return false;
    const auto [c0, c1] = workerColumns(workerId);
    for (std::size_t o = 0; c1 > c0 && o < offsets.size(); ++o)
      for (std::size_t j = 0; j < sliceRows; ++j) {
        const auto row = baseRow(o, j);
        if (!row)
          continue;
        T *acc = baseT.data() + *row * rowSize;
        const T *x = subT.data() + (o * sliceRows + j) * rowSize;
        if constexpr (std::is_same_v<T, float>) {
          gScaledAccumulateFloat(acc + c0, x + c0, c1 - c0, *scale);
        } else if constexpr (std::is_same_v<T, poplar::half>) {
          const float s = float(*scale);
          for (std::size_t c = c0; c < c1; ++c)
            acc[c] = poplar::half(float(acc[c]) + s * float(x[c]));
        } else {
          for (std::size_t c = c0; c < c1; ++c)
            acc[c] = T(acc[c] + *scale * x[c]);
        }
      }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30 + subT.size(); }
};

/// base[row] = combine(base[row], slice) element by element, offsets applied in order; worker w
/// owns a fixed column range. Out-of-range slices are ignored. HALF combines in float and
/// rounds once.
template <class T, class Combine> class MultiUpdateCombine : public SliceRowsVertex {
public:
  poplar::InOut<poplar::Vector<T>> baseT;
  poplar::Input<poplar::Vector<T>> subT;

  bool compute(unsigned workerId) {
    if (!offsetsAcceptable())
      return false;
    const auto [c0, c1] = workerColumns(workerId);
    for (std::size_t o = 0; c1 > c0 && o < offsets.size(); ++o)
      for (std::size_t j = 0; j < sliceRows; ++j) {
        const auto row = baseRow(o, j);
        if (!row)
          continue;
        T *acc = baseT.data() + *row * rowSize;
        const T *x = subT.data() + (o * sliceRows + j) * rowSize;
        for (std::size_t c = c0; c < c1; ++c) {
          if constexpr (std::is_same_v<T, poplar::half>)
            acc[c] = poplar::half(Combine{}(float(acc[c]), float(x[c])));
          else
            acc[c] = T(Combine{}(acc[c], x[c]));
        }
      }
    return true;
  }
  std::uint64_t cycleEstimate() const { return 30 + subT.size(); }
};

/// max(a, b) with a NaN in either giving NaN (so a NaN update is never lost).
struct MaxOf {
  template <class V> V operator()(V a, V b) const {
    if constexpr (std::is_floating_point_v<V>)
      if (a != a || b != b)
        return a + b;
    return std::max(a, b);
  }
};
struct ProductOf {
  template <class V> V operator()(V a, V b) const { return V(a * b); }
};
template <class T> using MultiUpdateMax = MultiUpdateCombine<T, MaxOf>;
template <class T> using MultiUpdateMul = MultiUpdateCombine<T, ProductOf>;

/// Registers the fields every slice vertex shares.
template <class V> tessera::VertexTypeBuilder<V> sliceVertexType(const std::string &name) {
  tessera::VertexTypeBuilder<V> b(name);
  b.field("offsets", &SliceRowsVertex::offsets)
      .field("numBaseRows", &SliceRowsVertex::numBaseRows)
      .field("rowSize", &SliceRowsVertex::rowSize)
      .field("sliceRows", &SliceRowsVertex::sliceRows)
      .field("indexMode", &SliceRowsVertex::indexMode);
  return b;
}

template <class T> void registerSliceFamily(const std::string &typeName) {
  sliceVertexType<MultiSlice<T>>("popops::MultiSlice<" + typeName + ">")
      .field("baseT", &MultiSlice<T>::baseT)
      .field("subT", &MultiSlice<T>::subT)
      .add();
  sliceVertexType<MultiUpdate<T>>("popops::MultiUpdate<" + typeName + ">")
      .field("baseT", &MultiUpdate<T>::baseT)
      .field("subT", &MultiUpdate<T>::subT)
      .add();
  sliceVertexType<MultiUpdateAdd<T>>("popops::MultiUpdateAdd<" + typeName + ">")
      .field("baseT", &MultiUpdateAdd<T>::baseT)
      .field("subT", &MultiUpdateAdd<T>::subT)
      .field("scale", &MultiUpdateAdd<T>::scale)
      .add();
  if constexpr (std::is_same_v<T, poplar::half>)
    sliceVertexType<MultiUpdateAdd<T, float>>("popops::MultiUpdateAdd<half,float>")
        .field("baseT", &MultiUpdateAdd<T, float>::baseT)
        .field("subT", &MultiUpdateAdd<T, float>::subT)
        .field("scale", &MultiUpdateAdd<T, float>::scale)
        .add();
  sliceVertexType<MultiUpdateMax<T>>("popops::MultiUpdateMax<" + typeName + ">")
      .field("baseT", &MultiUpdateMax<T>::baseT)
      .field("subT", &MultiUpdateMax<T>::subT)
      .add();
  sliceVertexType<MultiUpdateMul<T>>("popops::MultiUpdateMul<" + typeName + ">")
      .field("baseT", &MultiUpdateMul<T>::baseT)
      .field("subT", &MultiUpdateMul<T>::subT)
      .add();
}

} // namespace

void registerSliceVertices() {
  gScaledAccumulateFloat = scaledAccumulateFloatKernel();
  registerSliceFamily<float>("float");
  registerSliceFamily<poplar::half>("half");
  registerSliceFamily<int>("int");
  registerSliceFamily<unsigned>("unsigned int");
}

} // namespace tessera::codelets::popops
