// The codelet environment Poplar's runtime gives vertex code: printf through <print.h> (in tile,
// vertex and call order, whatever the host thread count), the IPU vector types of <ipudef.h>,
// the other runtime headers, the accessors of fields, and plain members left unset.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Vertex.hpp>
#include <tessera/testing/RunVertex.hpp>

#include "CodeletTestSupport.hpp"

using namespace poplar;
using namespace poplar::program;
using ::testing::HasSubstr;

namespace {

constexpr unsigned kTiles = 4;

/// Runs PrintTwice vertices on kTiles tiles (three per tile, added in a scrambled tile order)
/// followed by a PrintTensor, with `hostThreads` threads; returns what was printed.
std::string printingRun(unsigned hostThreads, bool tileByTile = false) {
  Device device = codelettest::device(kTiles);
  Graph graph(device.getTarget());
  graph.addCodelets(codelettest::fixture("Printing.cpp"));
  Tensor data = graph.addVariable(FLOAT, {kTiles, 2}, "data");
  std::vector<float> init;
  for (unsigned t = 0; t < kTiles; ++t)
    init.insert(init.end(), {float(t) + 0.5f, 0.0f});
  graph.setInitialValue(data, ArrayRef<float>(init));
  Sequence prog;
  const unsigned sets = tileByTile ? 2 : 1;
  for (unsigned s = 0; s < sets; ++s) {
    ComputeSet cs = graph.addComputeSet("print" + std::to_string(s));
    // Vertex ids say where each should print: tile * 10 + its rank on the tile (+100 per set).
    for (unsigned rank = 0; rank < 3; ++rank)
      for (unsigned t : {2u, 0u, 3u, 1u}) {
        VertexRef v = graph.addVertex(cs, "PrintTwice", {{"in", data[t]}});
        graph.setInitialValue(v["id"], 100 * s + 10 * t + rank);
        graph.setTileMapping(v, t);
      }
    prog.add(Execute(cs));
  }
  for (unsigned t = 0; t < kTiles; ++t)
    graph.setTileMapping(data[t], t);
  prog.add(PrintTensor("data", data.slice(0, 1, 1).flatten()));
  Engine engine(graph, prog, {{"target.hostThreads", std::to_string(hostThreads)}});
  std::ostringstream out;
  engine.setPrintStream(out);
  engine.load(device);
  engine.run();
  return out.str();
}

/// What the vertices of printingRun must print (its PrintTensor line follows): computed from
/// the order Poplar documents, not from a run.
std::string expectedPrinting(bool tileByTile) {
  std::ostringstream os;
  for (unsigned s = 0; s < (tileByTile ? 2u : 1u); ++s)
    for (unsigned t = 0; t < kTiles; ++t)
      for (unsigned rank = 0; rank < 3; ++rank) {
        const unsigned id = 100 * s + 10 * t + rank;
        os << "vertex " << id << " first " << t << ".5\n";
        os << "vertex " << id << " again, 2 elements\n";
      }
  return os.str();
}

} // namespace

/// `printed` is `vertices` followed by the PrintTensor step's one line.
void expectVertexLinesThenPrintTensor(const std::string &printed, const std::string &vertices) {
  ASSERT_GE(printed.size(), vertices.size()) << printed;
  EXPECT_EQ(printed.substr(0, vertices.size()), vertices);
  const std::string rest = printed.substr(vertices.size());
  EXPECT_THAT(rest, ::testing::StartsWith("data: ["));
  EXPECT_THAT(rest, ::testing::HasSubstr("3.5"));
  EXPECT_EQ(std::count(rest.begin(), rest.end(), '\n'), 1) << rest;
}

TEST(CodeletEnvironment, PrintfGoesToThePrintStreamInTileVertexAndCallOrder) {
  const std::string one = printingRun(1);
  expectVertexLinesThenPrintTensor(one, expectedPrinting(false));
  EXPECT_EQ(printingRun(4), one) << "the host thread count must not change the output";
}

TEST(CodeletEnvironment, PrintfFromConsecutiveComputeSetsKeepsTheirOrder) {
  // Two compute sets over the same tiles may run tile by tile; the output is still set by set.
  const std::string one = printingRun(1, true);
  expectVertexLinesThenPrintTensor(one, expectedPrinting(true));
  EXPECT_EQ(printingRun(4, true), one);
}

TEST(CodeletEnvironment, PrintfFromEveryWorkerOfAMultiVertex) {
  Device device = codelettest::device(1);
  Graph graph(device.getTarget());
  graph.addCodelets(codelettest::fixture("Printing.cpp"));
  Tensor x = graph.addConstant<float>(FLOAT, {}, 2.5f, "x");
  graph.setTileMapping(x, 0);
  ComputeSet cs = graph.addComputeSet("workers");
  VertexRef v = graph.addVertex(cs, "PrintWorkers", {{"in", x}});
  graph.setTileMapping(v, 0);
  Engine engine(graph, Execute(cs), {{"target.hostThreads", "3"}});
  std::ostringstream out;
  engine.setPrintTensorStream(out); // the same stream as setPrintStream
  engine.load(device);
  engine.run();
  std::string expected;
  for (unsigned w = 0; w < 6; ++w)
    expected += "worker " + std::to_string(w) + " of 6 sees 2.5\n";
  EXPECT_EQ(out.str(), expected);
}

