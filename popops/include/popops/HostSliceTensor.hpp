// Tensors laid out for copies between the host and the device (data streams and remote buffers).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

namespace poplar {
class Graph;
}

namespace popops {

/// What createHostSliceableTensor returns: the tensor and the row indices for its copy.
struct IndicesAndTensor {
  poplar::Tensor indices; ///< UNSIGNED_INT [shape[0]]: the remote-buffer row of each row.
  poplar::Tensor tensor;  ///< The data, of the requested type and shape.
};

/// A new `shape` = {rows, rowLength} tensor of `type` spread over all tiles so that a host copy
/// lands on every tile at once, plus a new UNSIGNED_INT index tensor of `rows` elements for a
/// copy from or to a remote buffer with one row index per row (program::Copy with an offset
/// tensor; for a plain data stream rows is 1). Each row is cut into packets (1024 bytes when
/// `isRead`, so the host writes the tensor in fewer, larger pieces; else 256 bytes); packets
/// never span two rows, are dealt out in order so each tile gets an equal count (the first
/// tiles one more), and indices[i] sits on the tile holding row i's first packet. The indices
/// are not initialised: the program or the host writes them. Throws poputil::poplibs_error
/// naming the shape unless it has two dimensions.
IndicesAndTensor createHostSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                           const std::vector<size_t> &shape, const bool isRead,
                                           const poplar::DebugContext &debugContext = {});

/// A new tensor of `type` and any `shape` laid out as one row of createHostSliceableTensor
/// (its packets dealt over all tiles), for a host copy to or from a data stream.
poplar::Tensor createHostTransferableTensor(poplar::Graph &graph, const poplar::Type &type,
                                            const std::vector<size_t> &shape, bool isRead,
                                            const poplar::DebugContext &debugContext = {});

} // namespace popops
