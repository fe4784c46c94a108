#include "SliceCommon.hpp"

#include <algorithm>
#include <numeric>

#include <poputil/Describe.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

namespace popops::detail {

void checkSliceableType(const std::string &fn, const poplar::Type &type) {
  if (type != poplar::FLOAT && type != poplar::HALF && type != poplar::INT &&
      type != poplar::UNSIGNED_INT)
    throw poputil::poplibs_error(fn + ": element type " + type.toString() +
                                 " is not supported (FLOAT, HALF, INT or UNSIGNED_INT)");
}

void checkSliceableType(const std::string &fn, const poplar::Tensor &t, const std::string &what) {
  const auto type = t.elementType();
  if (type != poplar::FLOAT && type != poplar::HALF && type != poplar::INT &&
      type != poplar::UNSIGNED_INT)
    throw poputil::poplibs_error(fn + ": " + what + " " + poputil::describe(t) +
                                 " has element type " + type.toString() +
                                 "; expected FLOAT, HALF, INT or UNSIGNED_INT");
}

poplar::Tensor rowsView(const poplar::Tensor &t, unsigned dim) {
  const std::size_t rows = t.dim(dim);
  const std::size_t cols = rows == 0 ? 0 : t.numElements() / rows;
  return t.dimRoll(dim, 0).reshape({rows, cols});
}

poplar::Tensor fromRowsView(const poplar::Tensor &rows2d, std::vector<std::size_t> shape,
                            unsigned dim) {
  shape[dim] = rows2d.dim(0);
  std::vector<std::size_t> rolled{shape[dim]};
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (d != dim)
      rolled.push_back(shape[d]);
  return rows2d.reshape(rolled).dimRoll(0, dim);
}

poplar::Tensor sliceTensorFromRows(const poplar::Tensor &rows2d, std::size_t numIndices,
                                   std::size_t sliceRows, std::vector<std::size_t> baseShape,
                                   unsigned dim) {
  std::vector<std::size_t> shape{numIndices, sliceRows};
  for (std::size_t d = 0; d < baseShape.size(); ++d)
    if (d != dim)
      shape.push_back(baseShape[d]);
  return rows2d.reshape(shape).dimRoll(1, 1 + dim);
}

poplar::Tensor sliceRowsView(const poplar::Tensor &slices, unsigned dim) {
  const std::size_t numIndices = slices.dim(0), sliceRows = slices.dim(1 + dim);
  const std::size_t rows = numIndices * sliceRows;
  const std::size_t cols = rows == 0 ? 0 : slices.numElements() / rows;
  return slices.dimRoll(1 + dim, 1).reshape({rows, cols});
}

std::vector<ColumnGroup> columnGroupsOf(const poplar::Graph &graph, const poplar::Tensor &t2d) {
  std::vector<ColumnGroup> groups;
  if (t2d.dim(0) == 0 || t2d.dim(1) == 0)
    return groups;
  const auto mapping = graph.getTileMapping(t2d[0]);
  for (unsigned tile = 0; tile < mapping.size(); ++tile)
    for (const auto &iv : mapping[tile])
      groups.push_back({tile, iv.begin(), iv.end()});
  std::sort(groups.begin(), groups.end(),
            [](const ColumnGroup &a, const ColumnGroup &b) { return a.begin < b.begin; });
  return groups;
}

std::vector<ColumnGroup> evenColumnGroups(std::size_t numColumns, std::size_t grain,
                                          unsigned maxGroups, unsigned firstTile,
                                          unsigned numTiles) {
  std::vector<ColumnGroup> groups;
  if (numColumns == 0)
    return groups;
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t grains = (numColumns + grain - 1) / grain;
  const std::size_t n = std::max<std::size_t>(1, std::min<std::size_t>(grains, maxGroups));
  for (std::size_t g = 0; g < n; ++g) {
    const std::size_t b = std::min(numColumns, grains * g / n * grain);
    const std::size_t e = std::min(numColumns, grains * (g + 1) / n * grain);
    const unsigned tile = firstTile + static_cast<unsigned>(g);
    if (e > b)
      groups.push_back({numTiles ? tile % numTiles : tile, b, e});
  }
  return groups;
}

poplar::Tensor createColumnGrouped(poplar::Graph &graph, const poplar::Type &type, std::size_t rows,
                                   const std::vector<ColumnGroup> &groups,
                                   const poplar::DebugContext &debugContext) {
  std::vector<poplar::Tensor> parts;
  for (const auto &g : groups) {
    poplar::Tensor part = graph.addVariable(type, {rows, g.end - g.begin}, debugContext);
    graph.setTileMapping(part, g.tile);
    parts.push_back(part);
  }
  if (parts.empty()) {
    poplar::Tensor empty = graph.addVariable(type, {rows, 0}, debugContext);
    return empty;
  }
  return poplar::concat(parts, 1);
}

void addRowVertices(poplar::Graph &graph, poplar::ComputeSet cs, RowOp op,
                    const poplar::Tensor &base2d, const poplar::Tensor &sub2d,
                    const poplar::Tensor &offsets, std::size_t sliceRows, unsigned indexMode,
                    const poplar::Tensor *scale) {
  const char *name = op == RowOp::Slice       ? "popops::MultiSlice"
                     : op == RowOp::Update    ? "popops::MultiUpdate"
                     : op == RowOp::UpdateAdd ? "popops::MultiUpdateAdd"
                     : op == RowOp::UpdateMax ? "popops::MultiUpdateMax"
                                              : "popops::MultiUpdateMul";
  // A HALF table with a FLOAT scale has its own vertex (the scale kept at float precision).
  const std::string vertexType =
      scale && scale->elementType() != base2d.elementType()
          ? poputil::templateVertex(name, base2d.elementType(), scale->elementType())
          : poputil::templateVertex(name, base2d.elementType());
  const poplar::Tensor flatOffsets = offsets.flatten();
  for (const auto &g : columnGroupsOf(graph, base2d)) {
    auto v = graph.addVertex(cs, vertexType,
                             {{"offsets", flatOffsets},
                              {"baseT", base2d.slice(g.begin, g.end, 1).flatten()},
                              {"subT", sub2d.slice(g.begin, g.end, 1).flatten()}});
    if (scale)
      graph.connect(v["scale"], scale->reshape(std::vector<std::size_t>{}));
    graph.setInitialValue(v["numBaseRows"], static_cast<unsigned>(base2d.dim(0)));
    graph.setInitialValue(v["rowSize"], static_cast<unsigned>(g.end - g.begin));
    graph.setInitialValue(v["sliceRows"], static_cast<unsigned>(sliceRows));
    graph.setInitialValue(v["indexMode"], indexMode);
    graph.setTileMapping(v, g.tile);
  }
}

} // namespace popops::detail
