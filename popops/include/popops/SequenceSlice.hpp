// Copying runs of rows between tensors at offsets read on the device (packing and unpacking
// variable-length sequences, say).
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// For each entry i of the rank-1 UNSIGNED_INT tensors tN, tInOffset and tOutOffset (all the
/// same size): tOut[tOutOffset[i] + j] = tIn[tInOffset[i] + j] for j < tN[i], slicing the
/// outermost dimension. Entries from the first tN[i] == 0 on are ignored; rows that would fall
/// outside tIn or tOut are not copied; when several entries write one row the first wins. With
/// `zeroUnused`, rows of tOut no entry writes are set to zero, otherwise they keep their values.
/// tIn and tOut have rank >= 2, the same type (FLOAT, HALF, INT or UNSIGNED_INT) and the same
/// number of elements per row. Each tile writes the tOut elements it holds (tOut must be
/// mapped). Throws poputil::poplibs_error naming the argument that does not fit.
void sequenceSlice(poplar::Graph &graph, const poplar::Tensor &tIn, const poplar::Tensor &tOut,
                   const poplar::Tensor &tN, const poplar::Tensor &tInOffset,
                   const poplar::Tensor &tOutOffset, bool zeroUnused,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace popops
