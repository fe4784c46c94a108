#include "RowsByTile.hpp"

#include <poputil/TileMapping.hpp>

namespace popops::detail {

std::map<unsigned, std::vector<std::size_t>> rowsByTile(const poplar::Graph &graph,
                                                        const poplar::Tensor &rows2d) {
  std::map<unsigned, std::vector<std::size_t>> out;
  if (rows2d.dim(0) == 0 || rows2d.dim(1) == 0)
    return out;
  const std::vector<unsigned> tiles = poputil::wholeRowTiles(graph, rows2d);
  for (std::size_t r = 0; r < tiles.size(); ++r)
    out[tiles[r]].push_back(r);
  return out;
}

poplar::Tensor joinRows(const poplar::Tensor &rows2d, const std::vector<std::size_t> &rows) {
  std::vector<poplar::Tensor> parts;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i + 1;
    while (j < rows.size() && rows[j] == rows[j - 1] + 1)
      ++j;
    parts.push_back(rows2d.slice(rows[i], rows[j - 1] + 1, 0).flatten());
    i = j;
  }
  return poplar::concat(parts, 0);
}

} // namespace popops::detail
