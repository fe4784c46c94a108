// Results never depend on the number of host threads: the same graph run with
// target.hostThreads = 1, 2 and 3 gives bit-identical float results (sums whose value depends
// on the order of additions), equal to a host loop adding in the documented order.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include "EngineErrorMatchers.hpp"
#include "TestVertices.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

constexpr unsigned kTiles = 16;
constexpr std::size_t kPerTile = 257;

/// Values of very different magnitudes and signs, so float sums depend on the order.
std::vector<float> awkwardValues(std::size_t n) {
  std::vector<float> v(n);
  std::uint32_t s = 12345;
  for (std::size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    const float mantissa = static_cast<float>(s >> 8) / 16777216.0f; // [0, 1)
    const int e = static_cast<int>((s >> 4) % 9) - 3;                // 1e-3 .. 1e5
    float x = mantissa;
    for (int k = 0; k < e; ++k)
      x *= 10;
    for (int k = 0; k > e; --k)
      x /= 10;
    v[i] = (s & 1) ? -x : x;
  }
  return v;
}

struct Results {
  std::vector<float> partials;
  float total = 0;
  float listTotal = 0;
  std::vector<float> workerData;
  std::vector<float> copied;
};

Results runWithThreads(unsigned threads, const std::vector<float> &data) {
  testvertices::registerTestVertices();
  Device device = enginetest::smallDevice(kTiles, 4);
  Graph graph(device.getTarget());
  Tensor in = graph.addVariable(FLOAT, {kTiles, kPerTile}, "in");
  Tensor partials = graph.addVariable(FLOAT, {kTiles}, "partials");
  Tensor total = graph.addVariable(FLOAT, {}, "total");
  Tensor listTotal = graph.addVariable(FLOAT, {}, "listTotal");
  Tensor copied = graph.addVariable(FLOAT, {kTiles, kPerTile}, "copied");
  ComputeSet tileSums = graph.addComputeSet("tileSums");
  ComputeSet reduce = graph.addComputeSet("reduce");
  ComputeSet workers = graph.addComputeSet("workers");
  std::vector<Tensor> rowsReversed;
  for (unsigned t = 0; t < kTiles; ++t) {
    graph.setTileMapping(in[t], t);
    graph.setTileMapping(partials[t], t);
    graph.setTileMapping(copied[t], kTiles - 1 - t);
    VertexRef v = graph.addVertex(tileSums, "Sum", {{"in", in[t]}, {"out", partials[t]}});
    graph.setTileMapping(v, t);
    VertexRef w = graph.addVertex(workers, "WorkerAdd", {{"data", in[t]}});
    graph.setTileMapping(w, t);
    rowsReversed.push_back(in[kTiles - 1 - t]);
  }
  graph.setTileMapping(total, 5);
  graph.setTileMapping(listTotal, 9);
  VertexRef r = graph.addVertex(reduce, "Sum", {{"in", partials}, {"out", total}});
  graph.setTileMapping(r, 5);
  VertexRef l = graph.addVertex(reduce, "SumList", {{"in", rowsReversed}, {"out", listTotal}});
  graph.setTileMapping(l, 9);
  graph.createHostWrite("in", in);
  graph.createHostRead("in", in);
  graph.createHostRead("partials", partials);
  graph.createHostRead("total", total);
  graph.createHostRead("listTotal", listTotal);
  graph.createHostRead("copied", copied);
  Program prog = Sequence{Execute(tileSums), Execute(reduce),
                          Copy(in.transpose().flatten().reshape({kTiles, kPerTile}), copied),
                          Execute(workers)};
  Engine engine(graph, prog, {{"target.hostThreads", std::to_string(threads)}});
  EXPECT_EQ(engine.getNumHostThreads(), threads);
  engine.load(device);
  engine.writeTensor("in", data.data(), data.data() + data.size());
  engine.run();
  Results res;
  res.partials.resize(kTiles);
  res.workerData.resize(data.size());
  res.copied.resize(data.size());
  engine.readTensor("partials", res.partials.data(), res.partials.data() + kTiles);
  engine.readTensor("total", &res.total, &res.total + 1);
  engine.readTensor("listTotal", &res.listTotal, &res.listTotal + 1);
  engine.readTensor("in", res.workerData.data(), res.workerData.data() + data.size());
  engine.readTensor("copied", res.copied.data(), res.copied.data() + data.size());
  return res;
}

bool sameBits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}
bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

} // namespace

TEST(Determinism, SumsAreBitIdenticalForOneTwoAndThreeThreads) {
  const std::vector<float> data = awkwardValues(kTiles * kPerTile);
  // Host reference in the vertices' order.
  std::vector<float> partials(kTiles, 0);
  for (unsigned t = 0; t < kTiles; ++t) {
    float s = 0;
    for (std::size_t i = 0; i < kPerTile; ++i)
      s += data[t * kPerTile + i];
    partials[t] = s;
  }
  float total = 0;
  for (float p : partials)
    total += p;
  float listTotal = 0;
  for (unsigned t = 0; t < kTiles; ++t)
    for (std::size_t i = 0; i < kPerTile; ++i)
      listTotal += data[(kTiles - 1 - t) * kPerTile + i];
  // The order matters for these values: the forward and list orders disagree.
  float forward = 0;
  for (float x : data)
    forward += x;
  ASSERT_FALSE(sameBits(forward, listTotal)) << "test data does not exercise ordering";

  for (unsigned threads : {1u, 2u, 3u}) {
    SCOPED_TRACE("hostThreads=" + std::to_string(threads));
    Results r = runWithThreads(threads, data);
    EXPECT_TRUE(sameBits(r.partials, partials));
    EXPECT_TRUE(sameBits(r.total, total));
    EXPECT_TRUE(sameBits(r.listTotal, listTotal));
  }
}

TEST(Determinism, WorkersAndCopiesAreIdenticalAcrossThreadCounts) {
  const std::vector<float> data = awkwardValues(kTiles * kPerTile);
  std::vector<float> afterWorkers = data;
  for (unsigned t = 0; t < kTiles; ++t)
    for (std::size_t i = 0; i < kPerTile; ++i)
      afterWorkers[t * kPerTile + i] += static_cast<float>(i % 4 + 1);
  std::vector<float> copied(data.size());
  for (std::size_t k = 0; k < data.size(); ++k) {
    const std::size_t col = k / kTiles, row = k % kTiles; // transpose().flatten() order
    copied[k] = data[row * kPerTile + col];
  }
  const Results one = runWithThreads(1, data);
  EXPECT_TRUE(sameBits(one.workerData, afterWorkers));
  EXPECT_TRUE(sameBits(one.copied, copied));
  for (unsigned threads : {2u, 3u}) {
    SCOPED_TRACE("hostThreads=" + std::to_string(threads));
    const Results r = runWithThreads(threads, data);
    EXPECT_TRUE(sameBits(r.workerData, one.workerData));
    EXPECT_TRUE(sameBits(r.copied, one.copied));
    EXPECT_TRUE(sameBits(r.total, one.total));
  }
}

TEST(Determinism, TwoEnginesWithThreeThreadsAgree) {
  const std::vector<float> data = awkwardValues(kTiles * kPerTile);
  const Results a = runWithThreads(3, data);
  const Results b = runWithThreads(3, data);
  EXPECT_TRUE(sameBits(a.partials, b.partials));
  EXPECT_TRUE(sameBits(a.listTotal, b.listTotal));
}
