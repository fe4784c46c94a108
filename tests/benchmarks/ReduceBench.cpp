// Reduction benchmark: popops::reduce summing a large FLOAT tensor to a scalar, next to its
// peers over the same bytes in the same run.
//
//  - ReduceSum/Mi:N/hostThreads:T: N Mi floats mapped linearly over the default IPUModel
//    (1472 tiles); time per engine.run() of reduce(t, all dims, ADD) (both compute sets).
//  - HighwaySum/Mi:N: a hand-written Highway loop (four vector accumulators) summing the same
//    bytes on one host thread: the goal is ReduceSum >= 0.8x its bandwidth.
//  - Memcpy/Mi:N: std::memcpy of the same bytes, for scale.
//
// main() prints the settings and, after the table, one summary line per ReduceSum run.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ReduceBench.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace reduce_bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

float HandWrittenSum(const float *HWY_RESTRICT x, std::size_t n) {
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  std::size_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    a0 = hn::Add(a0, hn::LoadU(d, x + i));
    a1 = hn::Add(a1, hn::LoadU(d, x + i + lanes));
    a2 = hn::Add(a2, hn::LoadU(d, x + i + 2 * lanes));
    a3 = hn::Add(a3, hn::LoadU(d, x + i + 3 * lanes));
  }
  float s = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
  for (; i < n; ++i)
    s += x[i];
  return s;
}

} // namespace HWY_NAMESPACE
} // namespace reduce_bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>
#include <poplar/Version.hpp>
#include <popops/Reduce.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

namespace reduce_bench {
HWY_EXPORT(HandWrittenSum);

namespace {

using namespace poplar;
using namespace poplar::program;

constexpr double kGoalRatio = 0.8;
constexpr std::size_t kMi = std::size_t(1) << 20;

/// The host buffer the peers read: N Mi floats, built once per size.
const std::vector<float> &hostData(std::size_t mi) {
  static std::map<std::size_t, std::vector<float>> cache;
  auto &v = cache[mi];
  if (v.empty()) {
    v.resize(mi * kMi);
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(i % 1000) * 1e-3f;
  }
  return v;
}

struct LoadedReduce {
  Device device;
  Graph graph;
  std::unique_ptr<Engine> engine;
  explicit LoadedReduce(Device d) : device(std::move(d)), graph(device.getTarget()) {}
};

/// Built once per (size, threads) and kept: Google Benchmark calls the function repeatedly.
LoadedReduce &reduceEngine(std::size_t mi, unsigned hostThreads) {
  static std::map<std::pair<std::size_t, unsigned>, std::unique_ptr<LoadedReduce>> cache;
  auto &slot = cache[{mi, hostThreads}];
  if (!slot) {
    IPUModel model;
    slot = std::make_unique<LoadedReduce>(model.createDevice());
    Graph &g = slot->graph;
    popops::addCodelets(g);
    Tensor t = g.addVariable(FLOAT, {mi * kMi}, "t");
    poputil::mapTensorLinearly(g, t);
    g.createHostWrite("t", t);
    Sequence prog;
    Tensor sum = popops::reduce(g, t, {0}, popops::Operation::ADD, prog, "sum");
    g.createHostRead("sum", sum);
    OptionFlags opts;
    if (hostThreads != 0)
      opts.set("target.hostThreads", std::to_string(hostThreads));
    slot->engine = std::make_unique<Engine>(g, prog, opts);
    slot->engine->load(slot->device);
    const auto &data = hostData(mi);
    slot->engine->writeTensor("t", data.data(), data.data() + data.size());
  }
  return *slot;
}

void BM_ReduceSum(benchmark::State &state) {
  const auto mi = static_cast<std::size_t>(state.range(0));
  auto &e = reduceEngine(mi, static_cast<unsigned>(state.range(1)));
  for (auto _ : state)
    e.engine->run();
  float result = 0;
  e.engine->readTensor("sum", &result, &result + 1);
  benchmark::DoNotOptimize(result);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(mi * kMi * sizeof(float)));
}

void BM_HighwaySum(benchmark::State &state) {
  const auto mi = static_cast<std::size_t>(state.range(0));
  const auto &data = hostData(mi);
  const auto sum = HWY_DYNAMIC_DISPATCH(HandWrittenSum);
  for (auto _ : state)
    benchmark::DoNotOptimize(sum(data.data(), data.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(data.size() * sizeof(float)));
}

void BM_Memcpy(benchmark::State &state) {
  const auto mi = static_cast<std::size_t>(state.range(0));
  const auto &data = hostData(mi);
  std::vector<float> dst(data.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), data.data(), data.size() * sizeof(float));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(data.size() * sizeof(float)));
}

