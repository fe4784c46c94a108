// Tensors: shaped views over the elements of graph variables.
#pragma once

// <cassert>, <functional>, <numeric> and <unordered_set> as Poplar's headers bring them in:
// programs written for Poplar use `assert`, std::function, std::accumulate and
// std::unordered_set after including only this header.
#include <cassert>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <numeric>
#include <string>
#include <unordered_set>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Type.hpp>

namespace poplar {

namespace core {
struct TensorData;
}

/// Identifies one variable of a graph.
struct VariableRef {
  unsigned id = ~0u;
  friend bool operator==(VariableRef a, VariableRef b) { return a.id == b.id; }
  friend bool operator!=(VariableRef a, VariableRef b) { return a.id != b.id; }
  friend bool operator<(VariableRef a, VariableRef b) { return a.id < b.id; }
  /// The hash `std::hash<VariableRef>` gives, so variables can key unordered containers.
  std::size_t hash() const { return std::hash<unsigned>()(id); }
};

/// A contiguous run of a variable's elements.
struct VariableInterval {
  VariableRef var;
  Interval interval;
  friend bool operator==(const VariableInterval &a, const VariableInterval &b) {
    return a.var == b.var && a.interval == b.interval;
  }
};

enum class UpsampleMethod { REPEAT };

/// A tensor is a view: a shape laid over an ordered list of runs of variable elements, taken
/// in row-major order. Slicing, reshaping, shuffling, broadcasting and concatenating build new
/// views and never copy data. A default-constructed Tensor is invalid (`valid()` is false).
///
/// Errors: indices and dimensions out of range throw `index_error`; shape mismatches throw
/// `shape_error`; each message prints the tensor's shape and the bad argument.
class Tensor {
public:
  Tensor();
  ~Tensor();
  Tensor(const Tensor &);
  Tensor(Tensor &&) noexcept;
  Tensor &operator=(const Tensor &);
  Tensor &operator=(Tensor &&) noexcept;

  bool valid() const;
  Type elementType() const;
  const std::vector<std::size_t> &shape() const;
  unsigned rank() const;
  std::size_t dim(unsigned i) const;
  std::size_t numElements() const;

  /// Index into the outermost dimension, dropping it.
  Tensor operator[](std::size_t i) const;
  /// The element (a rank-0 tensor) or sub-tensor at `indices`.
  Tensor index(ArrayRef<std::size_t> indices) const;
  /// Elements [begin, end) of dimension `dim`; the rank is kept.
  Tensor slice(std::size_t begin, std::size_t end, unsigned dim = 0) const;
  Tensor slice(const Interval &region, unsigned dim = 0) const;
  /// A box: [begin[d], end[d]) in every dimension.
  Tensor slice(ArrayRef<std::size_t> begin, ArrayRef<std::size_t> end) const;
  std::vector<Tensor> slices(ArrayRef<Interval> intervals, unsigned dim = 0) const;
  std::vector<Tensor> slices(const std::vector<std::vector<Interval>> &intervals,
                             unsigned dim = 0) const;

  Tensor reshape(ArrayRef<std::size_t> shape) const;
  /// Replaces dimensions [begin, end) by `newDims` (same element count).
  Tensor reshapePartial(unsigned begin, unsigned end, ArrayRef<std::size_t> newDims) const;
  Tensor flatten() const;
  /// Merges dimensions [begin, end) into one.
  Tensor flatten(unsigned begin, unsigned end) const;
  /// Result dimension i is source dimension permutation[i].
  Tensor dimShuffle(ArrayRef<unsigned> permutation) const;
  Tensor dimShufflePartial(ArrayRef<unsigned> source, ArrayRef<unsigned> destination) const;
  /// Moves dimension `dimIdx` to position `newIdx`.
  Tensor dimRoll(unsigned dimIdx, unsigned newIdx = 0) const;
  /// Swaps the two dimensions of a rank-2 tensor.
  Tensor transpose() const;
  /// Inserts a size-1 dimension before each of `indices` (positions in the result).
  Tensor expand(ArrayRef<std::size_t> indices) const;
  /// Removes the size-1 dimensions `indices`.
  Tensor squeeze(ArrayRef<std::size_t> indices) const;
  /// Repeats the whole of dimension `dim` N times (dimension size becomes N × size).
  Tensor broadcast(unsigned N, unsigned dim) const;
  Tensor reverse(unsigned dim) const;
  /// Every `stride`-th element of dimension `dim`, starting at 0.
  Tensor subSample(unsigned stride, unsigned dim) const;
  /// Repeats each element of dimension `dim` `scale` times.
  Tensor upsample(unsigned scale, unsigned dim,
                  UpsampleMethod method = UpsampleMethod::REPEAT) const;
  /// The same bytes seen as another type of the same size.
  Tensor reinterpret(const Type &type) const;
  /// A QUARTER tensor's metadata: the QUARTER_METADATA scalar its variable was created with
  /// (views of the tensor share it). An invalid Tensor for tensors without metadata.
  Tensor getMetadata() const;
  /// True for QUARTER tensors, which carry metadata.
  bool hasMetadata() const;

  /// The runs of variable elements this tensor covers, in tensor order.
  std::vector<VariableInterval> getVarRegions() const;
  /// Intervals of tensor-order indices that are contiguous in one variable.
  std::vector<Interval> getContiguousRegions() const;
  /// True when the whole tensor is one run of one variable.
  bool isContiguous() const;
  /// True when some variable element appears more than once.
  bool containsAliases() const;
  /// True when some element belongs to a constant.
  bool containsConstant() const;
  /// True when this and `other` share any variable element.
  bool intersectsWith(const Tensor &other) const;
  /// "float[3,4]".
  std::string shortString() const;
  /// The shape alone, as Poplar prints it: "{3,4}" ("{}" for a scalar).
  std::string shapeToString() const;
  /// What the tensor is made of, for debugging: its type and shape, then each run of variable
  /// elements it covers with the variable's debug name, e.g.
  /// "float{2,3} = 'w'[0, 4) 'b'[2, 4)".
  std::string getDebugStr() const;

  /// Same elements in the same order with the same shape.
  bool operator==(const Tensor &o) const;
  bool operator!=(const Tensor &o) const { return !(*this == o); }

  // Tessera internals: the implementation shares this representation with the graph.
  explicit Tensor(std::shared_ptr<const core::TensorData> data);
  const core::TensorData &data() const;

private:
  std::shared_ptr<const core::TensorData> data_;
};

/// Joins tensors along `dim`; every other dimension must agree.
Tensor concat(ArrayRef<Tensor> tensors, unsigned dim = 0);
Tensor concat(const Tensor &first, const Tensor &second, unsigned dim = 0);
/// Appends `b` as one more slice of dimension `dim` of `a` (b has a's rank minus one).
Tensor append(const Tensor &a, const Tensor &b, unsigned dim = 0);

std::ostream &operator<<(std::ostream &os, const Tensor &t);

} // namespace poplar

template <> struct std::hash<poplar::VariableRef> {
  std::size_t operator()(const poplar::VariableRef &v) const noexcept { return v.hash(); }
};
