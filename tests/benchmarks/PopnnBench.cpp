// popnn benchmarks beside PyTorch CPU, in the same run:
//
//  - BatchNormFwdBwd/B/C/H/W: training batch norm — statistics, normalise, input gradient and
//    parameter gradients — on a ResNet-50 shape [32,64,32,32] (and a small smoke shape).
//  - SoftmaxCrossEntropyFwdBwd/N/V: softmax + cross-entropy with label indices (every 7th
//    masked) giving loss and deltas with respect to the logits, on a BERT shape [4·128, 30522]
//    (logits laid out in whole rows per tile).
//
// Tessera runs on the default IPU model (1472 tiles) with every host core; one engine per shape
// is built once. Before the table, main() runs tests/benchmarks/popnn_torch.py (Debian's
// python3-torch, 2 threads, OMP_WAIT_POLICY=PASSIVE) for the same cases; each row then carries
// torch_ms and x_torch = Tessera time / PyTorch time (below 1: Tessera faster).
//   popnn_bench [--no-torch] [--torch-min-time SECONDS] [Google Benchmark flags]
// Set POPNN_BENCH_PROFILE=1 to print each engine's per-step profile summary.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popnn/BatchNorm.hpp>
#include <popnn/Loss.hpp>
#include <popnn/NonLinearity.hpp>
#include <popnn/codelets.hpp>
#include <poputil/TileMapping.hpp>

#ifndef POPNN_TORCH_SCRIPT
#define POPNN_TORCH_SCRIPT "popnn_torch.py"
#endif

namespace {

using poplar::Tensor;

/// PyTorch milliseconds per iteration by case name ("bn:32,64,32,32"), filled by main().
std::map<std::string, double> &torchFigures() {
  static std::map<std::string, double> figures;
  return figures;
}

struct Bench {
  poplar::Device device;
  std::unique_ptr<poplar::Graph> graph;
  std::unique_ptr<poplar::Engine> engine;
};

poplar::Device makeDevice() { return poplar::IPUModel().createDevice(); }

/// With POPNN_BENCH_PROFILE set, engines measure host time per step and print a summary once.
poplar::OptionFlags engineOptions() {
  poplar::OptionFlags o;
  if (std::getenv("POPNN_BENCH_PROFILE"))
    o.set("debug.instrument", "true");
  return o;
}

void maybePrintProfile(poplar::Engine &e) {
  if (std::getenv("POPNN_BENCH_PROFILE"))
    e.printProfileSummary(std::cout, {{"showExecutionSteps", "true"}});
}

Tensor variable(poplar::Graph &g, const poplar::Type &type, std::vector<std::size_t> shape,
                const char *name) {
  Tensor t = g.addVariable(type, shape, name);
  poputil::mapTensorLinearly(g, t);
  return t;
}

/// Writes `n` copies of a pattern into a host-writable tensor.
template <class T>
void writeValues(poplar::Engine &e, const char *handle, std::size_t n, T (*value)(std::size_t)) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = value(i);
  e.writeTensor(handle, v.data(), v.data() + n);
}

Bench &batchNormBench(std::size_t b, std::size_t c, std::size_t h, std::size_t w) {
  static std::map<std::vector<std::size_t>, std::unique_ptr<Bench>> cache;
  auto &slot = cache[{b, c, h, w}];
  if (slot)
    return *slot;
  slot = std::make_unique<Bench>(Bench{makeDevice(), nullptr, nullptr});
  slot->graph = std::make_unique<poplar::Graph>(slot->device.getTarget());
  poplar::Graph &g = *slot->graph;
  popnn::addCodelets(g);
  poplar::program::Sequence prog;
  Tensor acts = variable(g, poplar::FLOAT, {b, c, h, w}, "acts");
  Tensor grads = variable(g, poplar::FLOAT, {b, c, h, w}, "gradsIn");
  Tensor gamma = variable(g, poplar::FLOAT, {c}, "gamma"),
         beta = variable(g, poplar::FLOAT, {c}, "beta");
  auto [mean, invStd] = popnn::bn::batchNormStatistics(g, acts, 1e-5f, prog, false);
  auto [out, whitened] = popnn::bn::batchNormalise(g, acts, gamma, beta, mean, invStd, prog);
  Tensor dx = popnn::bn::batchNormGradients(g, whitened, grads, invStd, gamma, prog);
  auto [dGamma, dBeta] = popnn::bn::batchNormParamGradients(g, whitened, grads, prog);
  for (auto [name, t] :
       {std::pair{"acts", acts}, {"gradsIn", grads}, {"gamma", gamma}, {"beta", beta}})
    g.createHostWrite(name, t);
  g.createHostRead("dx", dx);
  slot->engine = std::make_unique<poplar::Engine>(g, prog, engineOptions());
  slot->engine->load(slot->device);
  const std::size_t n = b * c * h * w;
  writeValues<float>(*slot->engine, "acts", n, [](std::size_t i) { return float(i % 17) * 0.1f; });
  writeValues<float>(*slot->engine, "gradsIn", n,
                     [](std::size_t i) { return float(i % 13) * 0.01f - 0.06f; });
  writeValues<float>(*slot->engine, "gamma", c, [](std::size_t) { return 1.0f; });
  writeValues<float>(*slot->engine, "beta", c, [](std::size_t) { return 0.0f; });
  return *slot;
}

