#include "RowBlocks.hpp"

#include <poputil/TileMapping.hpp>

namespace popnn::detail {

std::vector<RowBlock> rowBlocks(const poplar::Graph &graph, const poplar::Tensor &rows2d) {
  const std::vector<unsigned> home = poputil::wholeRowTiles(graph, rows2d);
  std::vector<RowBlock> blocks;
  if (rows2d.dim(1) == 0)
    return blocks;
  for (std::size_t first = 0; first < home.size();) {
    std::size_t last = first + 1;
    while (last < home.size() && home[last] == home[first])
      ++last;
    blocks.push_back({first, last, home[first]});
    first = last;
  }
  return blocks;
}

} // namespace popnn::detail