BENCHMARK(BM_ReduceSum)
    ->ArgNames({"Mi", "hostThreads"})
    ->Args({16, 0})
    ->Args({16, 1})
    ->Args({1, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HighwaySum)
    ->ArgName("Mi")
    ->Arg(16)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Memcpy)->ArgName("Mi")->Arg(16)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);

class RecordingReporter : public benchmark::ConsoleReporter {
public:
  using ConsoleReporter::ConsoleReporter;
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const auto &r : runs)
      if (!r.error_occurred && r.run_type == Run::RT_Iteration)
        runs_[r.benchmark_name()] = r;
    ConsoleReporter::ReportRuns(runs);
  }
  const std::map<std::string, Run> &runs() const { return runs_; }

private:
  std::map<std::string, Run> runs_;
};

double bytesPerSecond(const benchmark::BenchmarkReporter::Run &r) {
  auto it = r.counters.find("bytes_per_second");
  return it == r.counters.end() ? 0.0 : it->second.value;
}

/// "Mi:16" from "BM_ReduceSum/Mi:16/hostThreads:0/real_time".
std::string sizeTag(const std::string &name) {
  const auto b = name.find("Mi:");
  return b == std::string::npos ? "" : name.substr(b, name.find('/', b) - b);
}

void printSummary(const std::map<std::string, benchmark::BenchmarkReporter::Run> &runs) {
  std::printf("\n== summary (Tessera %s, %u hardware threads)\n", versionNumber().c_str(),
              std::max(1u, std::thread::hardware_concurrency()));
  for (const auto &[name, r] : runs) {
    if (name.rfind("BM_ReduceSum", 0) != 0)
      continue;
    const std::string tag = sizeTag(name);
    double hwy = 0, mem = 0;
    for (const auto &[other, o] : runs) {
      if (sizeTag(other) != tag)
        continue;
      if (other.rfind("BM_HighwaySum", 0) == 0)
        hwy = bytesPerSecond(o);
      if (other.rfind("BM_Memcpy", 0) == 0)
        mem = bytesPerSecond(o);
    }
    const double bps = bytesPerSecond(r);
    if (hwy > 0) {
      std::printf("reduce/highway  %-44s %.2f GB/s / %.2f GB/s = %.2fx (goal >= %.1fx: %s)",
                  name.c_str(), bps / 1e9, hwy / 1e9, bps / hwy, kGoalRatio,
                  bps / hwy >= kGoalRatio ? "met" : "MISSED");
      if (mem > 0)
        std::printf("; memcpy %.2f GB/s, reduce/memcpy = %.2fx", mem / 1e9, bps / mem);
      std::printf("\n");
    } else {
      std::printf("reduce          %-44s %.2f GB/s (run BM_HighwaySum too for the ratio)\n",
                  name.c_str(), bps / 1e9);
    }
  }
}

} // namespace
} // namespace reduce_bench

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  const poplar::IPUModel model;
  std::printf("%s | IPUModel %s: %u tiles, %u KiB/tile | host threads: %u (hostThreads:0 = "
              "engine default)\n",
              poplar::versionString().c_str(), model.IPUVersion.c_str(), model.tilesPerIPU,
              model.memoryBytesPerTile / 1024, std::max(1u, std::thread::hardware_concurrency()));
  std::fflush(stdout);
  reduce_bench::RecordingReporter reporter(benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reduce_bench::printSummary(reporter.runs());
  benchmark::Shutdown();
  return 0;
}
#endif // HWY_ONCE