Bench &crossEntropyBench(std::size_t rows, std::size_t vocab) {
  static std::map<std::vector<std::size_t>, std::unique_ptr<Bench>> cache;
  auto &slot = cache[{rows, vocab}];
  if (slot)
    return *slot;
  slot = std::make_unique<Bench>(Bench{makeDevice(), nullptr, nullptr});
  slot->graph = std::make_unique<poplar::Graph>(slot->device.getTarget());
  poplar::Graph &g = *slot->graph;
  popnn::addCodelets(g);
  poplar::program::Sequence prog;
  // Whole rows per tile (as a matmul producing the logits would lay them out), so each row's
  // softmax and loss run where the row lives.
  Tensor logits = g.addVariable(poplar::FLOAT, {rows, vocab}, "logits");
  poputil::mapTensorLinearly(g, logits, static_cast<unsigned>(vocab), static_cast<unsigned>(vocab));
  Tensor labels = variable(g, poplar::UNSIGNED_INT, {rows}, "labels");
  Tensor loss = variable(g, poplar::FLOAT, {rows}, "loss");
  Tensor deltas = g.clone(logits, "deltas");
  Tensor probs = popnn::nonLinearity(g, popnn::NonLinearityType::SOFTMAX, logits, prog);
  prog.add(popnn::calcLoss(g, probs, labels, loss, deltas, popnn::CROSS_ENTROPY_LOSS));
  g.createHostWrite("logits", logits);
  g.createHostWrite("labels", labels);
  g.createHostRead("loss", loss);
  slot->engine = std::make_unique<poplar::Engine>(g, prog, engineOptions());
  slot->engine->load(slot->device);
  writeValues<float>(*slot->engine, "logits", rows * vocab,
                     [](std::size_t i) { return float(i % 101) * 0.05f - 2.5f; });
  static std::size_t v;
  v = vocab;
  writeValues<unsigned>(*slot->engine, "labels", rows, [](std::size_t i) {
    return i % 7 == 0 ? unsigned(MASKED_LABEL_CODE) : unsigned((i * 7919) % v);
  });
  return *slot;
}

/// Times the loop and reports the PyTorch figure and ratio for `torchCase`.
template <class Fn>
void timeAgainstTorch(benchmark::State &state, const std::string &torchCase, Fn run) {
  run(); // warm up
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state)
    run();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
      static_cast<double>(state.iterations());
  state.counters["tessera_ms"] = ms;
  const auto it = torchFigures().find(torchCase);
  if (it != torchFigures().end()) {
    state.counters["torch_ms"] = it->second;
    state.counters["x_torch"] = ms / it->second;
  }
}

void BM_BatchNormFwdBwd(benchmark::State &state) {
  const auto b = state.range(0), c = state.range(1), h = state.range(2), w = state.range(3);
  Bench &bench = batchNormBench(b, c, h, w);
  std::ostringstream name;
  name << "bn:" << b << "," << c << "," << h << "," << w;
  timeAgainstTorch(state, name.str(), [&] { bench.engine->run(0); });
  state.SetItemsProcessed(state.iterations() * b * c * h * w);
  maybePrintProfile(*bench.engine);
}
BENCHMARK(BM_BatchNormFwdBwd)
    ->ArgNames({"B", "C", "H", "W"})
    ->Args({4, 8, 8, 8})
    ->Args({32, 64, 32, 32})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_SoftmaxCrossEntropyFwdBwd(benchmark::State &state) {
  const auto rows = state.range(0), vocab = state.range(1);
  Bench &bench = crossEntropyBench(rows, vocab);
  std::ostringstream name;
  name << "ce:" << rows << "," << vocab;
  timeAgainstTorch(state, name.str(), [&] { bench.engine->run(0); });
  state.SetItemsProcessed(state.iterations() * rows * vocab);
  maybePrintProfile(*bench.engine);
}
BENCHMARK(BM_SoftmaxCrossEntropyFwdBwd)
    ->ArgNames({"N", "V"})
    ->Args({16, 1000})
    ->Args({512, 30522})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

/// Runs the PyTorch script for every case; prints its settings line, or why it could not run.
void runTorch(double minTime) {
  const char *python = std::fopen("/usr/bin/python3", "r") ? "/usr/bin/python3" : "python3";
  std::ostringstream cmd;
  cmd << python << " " << POPNN_TORCH_SCRIPT << " --min-time " << minTime
      << " bn:4,8,8,8 bn:32,64,32,32 ce:16,1000 ce:512,30522 2>&1";
  FILE *pipe = popen(cmd.str().c_str(), "r");
  if (!pipe) {
    std::printf("PyTorch: cannot start '%s'; Tessera figures only\n", cmd.str().c_str());
    return;
  }
  char line[512];
  bool any = false;
  while (std::fgets(line, sizeof line, pipe)) {
    std::string s(line);
    if (s.rfind("case ", 0) == 0) {
      std::istringstream in(s.substr(5));
      std::string name;
      double ms;
      if (in >> name >> ms) {
        torchFigures()[name] = ms;
        any = true;
      }
    } else {
      std::printf("PyTorch: %s", s.c_str());
    }
  }
  pclose(pipe);
  if (!any)
    std::printf("PyTorch: no figures (see above); Tessera figures only\n");
}

} // namespace

int main(int argc, char **argv) {
  bool torch = true;
  double torchMinTime = 0.5;
  std::vector<char *> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-torch") == 0)
      torch = false;
    else if (std::strcmp(argv[i], "--torch-min-time") == 0 && i + 1 < argc)
      torchMinTime = std::atof(argv[++i]);
    else
      rest.push_back(argv[i]);
  }
  int restCount = static_cast<int>(rest.size());
  benchmark::Initialize(&restCount, rest.data());
  std::printf("Tessera: IPU model with %u tiles, engine host threads = all %u cores\n",
              poplar::IPUModel().tilesPerIPU, std::thread::hardware_concurrency());
  if (torch)
    runTorch(torchMinTime);
  else
    std::printf("PyTorch: skipped (--no-torch)\n");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
