// BSP exchange: vertices reading and writing data on other tiles, non-contiguous views
// connected to Vector fields, and Copy programs between tiles (including overlapping copies,
// which must behave as if every element were read before any is written).
#include <gtest/gtest.h>

#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

struct Fixture {
  Device device;
  Graph graph;
  explicit Fixture(unsigned tiles = 16)
      : device(enginetest::smallDevice(tiles)), graph(device.getTarget()) {
    testvertices::registerTestVertices();
  }
  Tensor var(Type type, std::vector<std::size_t> shape, const std::string &name) {
    Tensor t = graph.addVariable(type, shape, name);
    graph.createHostRead(name, t);
    graph.createHostWrite(name + "In", t);
    return t;
  }
  /// Element i of flat `t` goes to tile (i * stride) % tiles: scattered over every tile.
  void scatter(const Tensor &t, unsigned stride = 5) {
    Tensor flat = t.flatten();
    const unsigned tiles = graph.getTarget().getNumTiles();
    for (std::size_t i = 0; i < flat.numElements(); ++i)
      graph.setTileMapping(flat[i], static_cast<unsigned>((i * stride) % tiles));
  }
  std::vector<float> read(Engine &e, const std::string &name, std::size_t n) {
    std::vector<float> v(n);
    e.readTensor(name, v.data(), v.data() + n);
    return v;
  }
  void write(Engine &e, const std::string &name, const std::vector<float> &v) {
    e.writeTensor(name + "In", v.data(), v.data() + v.size());
  }
};

std::vector<float> ramp(std::size_t n, float start = 1, float step = 1) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = start + step * static_cast<float>(i);
  return v;
}

} // namespace

TEST(Exchange, VertexReadsDataSpreadOverManyTiles) {
  Fixture f(16);
  Tensor in = f.var(FLOAT, {200}, "in");
  Tensor out = f.var(FLOAT, {}, "out");
  f.scatter(in, 3);
  f.graph.setTileMapping(out, 7);
  ComputeSet cs = f.graph.addComputeSet("sum");
  VertexRef v = f.graph.addVertex(cs, "Sum", {{"in", in}, {"out", out}});
  f.graph.setTileMapping(v, 7);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  std::vector<float> host = ramp(200, 0.125f, 0.37f);
  f.write(e, "in", host);
  e.run();
  float expect = 0;
  for (float x : host)
    expect += x;
  EXPECT_EQ(f.read(e, "out", 1)[0], expect);
}

TEST(Exchange, OutputToRemoteTile) {
  Fixture f(16);
  Tensor in = f.var(FLOAT, {}, "in");
  Tensor out = f.var(FLOAT, {}, "out");
  f.graph.setTileMapping(in, 0);
  f.graph.setTileMapping(out, 15);
  ComputeSet cs = f.graph.addComputeSet("copy");
  VertexRef v = f.graph.addVertex(cs, "CopyScalar", {{"in", in}, {"out", out}});
  f.graph.setTileMapping(v, 8);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  f.write(e, "in", {-6.5f});
  e.run();
  EXPECT_EQ(f.read(e, "out", 1)[0], -6.5f);
}

TEST(Exchange, VectorOutputScatteredOverTiles) {
  Fixture f(16);
  Tensor out = f.var(FLOAT, {40}, "out");
  f.scatter(out, 7);
  ComputeSet cs = f.graph.addComputeSet("iota");
  VertexRef v = f.graph.addVertex(cs, "WriteIota", {{"out", out}});
  f.graph.setInitialValue(v["start"], 100.0f);
  f.graph.setTileMapping(v, 2);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  e.run();
  EXPECT_EQ(f.read(e, "out", 40), ramp(40, 100, 1));
}

