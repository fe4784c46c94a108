// Engine benchmarks: the cost of running a vertex, and exchange bandwidth next to its peer,
// host memcpy.
//
//  - EngineOverhead: one compute set of 1472 tiles × 6 `Empty` vertices; time per
//    `engine.run()`, reported as ns_per_vertex (goal < 50 ns).
//  - Exchange: a Copy of a 64 MiB float tensor mapped linearly over 1472 tiles to a second one
//    whose blocks sit one tile further on, so every byte crosses tiles (goal ≥ 0.7× memcpy).
//  - Memcpy: the peer figure, std::memcpy of the same 64 MiB between two host buffers.
//
// main() prints the settings and, after the table, one summary line per goal.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>
#include <poplar/Version.hpp>
#include <poplar/Vertex.hpp>
#include <poputil/TileMapping.hpp>
#include <tessera/VertexType.hpp>

namespace {

using namespace poplar;
using namespace poplar::program;

constexpr unsigned kVerticesPerTile = 6;
constexpr std::size_t kExchangeBytes = std::size_t(64) << 20;
constexpr double kVertexGoalNs = 50.0;
constexpr double kExchangeGoalRatio = 0.7;

/// Does nothing: what is left is the engine's own cost per vertex.
class Empty : public Vertex {
public:
  bool compute() { return true; }
};

void registerBenchVertices() {
  static const bool once = tessera::VertexTypeBuilder<Empty>("EngineBench.Empty").add();
  (void)once;
}

/// Host threads an Engine gets: 0 means the engine's default (every core).
OptionFlags engineOptions(unsigned hostThreads) {
  OptionFlags opts;
  if (hostThreads != 0)
    opts.set("target.hostThreads", std::to_string(hostThreads));
  return opts;
}

/// A loaded engine with what it was built from. Built once per configuration and kept, since
/// Google Benchmark calls a benchmark function several times while choosing iteration counts.
struct LoadedEngine {
  Device device;
  Graph graph;
  std::unique_ptr<Engine> engine;
  std::size_t numVertices = 0;
  std::size_t bytesCopied = 0;

  explicit LoadedEngine(Device d) : device(std::move(d)), graph(device.getTarget()) {}
};

/// 1472 tiles × 6 Empty vertices in one compute set.
LoadedEngine &emptyComputeSetEngine(unsigned hostThreads) {
  static std::map<unsigned, std::unique_ptr<LoadedEngine>> cache;
  auto &slot = cache[hostThreads];
  if (!slot) {
    registerBenchVertices();
    auto e = std::make_unique<LoadedEngine>(IPUModel().createDevice());
    Graph &graph = e->graph;
    const unsigned numTiles = graph.getTarget().getNumTiles();
    ComputeSet cs = graph.addComputeSet("empty");
    for (unsigned tile = 0; tile < numTiles; ++tile) {
      for (unsigned i = 0; i < kVerticesPerTile; ++i) {
        VertexRef v = graph.addVertex(cs, "EngineBench.Empty");
        graph.setTileMapping(v, tile);
      }
    }
    e->numVertices = std::size_t(numTiles) * kVerticesPerTile;
    e->engine = std::make_unique<Engine>(graph, Execute(cs), engineOptions(hostThreads));
    e->engine->load(e->device);
    slot = std::move(e);
  }
  return *slot;
}

/// Copy of a linearly mapped 64 MiB float tensor to one mapped a tile further on.
LoadedEngine &shiftedCopyEngine(unsigned hostThreads) {
  static std::map<unsigned, std::unique_ptr<LoadedEngine>> cache;
  auto &slot = cache[hostThreads];
  if (!slot) {
    auto e = std::make_unique<LoadedEngine>(IPUModel().createDevice());
    Graph &graph = e->graph;
    const unsigned numTiles = graph.getTarget().getNumTiles();
    const std::size_t numElements = kExchangeBytes / sizeof(float);
    Tensor src = graph.addVariable(FLOAT, {numElements}, "src");
    Tensor dst = graph.addVariable(FLOAT, {numElements}, "dst");
    poputil::mapTensorLinearly(graph, src);
    const TileToTensorMapping srcMapping = graph.getTileMapping(src);
    TileToTensorMapping dstMapping(numTiles);
    for (unsigned tile = 0; tile < numTiles; ++tile)
      dstMapping[(tile + 1) % numTiles] = srcMapping[tile];
    graph.setTileMapping(dst, dstMapping);
    e->bytesCopied = kExchangeBytes;
    e->engine = std::make_unique<Engine>(graph, Copy(src, dst), engineOptions(hostThreads));
    e->engine->load(e->device);
    slot = std::move(e);
  }
  return *slot;
}

std::string settingsLabel(const Engine &engine, unsigned numTiles) {
  return "threads=" + std::to_string(engine.getNumHostThreads()) +
         " tiles=" + std::to_string(numTiles);
}

void BM_EngineOverhead(benchmark::State &state) {
  LoadedEngine &e = emptyComputeSetEngine(static_cast<unsigned>(state.range(0)));
  // Timed here as well so the counter is a plain number of nanoseconds (a kInvert rate would
  // be printed in seconds).
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state)
    e.engine->run();
  const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
  const double calls = static_cast<double>(state.iterations()) * static_cast<double>(e.numVertices);
  state.counters["ns_per_vertex"] = calls > 0 ? elapsed.count() / calls : 0.0;
  state.counters["vertices"] = static_cast<double>(e.numVertices);
  state.SetLabel(settingsLabel(*e.engine, e.graph.getTarget().getNumTiles()));
}

