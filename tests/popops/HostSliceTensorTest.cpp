// popops::createHostSliceableTensor and createHostTransferableTensor: rows cut into packets dealt
// evenly over the tiles, each row's index with its first packet, and the tensors working with
// remote-buffer and data-stream copies (1 and 2 host threads alike).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/HostSliceTensor.hpp>
#include <popops/codelets.hpp>
#include <poputil/exceptions.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

struct Rig {
  Device device;
  Graph graph;
  Sequence prog;
  explicit Rig(unsigned tiles = 16)
      : device([&] {
          IPUModel m;
          m.tilesPerIPU = tiles;
          return m.createDevice();
        }()),
        graph(device.getTarget()) {
    popops::addCodelets(graph);
  }
};

/// The flat element intervals of `t` on each tile, as [begin, end) pairs.
std::vector<std::vector<std::pair<std::size_t, std::size_t>>> intervalsOf(const Graph &g,
                                                                          const Tensor &t) {
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> out;
  for (const auto &tile : g.getTileMapping(t)) {
    out.emplace_back();
    for (const auto &i : tile)
      out.back().push_back({i.begin(), i.end()});
  }
  return out;
}

[[maybe_unused]] std::size_t
elementsOn(const std::vector<std::pair<std::size_t, std::size_t>> &tile) {
  std::size_t n = 0;
  for (const auto &[b, e] : tile)
    n += e - b;
  return n;
}

} // namespace

TEST(HostSliceTensor, ReadTensorRowsAreCutInto1024BytePacketsOnePerTile) {
  // 3 rows of 700 floats, packets of 256 floats: 256, 256, 188 per row — 9 packets, tiles 0-8.
  Rig r;
  auto [indices, t] = popops::createHostSliceableTensor(r.graph, FLOAT, {3, 700}, true, "hs");
  EXPECT_EQ(t.shape(), (std::vector<std::size_t>{3, 700}));
  EXPECT_EQ(t.elementType(), FLOAT);
  EXPECT_EQ(indices.shape(), (std::vector<std::size_t>{3}));
  EXPECT_EQ(indices.elementType(), UNSIGNED_INT);
  const auto tiles = intervalsOf(r.graph, t);
  std::vector<std::pair<std::size_t, std::size_t>> packets;
  for (std::size_t row = 0; row < 3; ++row)
    for (std::size_t at = 0; at < 700; at += 256)
      packets.push_back({row * 700 + at, row * 700 + std::min<std::size_t>(700, at + 256)});
  for (std::size_t tile = 0; tile < 16; ++tile) {
    if (tile < packets.size())
      EXPECT_EQ(tiles[tile], (std::vector<std::pair<std::size_t, std::size_t>>{packets[tile]}))
          << tile;
    else
      EXPECT_TRUE(tiles[tile].empty()) << tile;
  }
  // Each row's index sits with that row's first packet.
  const auto at = intervalsOf(r.graph, indices);
  for (std::size_t row = 0; row < 3; ++row)
    EXPECT_EQ(at[row * 3], (std::vector<std::pair<std::size_t, std::size_t>>{{row, row + 1}}));
}

TEST(HostSliceTensor, WrittenTensorUses256BytePacketsSpreadEvenly) {
  // HALF rows of 1000: packets of 128 halves (the last of a row 104), 8 per row, 40 over 16
  // tiles dealt in order — 3 on each of the first 8 tiles, 2 on the rest.
  Rig r;
  auto [indices, t] = popops::createHostSliceableTensor(r.graph, HALF, {5, 1000}, false);
  std::vector<unsigned> want(5000), got(5000, 99);
  std::size_t packet = 0;
  for (std::size_t row = 0; row < 5; ++row)
    for (std::size_t at = 0; at < 1000; at += 128, ++packet) {
      const unsigned tile = packet < 24 ? static_cast<unsigned>(packet / 3)
                                        : static_cast<unsigned>(8 + (packet - 24) / 2);
      for (std::size_t i = at; i < std::min<std::size_t>(1000, at + 128); ++i)
        want[row * 1000 + i] = tile;
    }
  const auto tiles = intervalsOf(r.graph, t);
  for (unsigned tile = 0; tile < tiles.size(); ++tile)
    for (const auto &[b, e] : tiles[tile])
      for (std::size_t i = b; i < e; ++i)
        got[i] = tile;
  EXPECT_EQ(got, want);
  // Row r's index on the tile of its first packet (packet 8r).
  std::vector<unsigned> indexTile(5, 99);
  const auto at = intervalsOf(r.graph, indices);
  for (unsigned tile = 0; tile < at.size(); ++tile)
    for (const auto &[b, e] : at[tile])
      for (std::size_t i = b; i < e; ++i)
        indexTile[i] = tile;
  for (std::size_t row = 0; row < 5; ++row)
    EXPECT_EQ(indexTile[row], want[row * 1000]) << row;
}

