// A circular buffer of tensors on the device: add() overwrites the oldest entry, prev(i) reads
// the entry added i adds ago, both at a position held in a device-side index.
#pragma once

#include <cstddef>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace popops {

class CircBuf {
public:
  /// A buffer of `size` entries, each a tensor of `shape` and `dataType`, laid out for dynamic
  /// slicing over the target's tiles; its index (an UNSIGNED_INT on tile 0) starts at 0. Entries
  /// not yet written hold the buffer variable's initial contents. Throws
  /// poputil::poplibs_error when `size` is 0.
  CircBuf(poplar::Graph &graph, const poplar::Type &dataType, unsigned size,
          const std::vector<std::size_t> &shape, const poplar::DebugContext &debugContext = {});

  /// A new tensor of the entry's shape that `seq` fills with the entry added `i` adds ago
  /// (prev(0) is the latest). Throws poputil::poplibs_error when `i` is not below size().
  poplar::Tensor prev(unsigned i, poplar::program::Sequence &seq,
                      const poplar::DebugContext &debugContext = {});

  /// Appends to `seq` the programs that advance the index (modulo size()) and copy `t` (of the
  /// entry's type and element count) into the entry it now points at. Throws
  /// poputil::poplibs_error naming `t` when its type or size does not fit.
  void add(poplar::Tensor t, poplar::program::Sequence &seq,
           const poplar::DebugContext &debugContext = {});

  /// The device-side index of the latest entry (a one-element UNSIGNED_INT tensor).
  poplar::Tensor getIndex() const;

  /// Number of entries.
  unsigned size() const;

  /// The tile mapping of the tensors prev() returns.
  poplar::Graph::TileToTensorMapping getTileMapping();

private:
  poplar::Graph &graph;
  unsigned size_;
  poplar::Tensor index;
  std::vector<std::size_t> shape;
  poplar::Tensor hist; // [size][elements of shape]
};

} // namespace popops
