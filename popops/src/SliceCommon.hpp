// Shared machinery of the slicing functions: argument checks with messages that name the
// tensor, the [rows][columns] view of a tensor, column groups per tile, and the row vertices.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>

#include "popops/SliceRows.hpp"

namespace popops::detail {

using tessera::codelets::popops::kIndexPadding;
using tessera::codelets::popops::kIndexRemap;
using tessera::codelets::popops::kIndexValidate;
using tessera::codelets::popops::kIndexWrap;

/// Throws poplibs_error "<fn>: <what> <tensor> has unsupported element type …" unless the
/// type is FLOAT, HALF, INT or UNSIGNED_INT.
void checkSliceableType(const std::string &fn, const poplar::Tensor &t, const std::string &what);
void checkSliceableType(const std::string &fn, const poplar::Type &type);

/// `t` viewed as [t.dim(dim)][all other elements, in order].
poplar::Tensor rowsView(const poplar::Tensor &t, unsigned dim);
/// Inverse of rowsView for a [rows][columns] tensor: `shape` with dims[dim] = rows.
poplar::Tensor fromRowsView(const poplar::Tensor &rows2d, std::vector<std::size_t> shape,
                            unsigned dim);

/// Inverse of the [numIndices * sliceRows][columns] view multiSlice works on: the slices as
/// [numIndices][baseShape with baseShape[dim] = sliceRows].
poplar::Tensor sliceTensorFromRows(const poplar::Tensor &rows2d, std::size_t numIndices,
                                   std::size_t sliceRows, std::vector<std::size_t> baseShape,
                                   unsigned dim);
/// The [numIndices * sliceRows][columns] view of slices shaped as sliceTensorFromRows returns.
poplar::Tensor sliceRowsView(const poplar::Tensor &slices, unsigned dim);

/// A run of columns of a [rows][columns] tensor held on one tile.
struct ColumnGroup {
  unsigned tile;
  std::size_t begin, end;
};

/// The column runs of `t2d` by the tile holding them in row 0, in column order.
std::vector<ColumnGroup> columnGroupsOf(const poplar::Graph &graph, const poplar::Tensor &t2d);
/// `numColumns` split into at most `maxGroups` groups of at least `grain` columns, on tiles
/// firstTile, firstTile + 1, … (modulo numTiles when given) in order.
std::vector<ColumnGroup> evenColumnGroups(std::size_t numColumns, std::size_t grain,
                                          unsigned maxGroups, unsigned firstTile = 0,
                                          unsigned numTiles = 0);

/// A new [rows][columns] tensor with each group's columns (all rows) one contiguous block on
/// its tile.
poplar::Tensor createColumnGrouped(poplar::Graph &graph, const poplar::Type &type, std::size_t rows,
                                   const std::vector<ColumnGroup> &groups,
                                   const poplar::DebugContext &debugContext);

enum class RowOp { Slice, Update, UpdateAdd, UpdateMax, UpdateMul };

/// Adds to `cs` one vertex per column group of `base2d` moving rows between base2d
/// [N][R] and sub2d [offsets.numElements() * sliceRows][R]. `indexMode`: kIndex* bits.
/// `scale` only for UpdateAdd.
void addRowVertices(poplar::Graph &graph, poplar::ComputeSet cs, RowOp op,
                    const poplar::Tensor &base2d, const poplar::Tensor &sub2d,
                    const poplar::Tensor &offsets, std::size_t sliceRows, unsigned indexMode,
                    const poplar::Tensor *scale);

} // namespace popops::detail
