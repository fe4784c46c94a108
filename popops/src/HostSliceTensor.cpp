// popops::createHostSliceableTensor and createHostTransferableTensor: variables whose rows are
// cut into host-exchange packets dealt out evenly over the tiles.
#include <popops/HostSliceTensor.hpp>

#include <algorithm>
#include <functional>
#include <numeric>

#include <poplar/Graph.hpp>
#include <poputil/Describe.hpp>
#include <poputil/exceptions.hpp>

namespace popops {

namespace {

constexpr std::size_t kReadPacketBytes = 1024; // packet size when isRead
constexpr std::size_t kWritePacketBytes = 256; // packet size otherwise

/// One packet: elements [begin, end) of row `row` of the flattened tensor.
struct Packet {
  std::size_t row, begin, end;
};

std::vector<Packet> cutIntoPackets(std::size_t rows, std::size_t rowLength,
                                   std::size_t packetElements) {
  std::vector<Packet> packets;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t at = 0; at < rowLength; at += packetElements)
      packets.push_back(
          {r, r * rowLength + at, r * rowLength + std::min(rowLength, at + packetElements)});
  return packets;
}

} // namespace

IndicesAndTensor createHostSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                           const std::vector<size_t> &shape, const bool isRead,
                                           const poplar::DebugContext &debugContext) {
  if (shape.size() != 2)
    throw poputil::poplibs_error("popops::createHostSliceableTensor: the shape " +
                                 poputil::shapeString(shape) +
                                 " must have two dimensions (rows x row length)");
  const std::size_t rows = shape[0], rowLength = shape[1];
  poplar::Tensor tensor = graph.addVariable(type, shape, {debugContext, "HostSliceable"});
  poplar::Tensor indices =
      graph.addVariable(poplar::UNSIGNED_INT, {rows}, {debugContext, "HostSliceIndices"});
  const std::size_t elementBytes = graph.getTarget().getTypeSize(type);
  const std::size_t packetBytes = isRead ? kReadPacketBytes : kWritePacketBytes;
  const std::size_t packetElements = std::max<std::size_t>(1, packetBytes / elementBytes);
  const std::vector<Packet> packets = cutIntoPackets(rows, rowLength, packetElements);

  // Every tile gets packets / numTiles of them in order; the first (packets % numTiles) tiles
  // one more.
  const std::size_t numTiles = graph.getTarget().getNumTiles();
  const std::size_t each = packets.size() / numTiles, extra = packets.size() % numTiles;
  const poplar::Tensor flat = tensor.flatten();
  std::vector<bool> indexMapped(rows, false);
  std::size_t next = 0;
  for (std::size_t tile = 0; tile < numTiles && next < packets.size(); ++tile) {
    const std::size_t count = each + (tile < extra ? 1 : 0);
    for (std::size_t p = next; p < next + count; ++p) {
      graph.setTileMapping(flat.slice(packets[p].begin, packets[p].end), tile);
      if (!indexMapped[packets[p].row]) { // the tile that first uses row r's index holds it
        graph.setTileMapping(indices[packets[p].row], tile);
        indexMapped[packets[p].row] = true;
      }
    }
    next += count;
  }
  for (std::size_t r = 0; r < rows; ++r) // rows of no elements: their index on tile 0
    if (!indexMapped[r])
      graph.setTileMapping(indices[r], 0);
  return {indices, tensor};
}

poplar::Tensor createHostTransferableTensor(poplar::Graph &graph, const poplar::Type &type,
                                            const std::vector<size_t> &shape, bool isRead,
                                            const poplar::DebugContext &debugContext) {
  const std::size_t n =
      std::accumulate(shape.begin(), shape.end(), std::size_t(1), std::multiplies<std::size_t>());
  return createHostSliceableTensor(graph, type, {1, n}, isRead, debugContext).tensor.reshape(shape);
}

} // namespace popops
