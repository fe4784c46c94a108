// Copy lists end to end: one exchange-in list per compute set, of which the host skips the inputs
// its vertices read in place (also after a serialize/deserialize round trip, and whatever the
// thread count), and 32-bit copy fields on a CPU tile of gigabytes: a row stride beyond 2 GiB is
// split into ops that copy the right bytes, and a copy beyond 4 GiB of a tile is refused.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>
#include <poplar/IPUModel.hpp>

#include "ErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
using testerrors::throwsWithMessage;

namespace {

constexpr std::size_t kGiB = std::size_t(1) << 30;

/// Tile 1's vertices read `data` (one aligned piece on tile 0, which the host lets them read in
/// place) and `parts` (on tiles 0 and 2, copied), laid out so that the IPU's exchange copies
/// `data` and the first half of `parts` in one op; a second compute set sums them again.
struct ReadInPlace {
  IPUModel model;
  Device device;
  Graph graph;
  Program program;

  ReadInPlace() : device(makeDevice()), graph(device.getTarget()) {
    testvertices::registerTestVertices();
    Tensor data = graph.addVariable(FLOAT, {8}, "data");
    Tensor parts = graph.addVariable(FLOAT, {8}, "parts");
    Tensor totals = graph.addVariable(FLOAT, {4}, "totals");
    graph.setTileMapping(data, 0);
    graph.setTileMapping(parts.slice(0, 4), 0);
    graph.setTileMapping(parts.slice(4, 8), 2);
    graph.setTileMapping(totals, 1);
    graph.createHostWrite("data", data);
    graph.createHostWrite("parts", parts);
    graph.createHostRead("totals", totals);
    Sequence seq;
    for (unsigned set = 0; set < 2; ++set) {
      ComputeSet cs = graph.addComputeSet("sums" + std::to_string(set));
      VertexRef a = graph.addVertex(cs, "Sum", {{"in", data}, {"out", totals[2 * set]}});
      VertexRef b = graph.addVertex(cs, "Sum", {{"in", parts}, {"out", totals[2 * set + 1]}});
      graph.setTileMapping(a, 1);
      graph.setTileMapping(b, 1);
      seq.add(Execute(cs));
    }
    program = seq;
  }
  Device makeDevice() {
    model.tilesPerIPU = 3;
    return model.createDevice();
  }

  std::vector<float> run(Engine &engine) {
    engine.load(device);
    std::vector<float> data(8), parts(8), totals(4);
    for (std::size_t i = 0; i < 8; ++i) {
      data[i] = 1.0f + float(i);
      parts[i] = 100.0f * float(i + 1);
    }
    engine.writeTensor("data", data.data(), data.data() + 8);
    engine.writeTensor("parts", parts.data(), parts.data() + 8);
    engine.run(0);
    engine.readTensor("totals", totals.data(), totals.data() + 4);
    return totals;
  }
};

} // namespace

TEST(CopyLists, TheHostSkipsInputsReadInPlaceAndCopiesTheRestOfTheirOps) {
  const std::vector<float> expected{36, 3600, 36, 3600};
  for (const char *threads : {"1", "2"}) {
    ReadInPlace p;
    Engine engine(p.graph, p.program, {{"target.hostThreads", threads}});
    EXPECT_EQ(p.run(engine), expected) << threads << " host threads";
    // The profile prices the IPU's exchange: every input byte, read in place or not.
    EXPECT_EQ(engine.getGraphProfile().computeSets.at(0).exchangeBytes, 16 * sizeof(float));
  }
}

TEST(CopyLists, AnExecutableKeepsWhatTheHostSkips) {
  ReadInPlace p;
  std::stringstream bytes;
  compileGraph(p.graph, {p.program}).serialize(bytes);
  Engine engine(Executable::deserialize(bytes));
  EXPECT_EQ(p.run(engine), (std::vector<float>{36, 3600, 36, 3600}));
}

TEST(CopyLists, ARowStrideBeyond2GiBOnACpuTileSplitsIntoOpsThatCopyTheRightBytes) {
  // Eight bytes at the start of a 3 GiB tensor and eight 3 GiB on: one strided op would need a
  // 3 GiB source stride, more than a 32-bit stride holds. (The arena is mapped lazily: only the
  // pages touched here become memory.)
  Device device = Device::createCPUDevice();
  Graph graph(device.getTarget());
  Tensor big = graph.addVariable(UNSIGNED_CHAR, {3 * kGiB + 64}, "big");
  Tensor out = graph.addVariable(UNSIGNED_CHAR, {16}, "out");
  graph.setTileMapping(big, 0);
  graph.setTileMapping(out, 0);
  graph.createHostWrite("low", big.slice(0, 8));
  graph.createHostWrite("high", big.slice(3 * kGiB, 3 * kGiB + 8));
  graph.createHostRead("out", out);
  Engine engine(graph, Copy(concat(big.slice(0, 8), big.slice(3 * kGiB, 3 * kGiB + 8)), out));
  engine.load(device);
  std::vector<unsigned char> low{1, 2, 3, 4, 5, 6, 7, 8}, high{9, 10, 11, 12, 13, 14, 15, 16};
  engine.writeTensor("low", low.data(), low.data() + 8);
  engine.writeTensor("high", high.data(), high.data() + 8);
  engine.run(0);
  std::vector<unsigned char> got(16);
  engine.readTensor("out", got.data(), got.data() + 16);
  EXPECT_EQ(got,
            (std::vector<unsigned char>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}));
}

