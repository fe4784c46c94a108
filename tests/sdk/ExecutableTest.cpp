// poplar::Executable: compileGraph → serialize → deserialize → Engine gives the same bits as an
// Engine built from the graph, and every damaged or foreign executable fails with a clear error.
#include <gtest/gtest.h>

#include <sstream>

#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Version.hpp>
#include <poputil/TileMapping.hpp>
#include <tessera/BuildId.hpp>

#include "ErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;
using testerrors::throwsWithMessage;

namespace {

constexpr std::size_t kN = 64;

/// A program with a bit of everything the step list holds: a host write, a stream, a loop, a
/// branch, copies between tiles, vertices with plain members, a constant and a host read.
struct LoopingScale {
  IPUModel model;
  Device device;
  Graph graph;
  std::vector<Program> programs;

  LoopingScale() : device(makeDevice()), graph(device.getTarget()) {
    testvertices::registerTestVertices();
    Tensor data = graph.addVariable(FLOAT, {kN}, "data");
    Tensor copyOfData = graph.addVariable(FLOAT, {kN}, "copyOfData");
    Tensor total = graph.addVariable(FLOAT, {}, "total");
    Tensor counter = graph.addVariable(INT, {}, "counter");
    Tensor flag = graph.addVariable(BOOL, {}, "flag");
    Tensor zero = graph.addConstant(INT, {}, 0, "zero");
    poputil::mapTensorLinearly(graph, data, 1, 1);
    graph.setTileMapping(copyOfData, 3);
    graph.setTileMapping(total, 2);
    graph.setTileMapping(counter, 1);
    graph.setTileMapping(flag, 1);
    graph.setTileMapping(zero, 0);

    ComputeSet scale = graph.addComputeSet("scale");
    for (unsigned tile = 0; tile < 4; ++tile) {
      const auto part = data.slice(tile * kN / 4, (tile + 1) * kN / 4);
      VertexRef v = graph.addVertex(scale, "Scale", {{"data", part}});
      graph.setInitialValue(v["factor"], 1.5f + float(tile));
      graph.setTileMapping(v, tile);
    }
    ComputeSet step = graph.addComputeSet("count");
    VertexRef inc = graph.addVertex(step, "Increment", {{"counter", counter}});
    graph.setTileMapping(inc, 1);
    VertexRef less = graph.addVertex(step, "LessThan", {{"value", counter}, {"flag", flag}});
    graph.setInitialValue(less["limit"], 3);
    graph.setTileMapping(less, 1);
    ComputeSet sum = graph.addComputeSet("sum");
    VertexRef s = graph.addVertex(sum, "Sum", {{"in", copyOfData}, {"out", total}});
    graph.setTileMapping(s, 2);

    DataStream in = graph.addHostToDeviceFIFO("in", FLOAT, kN);
    graph.createHostRead("data", data);
    graph.createHostRead("total", total);
    graph.createHostRead("counter", counter);
    programs.push_back(
        Sequence{Copy(zero, counter), Copy(in, data), RepeatWhileTrue(Sequence{}, flag, Sequence{}),
                 Repeat(2, Execute(scale)), Execute(step), If(flag, Execute(scale), Sequence{}),
                 Copy(data, copyOfData), Execute(sum)});
    programs.push_back(Execute(step));
  }

  Device makeDevice() {
    model.tilesPerIPU = 4;
    return model.createDevice();
  }

  struct Results {
    std::vector<float> data = std::vector<float>(kN);
    float total = 0;
    int counter = 0;
  };

  Results run(Engine &engine) {
    engine.load(device);
    std::vector<float> input(kN);
    for (std::size_t i = 0; i < kN; ++i)
      input[i] = 0.25f * float(i) - 3.0f;
    engine.connectStream("in", input.data());
    engine.run(0);
    engine.run(1);
    Results r;
    engine.readTensor("data", r.data.data(), r.data.data() + kN);
    engine.readTensor("total", &r.total, &r.total + 1);
    engine.readTensor("counter", &r.counter, &r.counter + 1);
    return r;
  }
};

std::string serialized(const LoopingScale &p) {
  std::ostringstream out;
  compileGraph(p.graph, p.programs).serialize(out);
  return out.str();
}

Executable deserialized(const std::string &bytes) {
  std::istringstream in(bytes);
  return Executable::deserialize(in);
}

} // namespace