TEST(Exchange, InOutGoesBothWays) {
  Fixture f(16);
  Tensor data = f.var(FLOAT, {30}, "data");
  f.scatter(data, 11);
  ComputeSet cs = f.graph.addComputeSet("scale");
  VertexRef v = f.graph.addVertex(cs, "Scale", {{"data", data}});
  f.graph.setInitialValue(v["factor"], 3.0f);
  f.graph.setTileMapping(v, 4);
  Engine e(f.graph, Repeat(2, Execute(cs)));
  e.load(f.device);
  std::vector<float> host = ramp(30, -7, 0.5f);
  f.write(e, "data", host);
  e.run();
  for (auto &x : host)
    x = x * 3.0f * 3.0f;
  EXPECT_EQ(f.read(e, "data", 30), host);
}

TEST(Exchange, InOutMixingLocalAndRemotePieces) {
  Fixture f(4);
  Tensor data = f.var(FLOAT, {8}, "data");
  f.graph.setTileMapping(data.slice(0, 4), 1); // local to the vertex
  f.graph.setTileMapping(data.slice(4, 8), 3); // remote
  ComputeSet cs = f.graph.addComputeSet("scale");
  VertexRef v =
      f.graph.addVertex(cs, "Scale", {{"data", concat(data.slice(6, 8), data.slice(0, 3))}});
  f.graph.setInitialValue(v["factor"], -1.0f);
  f.graph.setTileMapping(v, 1);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  f.write(e, "data", ramp(8));
  e.run();
  EXPECT_EQ(f.read(e, "data", 8), (std::vector<float>{-1, -2, -3, 4, 5, 6, -7, -8}));
}

TEST(Exchange, TransposedViewOnVectorField) {
  Fixture f(4);
  Tensor m = f.var(FLOAT, {3, 5}, "m");
  Tensor out = f.var(FLOAT, {15}, "out");
  for (unsigned r = 0; r < 3; ++r)
    f.graph.setTileMapping(m[r], r);
  f.graph.setTileMapping(out, 3);
  ComputeSet cs = f.graph.addComputeSet("copyT");
  VertexRef v =
      f.graph.addVertex(cs, "CopyFloats", {{"in", m.transpose().flatten()}, {"out", out}});
  f.graph.setTileMapping(v, 3);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  std::vector<float> host = ramp(15, 0, 1);
  f.write(e, "m", host);
  e.run();
  std::vector<float> expect;
  for (unsigned c = 0; c < 5; ++c)
    for (unsigned r = 0; r < 3; ++r)
      expect.push_back(host[r * 5 + c]);
  EXPECT_EQ(f.read(e, "out", 15), expect);
}

TEST(Exchange, ReversedLocalViewOnVectorField) {
  Fixture f(4);
  Tensor in = f.var(FLOAT, {10}, "in");
  Tensor out = f.var(FLOAT, {10}, "out");
  f.graph.setTileMapping(in, 2);
  f.graph.setTileMapping(out, 2);
  ComputeSet cs = f.graph.addComputeSet("rev");
  VertexRef v = f.graph.addVertex(cs, "CopyFloats", {{"in", in.reverse(0)}, {"out", out}});
  f.graph.setTileMapping(v, 2);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  std::vector<float> host = ramp(10, 5, 2);
  f.write(e, "in", host);
  e.run();
  EXPECT_EQ(f.read(e, "out", 10), std::vector<float>(host.rbegin(), host.rend()));
}

TEST(Exchange, ReversedViewAsOutput) {
  Fixture f(4);
  Tensor in = f.var(FLOAT, {6}, "in");
  Tensor out = f.var(FLOAT, {6}, "out");
  f.graph.setTileMapping(in, 0);
  f.graph.setTileMapping(out.slice(0, 3), 1);
  f.graph.setTileMapping(out.slice(3, 6), 2);
  ComputeSet cs = f.graph.addComputeSet("revOut");
  VertexRef v = f.graph.addVertex(cs, "CopyFloats", {{"in", in}, {"out", out.reverse(0)}});
  f.graph.setTileMapping(v, 0);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  std::vector<float> host = ramp(6, 1, 1);
  f.write(e, "in", host);
  e.run();
  EXPECT_EQ(f.read(e, "out", 6), std::vector<float>(host.rbegin(), host.rend()));
}