TEST(CopyLists, ACopyBeyond4GiBOfATileIsRefusedNamingTheTile) {
  Device device = Device::createCPUDevice();
  Graph graph(device.getTarget());
  Tensor big = graph.addVariable(UNSIGNED_CHAR, {5 * kGiB}, "big");
  Tensor out = graph.addVariable(UNSIGNED_CHAR, {8}, "out");
  graph.setTileMapping(big, 0);
  graph.setTileMapping(out, 0);
  graph.createHostRead("out", out);
  const Program copy = Copy(big.slice(5 * kGiB - 8, 5 * kGiB), out);
  EXPECT_TRUE(throwsWithMessage<graph_memory_allocation_error>([&] { compileGraph(graph, {copy}); },
                                                               {"tile 0", "4 GiB", "more tiles"}));
}

TEST(CopyLists, AVertexFieldBeyond4GiBOfATileIsRefusedNamingTheTile) {
  // Vertex objects hold 32-bit tile offsets: a field on its own tile but past the first 4 GiB
  // (possible only on the CPU target) is refused at compile time, not truncated.
  testvertices::registerTestVertices();
  Device device = Device::createCPUDevice();
  Graph graph(device.getTarget());
  const std::size_t n = 5 * kGiB / sizeof(float);
  Tensor big = graph.addVariable(FLOAT, {n}, "big");
  Tensor out = graph.addVariable(FLOAT, {}, "out");
  graph.setTileMapping(big, 0);
  graph.setTileMapping(out, 0);
  ComputeSet cs = graph.addComputeSet("tail");
  VertexRef v = graph.addVertex(cs, "Sum", {{"in", big.slice(n - 4, n)}, {"out", out}});
  graph.setTileMapping(v, 0);
  EXPECT_TRUE(throwsWithMessage<graph_memory_allocation_error>(
      [&] { compileGraph(graph, {Execute(cs)}); }, {"tile 0", "first 4 GiB"}));
}

TEST(CopyLists, AnExecutableKeepsStridedAndBroadcastCopies) {
  // A transposed copy is one op of many rows with strides; a broadcast one has source stride 0.
  // The executable stores only such ops' rows and strides: both must come back as they were.
  IPUModel model;
  model.tilesPerIPU = 2;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  Tensor in = graph.addVariable(FLOAT, {4, 6}, "in");
  Tensor scalar = graph.addVariable(FLOAT, {1}, "scalar");
  Tensor transposed = graph.addVariable(FLOAT, {6, 4}, "transposed");
  Tensor spread = graph.addVariable(FLOAT, {5}, "spread");
  graph.setTileMapping(in, 0);
  graph.setTileMapping(scalar, 0);
  graph.setTileMapping(transposed, 1);
  graph.setTileMapping(spread, 1);
  graph.createHostWrite("in", in);
  graph.createHostWrite("scalar", scalar);
  graph.createHostRead("transposed", transposed);
  graph.createHostRead("spread", spread);
  const Program program =
      Sequence{Copy(in.transpose(), transposed), Copy(scalar.broadcast(5, 0), spread)};
  std::stringstream bytes;
  compileGraph(graph, {program}).serialize(bytes);
  Engine engine(Executable::deserialize(bytes));
  engine.load(device);
  std::vector<float> values(24);
  for (std::size_t i = 0; i < 24; ++i)
    values[i] = float(i) + 0.5f;
  const float s = 7.25f;
  engine.writeTensor("in", values.data(), values.data() + 24);
  engine.writeTensor("scalar", &s, &s + 1);
  engine.run(0);
  std::vector<float> t(24), b(5);
  engine.readTensor("transposed", t.data(), t.data() + 24);
  engine.readTensor("spread", b.data(), b.data() + 5);
  for (std::size_t r = 0; r < 6; ++r)
    for (std::size_t c = 0; c < 4; ++c)
      EXPECT_EQ(t[r * 4 + c], values[c * 6 + r]) << r << "," << c;
  EXPECT_EQ(b, std::vector<float>(5, s));
}

TEST(CopyLists, DamagedHostSkipsAndPartialCopiesNeverCrash) {
  // The reader checks the skip bits and the host's partial copies as it checks every copy:
  // flipping bytes of the compute set plans (and what follows them) either still gives a
  // valid executable or fails with a poplar_error. The plans follow the vertex objects in the
  // stream and start with the first set's name.
  ReadInPlace p;
  std::stringstream out;
  compileGraph(p.graph, {p.program}).serialize(out);
  const std::string bytes = out.str();
  const std::size_t plans = bytes.find("sums0");
  ASSERT_NE(plans, std::string::npos);
  std::size_t ran = 0, refused = 0; // damaged streams that still ran, and those refused
  for (std::size_t at = plans; at < bytes.size(); ++at) {
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ 0x5a);
    try {
      std::istringstream in(damaged);
      Engine engine(Executable::deserialize(in));
      p.run(engine);
      ++ran;
    } catch (const poplar_error &) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0u) << "the reader caught none of " << ran + refused << " damages";
}
