// Matrix-multiply benchmark: poplin::matMul (M = N = K) on the default IPU Model (1472 tiles),
// next to OpenBLAS cblas_sgemm on the same number of host threads, in the same run.
//
//  - MatMulTessera/N:n/hostThreads:T: one engine.run() of a program doing C = A · B with A and
//    B created by createMatMulInputLHS/RHS (compiled and loaded once, outside the timing).
//  - OpenBlasSgemm/N:n/threads:T: cblas_sgemm on the same sizes, openblas_set_num_threads(T).
//
// The CPU column is process CPU time (all threads). After the table, main() prints per size:
// GFLOP/s of both, the ratio Tessera / OpenBLAS and each against the machine's peak FP32 on T
// threads, measured at start-up by an FMA loop on the widest vectors (PeakFlops.hpp;
// --peak_gflops_per_core=X overrides it with X × T).
//
// OpenBLAS picks its kernels from the CPU it detects; under some VMs it falls back to a generic
// SSE3 core ("Prescott") and is 5x slower. The core in use is printed first: set
// OPENBLAS_CORETYPE (e.g. SKYLAKEX on AVX-512 machines) for a fair peer.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/codelets.hpp>

#include "PeakFlops.hpp"

extern "C" void openblas_set_num_threads(int);
extern "C" char *openblas_get_corename(void);

namespace {

const std::vector<long> kSizes = {64, 256, 512, 1024, 2048};

unsigned hostThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

std::vector<float> randomValues(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto &x : v)
    x = dist(gen);
  return v;
}

/// A compiled and loaded matMul of size n, kept for the whole run.
struct TesseraMatMul {
  poplar::Device device;
  std::unique_ptr<poplar::Engine> engine;
};

/// Only the latest engine is kept: an idle engine's memory and host threads would disturb the
/// benchmarks that follow.
TesseraMatMul &tesseraMatMul(std::size_t n, unsigned threads) {
  static std::pair<std::size_t, unsigned> key{0, 0};
  static std::unique_ptr<TesseraMatMul> slot;
  if (slot && key == std::make_pair(n, threads))
    return *slot;
  slot.reset();
  key = {n, threads};
  slot = std::make_unique<TesseraMatMul>(TesseraMatMul{poplar::IPUModel().createDevice(), {}});
  poplar::Graph graph(slot->device.getTarget());
  poplin::addCodelets(graph);
  poplin::PlanningCache cache2;
  const std::vector<std::size_t> a{n, n}, b{n, n};
  auto A = poplin::createMatMulInputLHS(graph, poplar::FLOAT, a, b, "A", {}, &cache2);
  auto B = poplin::createMatMulInputRHS(graph, poplar::FLOAT, a, b, "B", {}, &cache2);
  graph.createHostWrite("a", A);
  graph.createHostWrite("b", B);
  poplar::program::Sequence prog;
  auto C = poplin::matMul(graph, A, B, prog, "C", {}, &cache2);
  graph.createHostRead("c", C);
  slot->engine = std::make_unique<poplar::Engine>(
      graph, prog, poplar::OptionFlags{{"target.hostThreads", std::to_string(threads)}});
  slot->engine->load(slot->device);
  const auto av = randomValues(n * n, 1), bv = randomValues(n * n, 2);
  slot->engine->writeTensor("a", av.data(), av.data() + av.size());
  slot->engine->writeTensor("b", bv.data(), bv.data() + bv.size());
  return *slot;
}

void flopsCounter(benchmark::State &state, std::size_t n) {
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n) * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void BM_MatMulTessera(benchmark::State &state) {
  const std::size_t n = state.range(0);
  auto &mm = tesseraMatMul(n, static_cast<unsigned>(state.range(1)));
  for (auto _ : state)
    mm.engine->run();
  flopsCounter(state, n);
}

void BM_OpenBlasSgemm(benchmark::State &state) {
  const std::size_t n = state.range(0);
  openblas_set_num_threads(static_cast<int>(state.range(1)));
  const auto a = randomValues(n * n, 1), b = randomValues(n * n, 2);
  std::vector<float> c(n * n);
  const int ni = static_cast<int>(n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0f, a.data(), ni, b.data(),
                ni, 0.0f, c.data(), ni);
    benchmark::DoNotOptimize(c.data());
  }
  flopsCounter(state, n);
}

void sizes(benchmark::internal::Benchmark *b, const char *threadsName) {
  // CPU time is the whole process's (all threads): on a shared machine the CPU milliseconds per
  // multiply compare the two implementations' work even when wall time is disturbed.
  b->ArgNames({"N", threadsName})
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MeasureProcessCPUTime();
  for (long threads : {1L, static_cast<long>(hostThreads())})
    for (long n : kSizes)
      b->Args({n, threads});
}

// OpenBLAS first, while no Tessera engine exists.
BENCHMARK(BM_OpenBlasSgemm)->Apply([](auto *b) { sizes(b, "threads"); });
BENCHMARK(BM_MatMulTessera)->Apply([](auto *b) { sizes(b, "hostThreads"); });

/// Keeps each run's GFLOP/s for the summary.
class Recorder : public benchmark::ConsoleReporter {
public:
  std::map<std::tuple<std::string, long, long>, double> gflops;
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const auto &r : runs) {
      const std::string name = r.benchmark_name();
      const auto slash = name.find('/');
      const auto n = std::atol(name.c_str() + name.find("N:") + 2);
      const auto threads = std::atol(name.c_str() + name.find(':', name.find("N:") + 2) + 1);
      if (auto it = r.counters.find("GFLOP/s"); it != r.counters.end())
        gflops[{name.substr(0, slash), n, threads}] = it->second.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

} // namespace

int main(int argc, char **argv) {
  double peakPerCore = 0; // 0: measured
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--peak_gflops_per_core=", 23) == 0)
      peakPerCore = std::atof(argv[i] + 23);
    else
      args.push_back(argv[i]);
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  const bench::PeakFlops measured = bench::measurePeakFlops(hostThreads());
  std::printf("matmul_bench: up to %u host threads; peak FP32 measured by an FMA loop (%s): "
              "%.0f GFLOP/s on 1 thread, %.0f on %u%s; OpenBLAS core '%s'\n",
              hostThreads(), measured.target.c_str(), measured.gflopsOneThread,
              measured.gflopsAllThreads, measured.threads,
              peakPerCore > 0 ? " (overridden by --peak_gflops_per_core)" : "",
              openblas_get_corename());
  Recorder recorder;
  benchmark::RunSpecifiedBenchmarks(&recorder);
  std::printf("\n%6s %8s %14s %14s %10s %12s %12s\n", "N", "threads", "Tessera GF/s",
              "OpenBLAS GF/s", "ratio", "Tess/peak", "BLAS/peak");
  for (long threads : {1L, static_cast<long>(hostThreads())})
    for (long size : kSizes) {
      const auto t = recorder.gflops.find({"BM_MatMulTessera", size, threads});
      const auto o = recorder.gflops.find({"BM_OpenBlasSgemm", size, threads});
      if (t == recorder.gflops.end() || o == recorder.gflops.end())
        continue;
      const double peak = peakPerCore > 0 ? peakPerCore * double(threads)
                          : threads == 1  ? measured.gflopsOneThread
                                          : measured.gflopsAllThreads;
      std::printf("%6ld %8ld %14.1f %14.1f %9.2fx %11.2f %12.2f\n", size, threads, t->second,
                  o->second, t->second / o->second, t->second / peak, o->second / peak);
    }
  benchmark::Shutdown();
  return 0;
}
