#include "RowsByTile.hpp"

#include <algorithm>

namespace popops::detail {

std::map<unsigned, std::vector<std::size_t>> rowsByTile(const poplar::Graph &graph,
                                                        const poplar::Tensor &rows2d) {
  std::map<unsigned, std::vector<std::size_t>> out;
  if (rows2d.dim(0) == 0 || rows2d.dim(1) == 0)
    return out;
  const auto mapping = graph.getTileMapping(rows2d.slice(0, 1, 1));
  for (unsigned tile = 0; tile < mapping.size(); ++tile)
    for (const auto &iv : mapping[tile])
      for (std::size_t r = iv.begin(); r < iv.end(); ++r)
        out[tile].push_back(r);
  for (auto &[tile, rows] : out)
    std::sort(rows.begin(), rows.end());
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