TEST(CodeletEnvironment, VectorTypesComputeElementWise) {
  const auto r =
      tessera::testing::runVertex("IntegerVectors", {{"out", std::vector<int>(43)}, {"base", 7}},
                                  codelettest::fixtureOptions("VectorTypes.cpp"));
  // Host arithmetic on plain ints, element by element.
  const int b = 7;
  std::vector<int> expected = {b * 3 - 1, (b + 1) * 3 - 2};
  for (int e : {b, -b, 7, -7})
    expected.push_back(e / 2 + e % 3);
  expected.push_back(int((unsigned(b) << 2) | 1u));
  expected.push_back(int((5u << 2) | 1u));
  for (int e : {1, 2, 3, 4})
    expected.push_back(e * e);
  expected.insert(expected.end(), {b * b, 4});
  expected.insert(expected.end(), {1 - 4, 2 - 3, 3 - 2, 4 - 1});
  expected.insert(expected.end(), {(60000 + 5000) % 65536, 2});
  expected.insert(expected.end(), {1, 2, 30, 4});
  expected.insert(expected.end(), {'a' + 1, 'b' + 1});
  expected.insert(expected.end(), {-1, 2, -3, 4});
  expected.insert(expected.end(), {(200 + 100) % 256, 200});
  expected.insert(expected.end(), {2, 4, 6, 8});
  expected.insert(expected.end(), {3, 4});  // float2: 1.5 * 2, element 1 set to 4
  expected.insert(expected.end(), {9, 25}); // half2: 1.5², 2.5² (times 4)
  expected.push_back(8 + 16 + 4 + 8);       // sizes of float2, float4, half2, half4
  expected.push_back(8 + 8);                // alignments of float2, half4
  expected.push_back(6);                    // CTXT_WORKERS
  ASSERT_EQ(expected.size(), 43u);
  EXPECT_EQ(r.vector<int>("out"), expected);
}

TEST(CodeletEnvironment, ReinterpretingAsFloat2MatchesTheScalarLoop) {
  for (std::size_t n : {1u, 2u, 7u, 64u, 101u}) {
    std::vector<float> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = 0.25f * float(i) - 3.0f;
      b[i] = 1.5f - 0.125f * float(i % 13);
    }
    const auto run = [&](const char *type) {
      return tessera::testing::runVertex(
                 type, {{"a", a}, {"b", b}, {"out", std::vector<float>(n)}, {"c", 0.75f}},
                 codelettest::fixtureOptions("VectorTypes.cpp"))
          .vector<float>("out");
    };
    const auto vectorised = run("MulAddFloat2");
    const auto scalar = run("MulAddScalar");
    ASSERT_EQ(vectorised.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(vectorised[i], scalar[i]) << "n=" << n << " i=" << i;
      EXPECT_EQ(vectorised[i], a[i] * b[i] + 0.75f) << "n=" << n << " i=" << i;
    }
  }
}

TEST(CodeletEnvironment, Float4AndHalf4ReinterpretTensorData) {
  Device device = codelettest::device(1);
  Graph graph(device.getTarget());
  graph.addCodelets(codelettest::fixture("VectorTypes.cpp"));
  constexpr std::size_t n = 12;
  std::vector<float> f(n);
  std::vector<half> h(n);
  for (std::size_t i = 0; i < n; ++i) {
    f[i] = 0.5f * float(i) - 2.0f; // exact in half as well
    h[i] = half(f[i]);
  }
  // A slice starting 8 bytes into each variable: still aligned for the vector loads.
  Tensor fin = graph.addVariable(FLOAT, {n + 2}, "fin");
  Tensor fout = graph.addVariable(FLOAT, {n}, "fout");
  Tensor hin = graph.addVariable(HALF, {n + 4}, "hin");
  Tensor hout = graph.addVariable(HALF, {n}, "hout");
  for (const Tensor &t : {fin, fout, hin, hout})
    graph.setTileMapping(t, 0);
  std::vector<float> fInit(2, 0.0f);
  fInit.insert(fInit.end(), f.begin(), f.end());
  std::vector<half> hInit(4, half(0.0f));
  hInit.insert(hInit.end(), h.begin(), h.end());
  graph.setInitialValue(fin, ArrayRef<float>(fInit));
  graph.setInitialValue(hin, ArrayRef<half>(hInit));
  ComputeSet cs = graph.addComputeSet("vectors");
  VertexRef vf =
      graph.addVertex(cs, "SquareMinusFloat4", {{"in", fin.slice(2, n + 2)}, {"out", fout}});
  VertexRef vh =
      graph.addVertex(cs, "SquareMinusHalf4", {{"in", hin.slice(4, n + 4)}, {"out", hout}});
  graph.setTileMapping(vf, 0);
  graph.setTileMapping(vh, 0);
  graph.createHostRead("fout", fout);
  graph.createHostRead("hout", hout);
  Engine engine(graph, Execute(cs));
  engine.load(device);
  engine.run();
  std::vector<float> fr(n);
  std::vector<half> hr(n);
  engine.readTensor("fout", fr.data(), fr.data() + n);
  engine.readTensor("hout", hr.data(), hr.data() + n);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(fr[i], f[i] * f[i] - f[i]) << i;
    EXPECT_EQ(float(hr[i]), f[i] * f[i] - f[i]) << i; // exact in half for these values
  }
}