TEST(Exchange, BroadcastViewOnInput) {
  Fixture f(4);
  Tensor row = f.var(FLOAT, {3}, "row");
  Tensor out = f.var(FLOAT, {12}, "out");
  f.graph.setTileMapping(row, 1);
  f.graph.setTileMapping(out, 0);
  ComputeSet cs = f.graph.addComputeSet("bcast");
  VertexRef v = f.graph.addVertex(
      cs, "CopyFloats", {{"in", row.expand({0}).broadcast(4, 0).flatten()}, {"out", out}});
  f.graph.setTileMapping(v, 0);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  f.write(e, "row", {7, 8, 9});
  e.run();
  EXPECT_EQ(f.read(e, "out", 12), (std::vector<float>{7, 8, 9, 7, 8, 9, 7, 8, 9, 7, 8, 9}));
}

TEST(Exchange, BroadcastScalarSummed) {
  Fixture f(4);
  Tensor s = f.var(FLOAT, {1}, "s");
  Tensor out = f.var(FLOAT, {}, "out");
  f.graph.setTileMapping(s, 3);
  f.graph.setTileMapping(out, 3);
  ComputeSet cs = f.graph.addComputeSet("bsum");
  VertexRef v = f.graph.addVertex(cs, "Sum", {{"in", s.broadcast(9, 0)}, {"out", out}});
  f.graph.setTileMapping(v, 3); // local but aliased: still needs a gathered buffer
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  f.write(e, "s", {0.1f});
  e.run();
  float expect = 0;
  for (int i = 0; i < 9; ++i)
    expect += 0.1f;
  EXPECT_EQ(f.read(e, "out", 1)[0], expect);
}

TEST(Exchange, SubSampledAndConcatenatedViews) {
  Fixture f(4);
  Tensor a = f.var(FLOAT, {10}, "a");
  Tensor b = f.var(FLOAT, {4}, "b");
  Tensor out = f.var(FLOAT, {9}, "out");
  f.graph.setTileMapping(a, 0);
  f.graph.setTileMapping(b, 1);
  f.graph.setTileMapping(out, 2);
  ComputeSet cs = f.graph.addComputeSet("views");
  VertexRef v = f.graph.addVertex(
      cs, "CopyFloats",
      {{"in", concat(a.subSample(3, 0), b.slice(1, 4).reverse(0)).slice(0, 6).reshape({6})},
       {"out", out.slice(1, 7)}});
  f.graph.setTileMapping(v, 3);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  f.write(e, "a", ramp(10, 0, 1));
  f.write(e, "b", {100, 101, 102, 103});
  f.write(e, "out", std::vector<float>(9, -1));
  e.run();
  // a.subSample(3) = {0,3,6,9}; b[1:4] reversed = {103,102,101}; first six.
  EXPECT_EQ(f.read(e, "out", 9), (std::vector<float>{-1, 0, 3, 6, 9, 103, 102, -1, -1}));
}

TEST(Exchange, TwoVerticesReadSameRemoteTensor) {
  Fixture f(4);
  Tensor in = f.var(FLOAT, {5}, "in");
  Tensor outs = f.var(FLOAT, {2}, "outs");
  f.graph.setTileMapping(in, 0);
  f.graph.setTileMapping(outs[0], 1);
  f.graph.setTileMapping(outs[1], 2);
  ComputeSet cs = f.graph.addComputeSet("sums");
  for (unsigned t = 1; t <= 2; ++t) {
    VertexRef v = f.graph.addVertex(cs, "Sum", {{"in", in}, {"out", outs[t - 1]}});
    f.graph.setTileMapping(v, t);
  }
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  f.write(e, "in", {1, 2, 3, 4, 5.5f});
  e.run();
  EXPECT_EQ(f.read(e, "outs", 2), (std::vector<float>{15.5f, 15.5f}));
}