void BM_Exchange(benchmark::State &state) {
  LoadedEngine &e = shiftedCopyEngine(static_cast<unsigned>(state.range(0)));
  for (auto _ : state)
    e.engine->run();
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(e.bytesCopied));
  state.SetLabel(settingsLabel(*e.engine, e.graph.getTarget().getNumTiles()));
}

void BM_Memcpy(benchmark::State &state) {
  // Touched up front so page faults stay out of the timing, as the engine's tile memory is.
  std::vector<unsigned char> src(kExchangeBytes, 1);
  std::vector<unsigned char> dst(kExchangeBytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kExchangeBytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(kExchangeBytes));
  state.SetLabel("threads=1");
}

// Arg: target.hostThreads (0 = the engine's default, every core).
BENCHMARK(BM_EngineOverhead)->ArgName("hostThreads")->Arg(0)->Arg(1)->UseRealTime();
BENCHMARK(BM_Exchange)
    ->ArgName("hostThreads")
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Memcpy)->UseRealTime()->Unit(benchmark::kMillisecond);

/// The console table, plus a copy of every run for the summary.
class RecordingReporter : public benchmark::ConsoleReporter {
public:
  explicit RecordingReporter(OutputOptions options) : ConsoleReporter(options) {}
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

double counter(const benchmark::BenchmarkReporter::Run &r, const char *name) {
  auto it = r.counters.find(name);
  return it == r.counters.end() ? 0.0 : it->second.value;
}

/// Summary lines: each figure with its goal, and exchange next to memcpy.
void printSummary(const std::map<std::string, benchmark::BenchmarkReporter::Run> &runs) {
  const benchmark::BenchmarkReporter::Run *memcpyRun = nullptr;
  for (const auto &[name, r] : runs)
    if (name.rfind("BM_Memcpy", 0) == 0)
      memcpyRun = &r;
  std::printf("\n== summary (Tessera %s, %u hardware threads)\n", versionNumber().c_str(),
              std::max(1u, std::thread::hardware_concurrency()));
  for (const auto &[name, r] : runs) {
    if (name.rfind("BM_EngineOverhead", 0) == 0) {
      const double ns = counter(r, "ns_per_vertex");
      std::printf("engine overhead  %-40s %s: %.2f ns/vertex (goal < %.0f ns: %s)\n", name.c_str(),
                  r.report_label.c_str(), ns, kVertexGoalNs, ns < kVertexGoalNs ? "met" : "MISSED");
    }
  }
  const double memcpyBps = memcpyRun ? counter(*memcpyRun, "bytes_per_second") : 0.0;
  if (memcpyRun)
    std::printf("memcpy           %-40s %s: %.2f GB/s\n", memcpyRun->benchmark_name().c_str(),
                memcpyRun->report_label.c_str(), memcpyBps / 1e9);
  for (const auto &[name, r] : runs) {
    if (name.rfind("BM_Exchange", 0) != 0)
      continue;
    const double bps = counter(r, "bytes_per_second");
    if (memcpyBps > 0) {
      const double ratio = bps / memcpyBps;
      std::printf("exchange/memcpy  %-40s %s: %.2f GB/s / %.2f GB/s = %.2fx (goal >= %.1fx: %s)\n",
                  name.c_str(), r.report_label.c_str(), bps / 1e9, memcpyBps / 1e9, ratio,
                  kExchangeGoalRatio, ratio >= kExchangeGoalRatio ? "met" : "MISSED");
    } else {
      std::printf("exchange         %-40s %s: %.2f GB/s (run BM_Memcpy too for the ratio)\n",
                  name.c_str(), r.report_label.c_str(), bps / 1e9);
    }
  }
}

/// A custom reporter does not see Google Benchmark's own --benchmark_color decision, so repeat
/// it: "true"/"yes"/"1" or "false"/"no"/"0", else colour only on a terminal.
benchmark::ConsoleReporter::OutputOptions consoleOptions(int argc, char **argv) {
  const std::string flag = "--benchmark_color=";
  std::string value = "auto";
  for (int i = 1; i < argc; ++i)
    if (std::string arg = argv[i]; arg.rfind(flag, 0) == 0)
      value = arg.substr(flag.size());
  bool color = isatty(STDOUT_FILENO) != 0;
  if (value == "true" || value == "yes" || value == "1")
    color = true;
  else if (value == "false" || value == "no" || value == "0")
    color = false;
  return color ? benchmark::ConsoleReporter::OO_ColorTabular
               : benchmark::ConsoleReporter::OO_Tabular;
}

} // namespace

int main(int argc, char **argv) {
  const auto options = consoleOptions(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  const IPUModel model;
  std::printf("%s | IPUModel %s: %u tiles, %u workers/tile, %u KiB/tile | host threads: %u "
              "(hostThreads:0 = engine default) | exchange size %zu MiB, %u vertices/tile\n",
              versionString().c_str(), model.IPUVersion.c_str(), model.tilesPerIPU,
              model.numWorkerContexts, model.memoryBytesPerTile / 1024,
              std::max(1u, std::thread::hardware_concurrency()), kExchangeBytes >> 20,
              kVerticesPerTile);
  std::fflush(stdout);
  RecordingReporter reporter(options);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  printSummary(reporter.runs());
  benchmark::Shutdown();
  return 0;
}
