// Codelet files compiled through Graph::addCodelets and run in real graphs.
#include <chrono>
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poputil/TileMapping.hpp>
#include <tessera/testing/RunVertex.hpp>

#include "CodeletTestSupport.hpp"

using namespace poplar;
using namespace poplar::program;
using codelettest::fixture;

namespace {

/// y = A x with one DotProductVertex per row, rows spread over `tiles` tiles.
std::vector<float> matVec(const std::vector<float> &a, const std::vector<float> &x,
                          unsigned tiles) {
  const std::size_t cols = x.size(), rows = a.size() / cols;
  const Device dev = codelettest::device(tiles);
  Graph graph(dev.getTarget());
  graph.addCodelets(fixture("DotProduct.cpp"));
  Tensor m = graph.addVariable(FLOAT, {rows, cols}, "matrix");
  Tensor v = graph.addVariable(FLOAT, {cols}, "x");
  Tensor y = graph.addVariable(FLOAT, {rows}, "y");
  poputil::mapTensorLinearly(graph, v);
  ComputeSet cs = graph.addComputeSet("dot");
  for (std::size_t r = 0; r < rows; ++r) {
    const unsigned tile = static_cast<unsigned>(r % tiles);
    graph.setTileMapping(m[r], tile);
    graph.setTileMapping(y[r], tile);
    VertexRef vx = graph.addVertex(cs, "DotProductVertex", {{"a", m[r]}, {"b", v}, {"out", y[r]}});
    graph.setTileMapping(vx, tile);
  }
  graph.createHostWrite("m", m);
  graph.createHostWrite("x", v);
  graph.createHostRead("y", y);
  Engine engine(graph, Execute(cs));
  engine.load(dev);
  engine.writeTensor("m", a.data(), a.data() + a.size());
  engine.writeTensor("x", x.data(), x.data() + x.size());
  engine.run();
  std::vector<float> out(rows);
  engine.readTensor("y", out.data(), out.data() + rows);
  return out;
}

} // namespace

TEST(CodeletCompile, TutorialDotProductRunsAcrossTiles) {
  const auto start = std::chrono::steady_clock::now();
  {
    const Device dev = codelettest::device();
    Graph g(dev.getTarget());
    EXPECT_TRUE(g.addCodelets(fixture("DotProduct.cpp")));
    EXPECT_FALSE(g.addCodelets(fixture("DotProduct.cpp"))) << "the same codelets twice";
  }
  std::cout << "[ info ] first addCodelets (compile) of DotProduct.cpp: "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
            << " s\n";
  // Small integers: every product and sum is exact in float.
  const std::size_t rows = 7, cols = 5;
  std::vector<float> a(rows * cols), x(cols);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(static_cast<int>(i % 9) - 4);
  for (std::size_t j = 0; j < cols; ++j)
    x[j] = static_cast<float>(j + 1);
  const auto y = matVec(a, x, 3);
  for (std::size_t r = 0; r < rows; ++r) {
    float expect = 0;
    for (std::size_t c = 0; c < cols; ++c)
      expect += a[r * cols + c] * x[c];
    EXPECT_EQ(y[r], expect) << "row " << r;
  }
}

TEST(CodeletCompile, MultiVertexRunsEveryWorker) {
  const Device dev = codelettest::device(2);
  Graph graph(dev.getTarget());
  graph.addCodelets(fixture("WorkerScale.cpp"));
  const std::size_t n = 20;
  Tensor in = graph.addVariable(FLOAT, {2, n}, "in");
  Tensor out = graph.addVariable(FLOAT, {2, n}, "out");
  Tensor worker = graph.addVariable(UNSIGNED_INT, {2, n}, "worker");
  ComputeSet cs = graph.addComputeSet("scale");
  for (unsigned t = 0; t < 2; ++t) {
    graph.setTileMapping(in[t], t);
    graph.setTileMapping(out[t], t);
    graph.setTileMapping(worker[t], t);
    VertexRef v =
        graph.addVertex(cs, "WorkerScale", {{"in", in[t]}, {"out", out[t]}, {"worker", worker[t]}});
    graph.setInitialValue(v["factor"], 3.0f + static_cast<float>(t));
    graph.setTileMapping(v, t);
  }
  std::vector<float> host(2 * n);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<float>(i);
  graph.setInitialValue(in, ArrayRef<float>(host));
  graph.createHostRead("out", out);
  graph.createHostRead("worker", worker);
  Engine engine(graph, Execute(cs));
  engine.load(dev);
  engine.run();
  std::vector<float> o(2 * n);
  std::vector<unsigned> w(2 * n);
  engine.readTensor("out", o.data(), o.data() + o.size());
  engine.readTensor("worker", w.data(), w.data() + w.size());
  const unsigned workers = dev.getTarget().getNumWorkerContexts();
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(o[t * n + i], host[t * n + i] * (3.0f + static_cast<float>(t)));
      EXPECT_EQ(w[t * n + i], i % workers) << "element " << i << " of tile " << t;
    }
}