TEST(Exchange, VerticesOfATileShareTheRemoteDataTheyRead) {
  // Six row vertices on each of tiles 1-3 read the same vector, scattered element by element
  // over tiles 0-3: the exchange brings the vector to each tile once (its 3 remote quarters'
  // worth of elements), not once per vertex, and every vertex still sees all of it.
  Fixture f(4);
  const std::size_t n = 64, rowsPerTile = 6;
  Tensor in = f.var(FLOAT, {n}, "in");
  Tensor outs = f.var(FLOAT, {3 * rowsPerTile}, "outs");
  f.scatter(in, 1);
  ComputeSet cs = f.graph.addComputeSet("sums");
  for (unsigned r = 0; r < 3 * rowsPerTile; ++r) {
    const unsigned tile = 1 + r / rowsPerTile;
    f.graph.setTileMapping(outs[r], tile);
    VertexRef v = f.graph.addVertex(cs, "Sum", {{"in", in}, {"out", outs[r]}});
    f.graph.setTileMapping(v, tile);
  }
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  const std::vector<float> host = ramp(n, 0.5f, 0.25f);
  f.write(e, "in", host);
  e.run();
  float expect = 0;
  for (float x : host)
    expect += x;
  EXPECT_EQ(f.read(e, "outs", 3 * rowsPerTile), std::vector<float>(3 * rowsPerTile, expect));
  // Each receiving tile gathers the whole vector once (its own quarter included, as a vector
  // field needs one contiguous run): 3 tiles × 64 floats.
  EXPECT_EQ(e.getGraphProfile().computeSets.at(0).exchangeBytes, 3 * n * sizeof(float));
}

TEST(Exchange, InOutFieldsOfOneTileKeepTheirOwnBuffers) {
  // Two vertices on tile 1 scale the same remote data in place: each writes it back, so their
  // buffers may not be shared (the second write wins, as it would with any order of the two).
  Fixture f(4);
  Tensor data = f.var(FLOAT, {8}, "data");
  f.scatter(data, 3);
  Tensor probe = f.var(FLOAT, {}, "probe");
  f.graph.setTileMapping(probe, 1);
  ComputeSet cs = f.graph.addComputeSet("scale");
  VertexRef a = f.graph.addVertex(cs, "Scale", {{"data", data}});
  f.graph.setInitialValue(a["factor"], 2.0f);
  f.graph.setTileMapping(a, 1);
  VertexRef reader = f.graph.addVertex(cs, "Sum", {{"in", data}, {"out", probe}});
  f.graph.setTileMapping(reader, 1);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  f.write(e, "data", ramp(8));
  e.run();
  // The reader saw the values before the compute set (BSP), the scaler wrote doubled ones.
  EXPECT_EQ(f.read(e, "probe", 1)[0], 36.0f);
  std::vector<float> doubled = ramp(8, 2, 2);
  EXPECT_EQ(f.read(e, "data", 8), doubled);
}

TEST(Exchange, ReadsSeeValuesFromBeforeTheComputeSet) {
  // BSP: in one compute set a vertex reads x while another overwrites x; the reader must see
  // the old value whichever tile runs first.
  Fixture f(4);
  Tensor x = f.var(FLOAT, {}, "x");
  Tensor y = f.var(FLOAT, {}, "y");
  Tensor src = f.var(FLOAT, {}, "src");
  f.graph.setTileMapping(x, 0);
  f.graph.setTileMapping(y, 1);
  f.graph.setTileMapping(src, 2);
  ComputeSet cs = f.graph.addComputeSet("race");
  VertexRef reader = f.graph.addVertex(cs, "CopyScalar", {{"in", x}, {"out", y}});
  VertexRef writer = f.graph.addVertex(cs, "CopyScalar", {{"in", src}, {"out", x}});
  f.graph.setTileMapping(reader, 1);
  f.graph.setTileMapping(writer, 2);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  f.write(e, "x", {1});
  f.write(e, "src", {2});
  e.run();
  EXPECT_EQ(f.read(e, "y", 1)[0], 1.0f);
  EXPECT_EQ(f.read(e, "x", 1)[0], 2.0f);
}

