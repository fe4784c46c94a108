// The representation behind poplar::Tensor.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include <poplar/Type.hpp>

#include "core/Region.hpp"

namespace poplar::core {

struct GraphData;

struct TensorData {
  const GraphData *graph = nullptr;
  Type type;
  std::vector<std::size_t> shape;
  RegionList regions; ///< Coalesced: consecutive entries never continue each other.
  std::size_t numElements = 0;

  TensorData() = default;
  /// Copies the view, not the cached index (the copy is usually edited before it is shared).
  TensorData(const TensorData &o)
      : graph(o.graph), type(o.type), shape(o.shape), regions(o.regions),
        numElements(o.numElements) {}
  TensorData &operator=(const TensorData &) = delete;

  /// starts[i] = tensor-order index of regions[i]; back() = element count. Computed once, on
  /// first use: a shared tensor never changes, and views of big tensors are sliced many times
  /// (once per tile), which must not rescan every region each time.
  const std::vector<std::size_t> &regionStarts() const;
  /// The size every region has, or 0 when sizes differ: then the region holding element i is
  /// i / size, with no search (a transposed view has one region per element).
  std::size_t uniformRegionSize() const {
    regionStarts();
    return uniformSize_;
  }

private:
  mutable std::once_flag startsOnce_;
  mutable std::vector<std::size_t> starts_;
  mutable std::size_t uniformSize_ = 0;
};

/// Random access to tensor-order ranges of a tensor's regions.
class RegionIndex {
public:
  explicit RegionIndex(const TensorData &t)
      : regions_(t.regions), starts_(t.regionStarts()), uniformSize_(t.uniformRegionSize()) {}
  /// Appends the regions covering tensor-order elements [begin, end) to `out`.
  void append(RegionList &out, std::size_t begin, std::size_t end) const;

private:
  const RegionList &regions_;
  const std::vector<std::size_t> &starts_;
  std::size_t uniformSize_;
};

std::size_t product(const std::vector<std::size_t> &shape);

} // namespace poplar::core