TEST(Executable, RoundTripGivesTheSameBitsAsCompilingInPlace) {
  LoopingScale p;
  Engine direct(p.graph, p.programs);
  const auto expected = p.run(direct);
  Engine fromFile(deserialized(serialized(p)));
  const auto got = p.run(fromFile);
  EXPECT_EQ(0, std::memcmp(expected.data.data(), got.data.data(), kN * sizeof(float)));
  EXPECT_EQ(std::memcmp(&expected.total, &got.total, sizeof(float)), 0);
  EXPECT_EQ(expected.counter, got.counter);
  EXPECT_EQ(got.counter, 2) << "run(0) increments once, run(1) once more";
  // And against the closed form: the first tile's elements are scaled by 1.5 three times.
  EXPECT_EQ(got.data[1], (0.25f - 3.0f) * 1.5f * 1.5f * 1.5f);
  for (unsigned t = 0; t < 4; ++t)
    EXPECT_EQ(direct.getTileMemoryUsed(t), fromFile.getTileMemoryUsed(t)) << "tile " << t;
}

TEST(Executable, SerializingTwiceGivesTheSameBytes) {
  LoopingScale p;
  const std::string once = serialized(p);
  std::ostringstream again;
  deserialized(once).serialize(again);
  EXPECT_EQ(once, again.str());
}

TEST(Executable, CompiledExecutableRunsWithoutSerializing) {
  LoopingScale p;
  Engine direct(p.graph, p.programs);
  const auto expected = p.run(direct);
  Engine engine(compileGraph(p.graph, p.programs));
  EXPECT_EQ(p.run(engine).data, expected.data);
}

TEST(Executable, CompileGraphReportsProgress) {
  LoopingScale p;
  std::vector<std::pair<int, int>> calls;
  compileGraph(p.graph, p.programs, {}, [&](int done, int total) {
    calls.push_back({done, total});
  });
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.front().first, 0);
  EXPECT_EQ(calls.back().first, calls.back().second);
}

TEST(Executable, ProfileOfADeserializedExecutableMatchesTheOriginal) {
  LoopingScale p;
  Engine direct(p.graph, p.programs);
  Engine fromFile(deserialized(serialized(p)));
  std::ostringstream a, b;
  direct.printProfileSummary(a);
  fromFile.printProfileSummary(b);
  EXPECT_EQ(a.str(), b.str());
}