TEST(Exchange, RemoteReadSeesOldValueWhileItsOwnTileOverwritesIt) {
  // The writer sits on x's tile and writes x in place, so the host must not let the reader on
  // another tile read x where it lies: with one thread tile 0 runs first and would overwrite it.
  for (unsigned threads : {1u, 2u, 3u}) {
    Fixture f(4);
    Tensor x = f.var(FLOAT, {}, "x");
    Tensor y = f.var(FLOAT, {}, "y");
    Tensor src = f.var(FLOAT, {}, "src");
    f.graph.setTileMapping(x, 0);
    f.graph.setTileMapping(src, 0);
    f.graph.setTileMapping(y, 1);
    ComputeSet cs = f.graph.addComputeSet("race");
    VertexRef writer = f.graph.addVertex(cs, "CopyScalar", {{"in", src}, {"out", x}});
    VertexRef reader = f.graph.addVertex(cs, "CopyScalar", {{"in", x}, {"out", y}});
    f.graph.setTileMapping(writer, 0);
    f.graph.setTileMapping(reader, 1);
    Engine e(f.graph, Execute(cs), {{"target.hostThreads", std::to_string(threads)}});
    e.load(f.device);
    f.write(e, "x", {1});
    f.write(e, "src", {2});
    e.run();
    EXPECT_EQ(f.read(e, "y", 1)[0], 1.0f) << threads << " threads";
    EXPECT_EQ(f.read(e, "x", 1)[0], 2.0f) << threads << " threads";
  }
}

TEST(Exchange, RemoteInputsArriveEightByteAligned) {
  // A remote input lands in an 8-byte-aligned exchange buffer; read in place instead, it must
  // keep that alignment, so a slice starting 4 bytes into a variable is still copied.
  Fixture f(4);
  Tensor data = f.var(FLOAT, {9}, "data");
  f.graph.setTileMapping(data, 0);
  ComputeSet cs = f.graph.addComputeSet("align");
  for (unsigned begin : {0u, 1u, 2u, 3u}) {
    Tensor out = f.graph.addVariable(UNSIGNED_INT, {}, "out" + std::to_string(begin));
    f.graph.setTileMapping(out, 1 + begin % 3);
    f.graph.createHostRead("out" + std::to_string(begin), out);
    VertexRef v =
        f.graph.addVertex(cs, "AddressMod8", {{"in", data.slice(begin, begin + 4)}, {"out", out}});
    f.graph.setTileMapping(v, 1 + begin % 3);
  }
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  f.write(e, "data", ramp(9));
  e.run();
  for (unsigned begin : {0u, 1u, 2u, 3u}) {
    unsigned mod = 99;
    e.readTensor("out" + std::to_string(begin), &mod, &mod + 1);
    EXPECT_EQ(mod, 0u) << "slice from element " << begin;
  }
}

TEST(Exchange, ResultOfOneComputeSetFeedsTheNext) {
  Fixture f(4);
  Tensor a = f.var(FLOAT, {8}, "a");
  Tensor s = f.var(FLOAT, {}, "s");
  f.scatter(a, 1);
  f.graph.setTileMapping(s, 3);
  ComputeSet iota = f.graph.addComputeSet("iota");
  VertexRef w = f.graph.addVertex(iota, "WriteIota", {{"out", a}});
  f.graph.setInitialValue(w["start"], 0.5f);
  f.graph.setTileMapping(w, 0);
  ComputeSet sum = f.graph.addComputeSet("sum");
  VertexRef v = f.graph.addVertex(sum, "Sum", {{"in", a}, {"out", s}});
  f.graph.setTileMapping(v, 3);
  Engine e(f.graph, Sequence{Execute(iota), Execute(sum)});
  e.load(f.device);
  e.run();
  float expect = 0;
  for (float x : ramp(8, 0.5f, 1))
    expect += x;
  EXPECT_EQ(f.read(e, "s", 1)[0], expect);
}