TEST(CodeletEnvironment, TemplateVerticesWithAlignedVectors) {
  const auto r =
      tessera::testing::runVertex("Negate<float>", {{"data", std::vector<float>{1, -2, 3}}},
                                  codelettest::fixtureOptions("VectorTypes.cpp"));
  EXPECT_EQ(r.vector<float>("data"), (std::vector<float>{-1, 2, -3}));
}

namespace {
/// Sets POPLAR_ENGINE_OPTIONS for one scope (restoring what was there). The unset-member warning
/// is a compile-time diagnostic: an executable already in the user's executable cache (from an
/// earlier run of this test) is loaded without compiling, so the test compiles afresh.
class ScopedEngineOptions {
public:
  explicit ScopedEngineOptions(const char *json) {
    if (const char *old = std::getenv("POPLAR_ENGINE_OPTIONS"))
      previous_ = old;
    ::setenv("POPLAR_ENGINE_OPTIONS", json, 1);
  }
  ~ScopedEngineOptions() {
    if (previous_)
      ::setenv("POPLAR_ENGINE_OPTIONS", previous_->c_str(), 1);
    else
      ::unsetenv("POPLAR_ENGINE_OPTIONS");
  }

private:
  std::optional<std::string> previous_;
};
} // namespace

TEST(CodeletEnvironment, UnsetPlainMembersRunAsZeroAndWarnOnce) {
  const ScopedEngineOptions noCache(R"({"executableCache.enable": "false"})");
  const auto run = [] {
    return tessera::testing::runVertex("AddBias", {{"x", std::vector<float>{1, 2}}},
                                       codelettest::fixtureOptions("UnsetMember.cpp"))
        .vector<float>("x");
  };
  ::testing::internal::CaptureStderr();
  const auto first = run();
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(first, (std::vector<float>{1, 2})) << "bias, count and weights.size() all zero";
  for (const char *member : {"'bias'", "'count'", "'weights'"})
    EXPECT_THAT(warnings, HasSubstr(std::string("member ") + member +
                                    " of vertex type 'AddBias'"
                                    " is never given a value"));
  EXPECT_THAT(warnings, HasSubstr("setInitialValue"));
  EXPECT_THAT(warnings, HasSubstr("run with it as 0"));
  EXPECT_THAT(warnings, HasSubstr("run with it empty"));

  ::testing::internal::CaptureStderr();
  EXPECT_EQ(run(), first);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "warned once per type and member";
}

TEST(CodeletEnvironment, SetPlainMembersAreUsed) {
  const auto r = tessera::testing::runVertex("AddBias",
                                             {{"x", std::vector<float>{1, 2}},
                                              {"bias", 0.5f},
                                              {"count", 2u},
                                              {"weights", std::vector<float>{9, 9, 9}}},
                                             codelettest::fixtureOptions("UnsetMember.cpp"));
  EXPECT_EQ(r.vector<float>("x"), (std::vector<float>{6.5f, 7.5f}));
}

// The documented accessors of fields, checked in the test binary itself (Vertex.hpp is a plain
// header, so a vertex object can be filled by hand).
TEST(CodeletEnvironment, FieldAccessors) {
  struct Pair {
    int first, second;
  };
  Pair pairs[2] = {{1, 2}, {3, 4}};
  Input<Vector<Pair>> in;
  in.data_ = pairs;
  in.size_ = 2;
  EXPECT_EQ(in->second, 2) << "operator-> reaches the first element";
  EXPECT_EQ((*in).first, 1);
  EXPECT_EQ(in[1].first, 3);

  float a[3] = {1, 2, 3}, b[2] = {4, 5};
  detail::Span<const float> runs[2];
  runs[0].data_ = a;
  runs[0].size_ = 3;
  runs[1].data_ = b;
  runs[1].size_ = 2;
  Input<VectorList<float>> lists;
  lists.data_ = runs;
  lists.size_ = 2;
  EXPECT_EQ(lists->size(), 3u) << "operator-> reaches the first run";
  EXPECT_EQ((*lists)[2], 3.0f);
  EXPECT_EQ(lists[1][1], 5.0f);
  float total = 0;
  for (auto it = lists.cbegin(); it != lists.cend(); ++it)
    for (float x : *it)
      total += x;
  EXPECT_EQ(total, 15.0f);
  EXPECT_EQ(lists.data(), runs);
}