TEST(HostSliceTensor, RemoteBufferCopyWithItsIndicesGathersTheRows) {
  const std::size_t rowLength = 300, rows = 3, repeats = 6;
  std::vector<std::vector<float>> results;
  for (unsigned threads : {1u, 2u}) {
    Rig r;
    auto [indices, t] =
        popops::createHostSliceableTensor(r.graph, FLOAT, {rows, rowLength}, true, "gathered");
    RemoteBuffer buffer = r.graph.addRemoteBuffer("table", FLOAT, rowLength, repeats);
    r.graph.createHostWrite("indices", indices);
    r.graph.createHostRead("gathered", t);
    r.prog.add(Copy(buffer, t, indices));
    OptionFlags opts;
    opts.set("target.hostThreads", std::to_string(threads));
    Engine e(r.graph, r.prog, opts);
    e.load(r.device);
    for (std::size_t row = 0; row < repeats; ++row) {
      std::vector<float> data(rowLength);
      for (std::size_t i = 0; i < rowLength; ++i)
        data[i] = static_cast<float>(row * 1000 + i);
      e.copyToRemoteBuffer(data.data(), "table", row);
    }
    const std::vector<unsigned> which{5, 0, 3};
    e.writeTensor("indices", which.data(), which.data() + rows);
    e.run();
    std::vector<float> got(rows * rowLength);
    e.readTensor("gathered", got.data(), got.data() + got.size());
    for (std::size_t row = 0; row < rows; ++row)
      for (std::size_t i = 0; i < rowLength; ++i)
        ASSERT_EQ(got[row * rowLength + i], static_cast<float>(which[row] * 1000 + i));
    results.push_back(got);
  }
  EXPECT_EQ(results[0], results[1]);
}

TEST(HostSliceTensor, TransferableTensorTakesAnyShapeAndStreamsBothWays) {
  Rig r(8);
  Tensor t = popops::createHostTransferableTensor(r.graph, INT, {4, 5, 6}, true, "io");
  EXPECT_EQ(t.shape(), (std::vector<std::size_t>{4, 5, 6}));
  EXPECT_EQ(t.elementType(), INT);
  // 120 ints: one 1024-byte packet of 256 would hold them all, so they sit on tile 0.
  EXPECT_EQ(elementsOn(intervalsOf(r.graph, t)[0]), 120u);
  Tensor w = popops::createHostTransferableTensor(r.graph, INT, {4, 5, 6}, false, "w");
  // Written: packets of 64 ints, 2 packets, tiles 0 and 1.
  EXPECT_EQ(elementsOn(intervalsOf(r.graph, w)[0]), 64u);
  EXPECT_EQ(elementsOn(intervalsOf(r.graph, w)[1]), 56u);
  DataStream in = r.graph.addHostToDeviceFIFO("in", INT, 120);
  DataStream out = r.graph.addDeviceToHostFIFO("out", INT, 120);
  r.prog.add(Copy(in, t));
  r.prog.add(Copy(t, w));
  r.prog.add(Copy(w, out));
  Engine e(r.graph, r.prog);
  e.load(r.device);
  std::vector<int> src(120), dst(120, -1);
  for (int i = 0; i < 120; ++i)
    src[i] = i * 3 - 7;
  e.connectStream("in", src.data());
  e.connectStream("out", dst.data());
  e.run();
  EXPECT_EQ(dst, src);
}

TEST(HostSliceTensor, ScalarAndEmptyShapes) {
  Rig r;
  Tensor s = popops::createHostTransferableTensor(r.graph, FLOAT, {}, true);
  EXPECT_EQ(s.rank(), 0u);
  EXPECT_EQ(elementsOn(intervalsOf(r.graph, s)[0]), 1u);
  auto [indices, t] = popops::createHostSliceableTensor(r.graph, FLOAT, {2, 0}, false);
  EXPECT_EQ(t.numElements(), 0u);
  EXPECT_EQ(elementsOn(intervalsOf(r.graph, indices)[0]), 2u) << "indices of empty rows: tile 0";
}

TEST(HostSliceTensor, ShapeThatIsNotTwoDimensionalIsRefusedNamingIt) {
  Rig r;
  for (const std::vector<std::size_t> &shape :
       {std::vector<std::size_t>{2, 3, 4}, std::vector<std::size_t>{7}}) {
    try {
      popops::createHostSliceableTensor(r.graph, FLOAT, shape, true);
      ADD_FAILURE() << "a shape of rank " << shape.size() << " was accepted";
    } catch (const poputil::poplibs_error &e) {
      const std::string want = shape.size() == 3 ? "[2,3,4]" : "[7]";
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
}