TEST(Exchange, ConstantOnRemoteTileAsInput) {
  Fixture f(4);
  std::vector<float> values = {2, 4, 8, 16};
  Tensor c = f.graph.addConstant(FLOAT, {4}, ArrayRef<float>(values), "c");
  f.graph.setTileMapping(c, 3);
  Tensor out = f.var(FLOAT, {}, "out");
  f.graph.setTileMapping(out, 0);
  ComputeSet cs = f.graph.addComputeSet("sumConst");
  VertexRef v = f.graph.addVertex(cs, "Sum", {{"in", c}, {"out", out}});
  f.graph.setTileMapping(v, 0);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  e.run();
  EXPECT_EQ(f.read(e, "out", 1)[0], 30.0f);
}

TEST(ExchangeCopy, CopyBetweenTilesWithDifferentLayouts) {
  Fixture f(16);
  Tensor a = f.var(FLOAT, {64}, "a");
  Tensor b = f.var(FLOAT, {64}, "b");
  f.scatter(a, 3);
  poputil::mapTensorLinearly(f.graph, b, 1, 1);
  Engine e(f.graph, Copy(a, b));
  e.load(f.device);
  std::vector<float> host = ramp(64, -10, 0.25f);
  f.write(e, "a", host);
  e.run();
  EXPECT_EQ(f.read(e, "b", 64), host);
  EXPECT_EQ(f.read(e, "a", 64), host);
}