TEST(Executable, VertexObjectsOfEveryFieldKindSurviveTheRoundTrip) {
  // Vertex lists (local, remote and empty), plain values, plain vectors (empty and not) and
  // perf estimates on some vertices only: the deserialized executable builds the same objects.
  testvertices::registerTestVertices();
  IPUModel model;
  model.tilesPerIPU = 4;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  Tensor a = graph.addVariable(FLOAT, {16}, "a");
  poputil::mapTensorLinearly(graph, a, 1, 4);
  graph.setInitialValue(a, ArrayRef<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  Tensor totals = graph.addVariable(FLOAT, {3}, "totals");
  graph.setTileMapping(totals, 2);
  Tensor added = graph.addVariable(FLOAT, {4}, "added");
  graph.setTileMapping(added, 3);
  ComputeSet cs = graph.addComputeSet("everyKind");
  VertexRef list =
      graph.addVertex(cs, "SumList",
                      {{"in", std::vector<Tensor>{a.slice(8, 12), a.slice(0, 2), a.slice(3, 13)}},
                       {"out", totals[0]}});
  graph.setTileMapping(list, 2);
  graph.setPerfEstimate(list, 1234);
  VertexRef empty = graph.addVertex(cs, "SumList", {{"out", totals[1]}});
  graph.setFieldSize(empty["in"], 0);
  graph.setTileMapping(empty, 2);
  VertexRef table = graph.addVertex(cs, "AddTable", {{"in", a.slice(4, 8)}, {"out", added}});
  graph.setInitialValue(table["table"], ArrayRef<float>{0.5f, -1, 100, 1e6f});
  graph.setTileMapping(table, 3);
  ComputeSet scaleCs = graph.addComputeSet("scaleList");
  VertexRef scale = graph.addVertex(
      scaleCs, "ScaleList", {{"data", std::vector<Tensor>{a.slice(12, 14), a.slice(0, 1)}}});
  graph.setInitialValue(scale["factor"], 3.0f);
  graph.setTileMapping(scale, 3);
  graph.setPerfEstimate(scale, 77);
  graph.createHostRead("a", a);
  graph.createHostRead("totals", totals);
  graph.createHostRead("added", added);
  const std::vector<Program> programs{Sequence{Execute(cs), Execute(scaleCs), Execute(cs)}};

  struct Run {
    std::vector<float> a = std::vector<float>(16), totals = std::vector<float>(3),
                       added = std::vector<float>(4);
    std::vector<VertexCycleEstimate> estimates;
    std::string profile;
  };
  auto run = [&](Engine &engine) {
    engine.load(device);
    engine.run(0);
    Run r;
    engine.readTensor("a", r.a.data(), r.a.data() + r.a.size());
    engine.readTensor("totals", r.totals.data(), r.totals.data() + r.totals.size());
    engine.readTensor("added", r.added.data(), r.added.data() + r.added.size());
    r.estimates = engine.getVertexCycleEstimates();
    std::ostringstream profile;
    engine.printProfileSummary(profile);
    r.profile = profile.str();
    return r;
  };
  Engine direct(graph, programs);
  const Run expected = run(direct);
  std::ostringstream bytes;
  compileGraph(graph, programs).serialize(bytes);
  Engine fromFile(deserialized(bytes.str()));
  const Run got = run(fromFile);

  // Against the closed form first: the scale multiplies a[12], a[13] and a[0] by 3 between
  // the two executions of `everyKind`.
  EXPECT_EQ(expected.a[0], 3.0f);
  EXPECT_EQ(expected.a[12], 39.0f);
  EXPECT_EQ(expected.totals[0], 42 + 5 + 111) << "a[8,12) + a[0,2) + a[3,13), scaled";
  EXPECT_EQ(expected.totals[1], 0.0f) << "an empty list sums to 0";
  EXPECT_EQ(expected.added, (std::vector<float>{5.5f, 5, 107, 1e6f + 8}));
  EXPECT_EQ(got.a, expected.a);
  EXPECT_EQ(got.totals, expected.totals);
  EXPECT_EQ(got.added, expected.added);
  EXPECT_EQ(got.profile, expected.profile);
  ASSERT_EQ(got.estimates.size(), 4u);
  ASSERT_EQ(expected.estimates.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(got.estimates[i].vertexId, expected.estimates[i].vertexId);
    EXPECT_EQ(got.estimates[i].vertexType, expected.estimates[i].vertexType);
    EXPECT_EQ(got.estimates[i].tile, expected.estimates[i].tile);
    EXPECT_EQ(got.estimates[i].fromGraph, expected.estimates[i].fromGraph);
    EXPECT_EQ(got.estimates[i].fromVertexType, expected.estimates[i].fromVertexType);
    const auto id = got.estimates[i].vertexId;
    EXPECT_EQ(got.estimates[i].fromGraph, id == list.getId()    ? std::optional<std::uint64_t>(1234)
                                          : id == scale.getId() ? std::optional<std::uint64_t>(77)
                                                                : std::nullopt)
        << "vertex " << id;
  }
}

TEST(ExecutableErrors, DamagedVertexObjectsNeverCrash) {
  // The vertex objects are the stream's last field: flipping each of its last bytes either still
  // gives a valid executable (patches within their tiles, objects apart, no field aimed into
  // vertex state) or fails with a poplar_error; the engine never runs a vertex through a bad
  // pointer.
  LoopingScale p;
  const std::string bytes = serialized(p);
  std::size_t refused = 0;
  for (std::size_t at = bytes.size() - bytes.size() / 4; at < bytes.size(); ++at) {
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ 0x5a);
    try {
      Engine engine(deserialized(damaged));
      p.run(engine);
    } catch (const poplar_error &) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0u);
}

TEST(ExecutableErrors, EmptyStreamIsNamed) {
  EXPECT_TRUE(throwsWithMessage<parse_error>([] { deserialized(""); }, {"empty"}));
}