TEST(CodeletCompile, StringStreamSourceWithFlagsAndCompileOutput) {
  std::stringstream src;
  src << "#include <poplar/Vertex.hpp>\n"
         "class AddConstant : public poplar::Vertex {\n"
         "public:\n"
         "  poplar::InOut<poplar::Vector<int>> data;\n"
         "  void compute() { for (auto &x : data) x += ADDEND; }\n"
         "};\n";
  const Device dev = codelettest::device();
  Graph graph(dev.getTarget());
  std::ostringstream diagnostics;
  graph.addCodelets(src, "-DADDEND=7 -Wall", diagnostics);
  Tensor t = graph.addVariable(INT, {4}, "t");
  graph.setTileMapping(t, 0);
  graph.setInitialValue(t, ArrayRef<int>({1, 2, 3, 4}));
  ComputeSet cs = graph.addComputeSet("add");
  graph.setTileMapping(graph.addVertex(cs, "AddConstant", {{"data", t}}), 0);
  graph.createHostRead("t", t);
  Engine engine(graph, Execute(cs));
  engine.load(dev);
  engine.run();
  std::vector<int> out(4);
  engine.readTensor("t", out.data(), out.data() + 4);
  EXPECT_EQ(out, (std::vector<int>{8, 9, 10, 11}));
}

TEST(CodeletCompile, HighwayInsideACodelet) {
  const Device dev = codelettest::device();
  Graph graph(dev.getTarget());
  graph.addCodelets(fixture("HighwayScale.cpp"));
  const std::size_t n = 37; // not a multiple of any vector width: exercises the tail
  Tensor in = graph.addVariable(FLOAT, {n}, "in");
  Tensor out = graph.addVariable(FLOAT, {n}, "out");
  Tensor lanes = graph.addVariable(UNSIGNED_INT, {1}, "lanes");
  for (const auto &t : {in, out, lanes})
    graph.setTileMapping(t, 0);
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i)
    host[i] = static_cast<float>(i) - 10.0f;
  graph.setInitialValue(in, ArrayRef<float>(host));
  ComputeSet cs = graph.addComputeSet("hwy");
  VertexRef v = graph.addVertex(cs, "HighwayScale", {{"in", in}, {"out", out}, {"lanes", lanes}});
  graph.setInitialValue(v["factor"], 0.5f);
  graph.setTileMapping(v, 0);
  graph.createHostRead("out", out);
  graph.createHostRead("lanes", lanes);
  Engine engine(graph, Execute(cs));
  engine.load(dev);
  engine.run();
  std::vector<float> o(n);
  unsigned lanesUsed = 0;
  engine.readTensor("out", o.data(), o.data() + n);
  engine.readTensor("lanes", &lanesUsed, &lanesUsed + 1);
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_EQ(o[i], host[i] * 0.5f) << i;
  EXPECT_GE(lanesUsed, 1u);
  std::cout << "[ info ] Highway codelet used " << lanesUsed << " float lanes\n";
}

TEST(CodeletCompile, HighwayWithHostTargetFlags) {
  // Target flags choose the statically dispatched Highway target (SIMD instead of scalar).
  // (Debian's Highway 1.0.3 rejects -march=native on CPUs newer than it knows.)
  if (!__builtin_cpu_supports("avx2"))
    GTEST_SKIP() << "the host has no AVX2";
  const std::vector<float> in = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  tessera::testing::RunVertexOptions options;
  options.codeletFiles = {fixture("HighwayScale.cpp")};
  options.compileFlags = "-march=haswell";
  const auto r = tessera::testing::runVertex(
      "HighwayScale",
      {{"in", in}, {"out", std::vector<float>(in.size())}, {"lanes", 0u}, {"factor", 2.0f}},
      options);
  for (std::size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ(r.vector<float>("out")[i], 2 * in[i]);
  EXPECT_GE(r.scalar<unsigned>("lanes"), 4u) << "a SIMD target, not scalar";
  std::cout << "[ info ] Highway codelet with -march=haswell used " << r.scalar<unsigned>("lanes")
            << " float lanes\n";
}