TEST(ExchangeCopy, CopyIntoTransposedDestination) {
  Fixture f(4);
  Tensor a = f.var(FLOAT, {2, 3}, "a");
  Tensor b = f.var(FLOAT, {3, 2}, "b");
  f.graph.setTileMapping(a, 0);
  f.graph.setTileMapping(b[0], 1);
  f.graph.setTileMapping(b[1], 2);
  f.graph.setTileMapping(b[2], 3);
  Engine e(f.graph, Copy(a, b.transpose()));
  e.load(f.device);
  f.write(e, "a", {1, 2, 3, 4, 5, 6});
  e.run();
  EXPECT_EQ(f.read(e, "b", 6), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(ExchangeCopy, IntCopyBetweenTiles) {
  Fixture f(4);
  Tensor a = f.graph.addVariable(INT, {5}, "a");
  Tensor b = f.graph.addVariable(INT, {5}, "b");
  f.graph.setTileMapping(a, 0);
  f.graph.setTileMapping(b, 3);
  std::vector<int> values = {-1, 2, -3, 2147483647, -2147483647 - 1};
  f.graph.setInitialValue(a, ArrayRef<int>(values));
  f.graph.createHostRead("b", b);
  Engine e(f.graph, Copy(a.reverse(0), b));
  e.load(f.device);
  e.run();
  std::vector<int> got(5);
  e.readTensor("b", got.data(), got.data() + 5);
  EXPECT_EQ(got, std::vector<int>(values.rbegin(), values.rend()));
}

namespace {
/// Host reference of a simultaneous copy: dst[k] = old src[k] for every k at once.
std::vector<float> simultaneousCopy(std::vector<float> v, const std::vector<std::size_t> &src,
                                    const std::vector<std::size_t> &dst) {
  const std::vector<float> old = v;
  for (std::size_t k = 0; k < src.size(); ++k)
    v[dst[k]] = old[src[k]];
  return v;
}
std::vector<std::size_t> range(std::size_t b, std::size_t e) {
  std::vector<std::size_t> r;
  for (std::size_t i = b; i < e; ++i)
    r.push_back(i);
  return r;
}
} // namespace

TEST(ExchangeCopy, OverlappingShiftRightMatchesSimultaneousCopy) {
  Fixture f(4);
  Tensor t = f.var(FLOAT, {20}, "t");
  poputil::mapTensorLinearly(f.graph, t, 1, 3);
  Engine e(f.graph, Copy(t.slice(0, 17), t.slice(3, 20)));
  e.load(f.device);
  std::vector<float> host = ramp(20, 1, 1);
  f.write(e, "t", host);
  e.run();
  EXPECT_EQ(f.read(e, "t", 20), simultaneousCopy(host, range(0, 17), range(3, 20)));
}

TEST(ExchangeCopy, OverlappingShiftLeftMatchesSimultaneousCopy) {
  Fixture f(4);
  Tensor t = f.var(FLOAT, {20}, "t");
  f.scatter(t, 1);
  Engine e(f.graph, Copy(t.slice(2, 20), t.slice(0, 18)));
  e.load(f.device);
  std::vector<float> host = ramp(20, 0.5f, 2);
  f.write(e, "t", host);
  e.run();
  EXPECT_EQ(f.read(e, "t", 20), simultaneousCopy(host, range(2, 20), range(0, 18)));
}

TEST(ExchangeCopy, OverlappingSingleTileShift) {
  Fixture f(4);
  Tensor t = f.var(FLOAT, {12}, "t");
  f.graph.setTileMapping(t, 2);
  Engine e(f.graph, Repeat(2, Copy(t.slice(0, 11), t.slice(1, 12))));
  e.load(f.device);
  std::vector<float> host = ramp(12, 10, 1);
  f.write(e, "t", host);
  e.run();
  std::vector<float> expect = simultaneousCopy(host, range(0, 11), range(1, 12));
  expect = simultaneousCopy(expect, range(0, 11), range(1, 12));
  EXPECT_EQ(f.read(e, "t", 12), expect);
}

TEST(ExchangeCopy, CopyOntoOwnReverse) {
  Fixture f(4);
  Tensor t = f.var(FLOAT, {9}, "t");
  poputil::mapTensorLinearly(f.graph, t, 1, 2);
  Engine e(f.graph, Copy(t, t.reverse(0)));
  e.load(f.device);
  std::vector<float> host = ramp(9, 1, 1);
  f.write(e, "t", host);
  e.run();
  std::vector<std::size_t> rev;
  for (std::size_t i = 0; i < 9; ++i)
    rev.push_back(8 - i);
  EXPECT_EQ(f.read(e, "t", 9), simultaneousCopy(host, range(0, 9), rev));
}

TEST(ExchangeCopy, SwapHalvesThroughConcat) {
  Fixture f(4);
  Tensor t = f.var(FLOAT, {8}, "t");
  f.graph.setTileMapping(t.slice(0, 4), 0);
  f.graph.setTileMapping(t.slice(4, 8), 1);
  Engine e(f.graph, Copy(t, concat(t.slice(4, 8), t.slice(0, 4))));
  e.load(f.device);
  std::vector<float> host = ramp(8, 1, 1);
  f.write(e, "t", host);
  e.run();
  EXPECT_EQ(f.read(e, "t", 8), (std::vector<float>{5, 6, 7, 8, 1, 2, 3, 4}));
}

TEST(Exchange, VectorSpanningTwoVariablesOnOneTile) {
  Fixture f(4);
  // 4 floats + 4 floats: adjacent in tile memory; 3 floats + 3 floats: an alignment gap.
  Tensor a = f.var(FLOAT, {4}, "a");
  Tensor b = f.var(FLOAT, {4}, "b");
  Tensor c = f.var(FLOAT, {3}, "c");
  Tensor d = f.var(FLOAT, {3}, "d");
  Tensor out = f.var(FLOAT, {14}, "out");
  for (const Tensor &t : {a, b, c, d})
    f.graph.setTileMapping(t, 1);
  f.graph.setTileMapping(out, 1);
  ComputeSet cs = f.graph.addComputeSet("join");
  VertexRef v = f.graph.addVertex(cs, "CopyFloats", {{"in", concat({a, b, c, d})}, {"out", out}});
  f.graph.setTileMapping(v, 1);
  Engine e(f.graph, Execute(cs));
  e.load(f.device);
  f.write(e, "a", {1, 2, 3, 4});
  f.write(e, "b", {5, 6, 7, 8});
  f.write(e, "c", {9, 10, 11});
  f.write(e, "d", {12, 13, 14});
  e.run();
  EXPECT_EQ(f.read(e, "out", 14), ramp(14, 1, 1));
}