TEST(ExecutableErrors, TruncatedStreamIsNamed) {
  LoopingScale p;
  const std::string bytes = serialized(p);
  for (std::size_t keep : {bytes.size() / 2, bytes.size() - 1, std::size_t(3)})
    EXPECT_TRUE(throwsWithMessage<parse_error>([&] { deserialized(bytes.substr(0, keep)); },
                                               {"executable", "truncated or corrupt"}))
        << "kept " << keep << " of " << bytes.size() << " bytes";
}

TEST(ExecutableErrors, AnythingElseIsNotAnExecutable) {
  EXPECT_TRUE(throwsWithMessage<parse_error>(
      [] {
        deserialized(std::string("\x0a\x03"
                                 "abc",
                                 5));
      },
      {"not a Tessera executable"}));
}

TEST(ExecutableErrors, CorruptBytesNeverCrash) {
  // Flipping bytes anywhere either still parses into a valid executable, or fails with a
  // poplar_error; it never sends the engine out of its memory.
  LoopingScale p;
  const std::string bytes = serialized(p);
  for (std::size_t at = 0; at < bytes.size(); at += 7) {
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ 0x5a);
    try {
      Engine engine(deserialized(damaged));
      engine.load(p.device);
    } catch (const poplar_error &) {
    }
  }
}

TEST(ExecutableErrors, AnotherSdkBuildIsNamedWithBothIds) {
  LoopingScale p;
  std::string bytes = serialized(p);
  const std::string ours = tessera::sdkBuildId();
  const auto at = bytes.find(ours);
  ASSERT_NE(at, std::string::npos);
  const std::string theirs(ours.size(), 'f');
  bytes.replace(at, ours.size(), theirs);
  EXPECT_TRUE(throwsWithMessage<parse_error>([&] { deserialized(bytes); },
                                             {"SDK build " + theirs, "SDK build " + ours,
                                              "SDK build " + ours + " (" + versionString() + ")"}));
}

TEST(ExecutableErrors, AnotherTargetIsNamedAtLoad) {
  LoopingScale p;
  Engine engine(deserialized(serialized(p)));
  IPUModel other;
  other.tilesPerIPU = 8;
  Device device = other.createDevice();
  EXPECT_TRUE(throwsWithMessage<runtime_error>([&] { engine.load(device); },
                                               {"compiled for target", "4 tiles", "8 tiles"}));
}

TEST(ExecutableErrors, MovedFromExecutableSaysSo) {
  LoopingScale p;
  Executable exe = compileGraph(p.graph, p.programs);
  Executable taken = std::move(exe);
  std::ostringstream out;
  EXPECT_TRUE(throwsWithMessage<runtime_error>([&] { exe.serialize(out); }, {"moved from"}));
  EXPECT_TRUE(throwsWithMessage<runtime_error>([&] { Engine e(std::move(exe)); }, {"moved from"}));
}

TEST(ExecutableErrors, AnOlderFormatIsRefusedAskingToRecompile) {
  // format_version is field 1, written first: version 4 is the bytes 0x08 0x04. Format 1 held
  // 64-bit copies and a second exchange-in list per compute set; format 2 stored every op's
  // destination offset, repeat and strides; format 3 gave each vertex object begin indices into
  // patches with absolute (tile, offset) slots.
  LoopingScale p;
  std::string bytes = serialized(p);
  ASSERT_EQ(bytes.substr(0, 2), std::string("\x08\x04", 2));
  for (const char old : {1, 2, 3}) {
    bytes[1] = old;
    EXPECT_TRUE(throwsWithMessage<parse_error>(
        [&] { deserialized(bytes); },
        {"format version " + std::to_string(int(old)), "older", "recompile"}));
  }
  bytes[1] = 5;
  EXPECT_TRUE(throwsWithMessage<parse_error>([&] { deserialized(bytes); },
                                             {"format version 5", "newer", "recompile"}));
}

TEST(ExecutableErrors, AnOlderFormatThatNoLongerParsesIsStillNamed) {
  // A format-1 stream's fields need not parse as this format's: the version is read first.
  const std::string bytes("\x08\x01\x12\x03"
                          "1.0\x22\xff",
                          9);
  EXPECT_TRUE(throwsWithMessage<parse_error>([&] { deserialized(bytes); },
                                             {"format version 1", "older", "recompile"}));
}
