// popops::fill / zero against a host reference, on one and many tiles and on views.
#include <gtest/gtest.h>

#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/Fill.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include "popops/kernels/FillKernels.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {
Device device(unsigned tiles) {
  IPUModel m;
  m.tilesPerIPU = tiles;
  return m.createDevice();
}
} // namespace

TEST(FillKernel, MatchesReferenceForOddSizes) {
  auto kernel = tessera::codelets::popops::fillFloatKernel();
  for (std::size_t n : {0u, 1u, 3u, 7u, 8u, 15u, 16u, 17u, 33u, 1000u}) {
    std::vector<float> got(n + 2, -1.0f), want(n + 2, -1.0f);
    kernel(got.data() + 1, n, 2.5f);
    tessera::codelets::popops::fillFloatReference(want.data() + 1, n, 2.5f);
    EXPECT_EQ(got, want) << "n = " << n;
  }
}

TEST(Fill, FillsEveryElementOfATensorSpreadOverTiles) {
  Device d = device(16);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor t = graph.addVariable(FLOAT, {37, 11}, "t");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  graph.createHostRead("t", t);
  Sequence prog;
  popops::fill(graph, t, prog, 3.25f);
  Engine engine(graph, prog);
  engine.load(d);
  engine.run();
  std::vector<float> host(t.numElements(), 0.0f);
  engine.readTensor("t", host.data(), host.data() + host.size());
  EXPECT_EQ(host, std::vector<float>(t.numElements(), 3.25f));
}

TEST(Fill, FillingATransposedSliceLeavesTheRestAlone) {
  Device d = device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor t = graph.addVariable(INT, {6, 5}, "t");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  graph.createHostWrite("t", t);
  graph.createHostRead("t", t);
  Sequence prog;
  popops::fill(graph, t.transpose().slice(1, 3, 0), prog, 7); // columns 1 and 2
  Engine engine(graph, prog);
  engine.load(d);
  std::vector<int> host(30);
  for (int i = 0; i < 30; ++i)
    host[i] = -i;
  engine.writeTensor("t", host.data(), host.data() + 30);
  engine.run();
  std::vector<int> got(30);
  engine.readTensor("t", got.data(), got.data() + 30);
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 5; ++c)
      EXPECT_EQ(got[r * 5 + c], (c == 1 || c == 2) ? 7 : -(r * 5 + c)) << r << "," << c;
}

TEST(Zero, ZeroesUnsignedTensorInOneComputeSet) {
  Device d = device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor t = graph.addVariable(UNSIGNED_INT, {100}, "u");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  graph.setInitialValue<unsigned>(t, 9u);
  graph.createHostRead("u", t);
  Sequence prog;
  popops::zero(graph, t, prog, "clear");
  Engine engine(graph, prog);
  engine.load(d);
  engine.run();
  std::vector<unsigned> got(100, 1);
  engine.readTensor("u", got.data(), got.data() + 100);
  EXPECT_EQ(got, std::vector<unsigned>(100, 0u));
}

TEST(Fill, UnmappedTensorIsRejectedByName) {
  Device d = device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor t = graph.addVariable(FLOAT, {8}, "unmappedThing");
  Sequence prog;
  try {
    popops::fill(graph, t, prog, 1.0f);
    FAIL() << "expected invalid_tile_mapping";
  } catch (const invalid_tile_mapping &e) {
    EXPECT_NE(std::string(e.what()).find("unmappedThing"), std::string::npos) << e.what();
  }
}

TEST(Fill, HalfTensorsHoldTheRoundedValue) {
  Device d = device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor t = graph.addVariable(HALF, {21}, "h");
  poputil::mapTensorLinearly(graph, t, 1, 1);
  graph.createHostRead("h", t);
  Sequence prog;
  popops::fill(graph, t, prog, 0.1f); // not exact in half: rounds to 0x2E66
  Engine engine(graph, prog);
  engine.load(d);
  engine.run();
  std::vector<std::uint16_t> bits(21);
  engine.readTensor("h", bits.data(), bits.data() + 21);
  EXPECT_EQ(bits, std::vector<std::uint16_t>(21, floatToHalfBits(0.1f)));
  EXPECT_EQ(floatToHalfBits(0.1f), 0x2E66);
}

TEST(Fill, ATableMappedElementByElementTakesFewVertices) {
  // Column c of a [2500][4] table on tile c: 2500 one-element regions per tile. Fill2d vertices
  // take up to 1024 regions each, so 3 per tile, not 2500; every element is filled, and the
  // HALF variant rounds as a Fill would.
  Device d = device(4);
  Graph graph(d.getTarget());
  popops::addCodelets(graph);
  Tensor t = graph.addVariable(FLOAT, {2500, 4}, "t");
  Tensor h = graph.addVariable(HALF, {2500, 4}, "h");
  for (unsigned c = 0; c < 4; ++c) {
    graph.setTileMapping(t.slice(c, c + 1, 1), c);
    graph.setTileMapping(h.slice(c, c + 1, 1), c);
  }
  graph.createHostRead("t", t);
  graph.createHostRead("h", h);
  Sequence prog;
  popops::fill(graph, t, prog, -1.5f);
  popops::fill(graph, h, prog, 0.1f);
  Engine engine(graph, prog);
  engine.load(d);
  engine.run();
  std::vector<float> host(t.numElements(), 0.0f);
  engine.readTensor("t", host.data(), host.data() + host.size());
  EXPECT_EQ(host, std::vector<float>(t.numElements(), -1.5f));
  std::vector<poplar::half> halves(h.numElements());
  engine.readTensor("h", halves.data(), halves.data() + halves.size());
  for (const auto &x : halves)
    ASSERT_EQ(static_cast<float>(x), static_cast<float>(poplar::half(0.1f)));
  std::size_t vertices = 0;
  for (const auto &cs : engine.getGraphProfile().computeSets)
    vertices += cs.vertices;
  EXPECT_EQ(vertices, 2u * 4 * 3) << "two tensors, four tiles, ceil(2500 / 1024) vertices each";
}
