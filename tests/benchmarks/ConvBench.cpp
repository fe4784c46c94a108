// poplin convolution benchmarks beside PyTorch CPU, in the same run.
//
//  - ConvLayer/B/C/O/H/K/S: one ResNet-style layer's training step — forward, input gradient
//    (getGradientParams + transposeAndFlipWeights) and weight update — batch B, C -> O channels,
//    H x H input, K x K kernel, stride S, padding K/2; ResNet-50 shapes at batch 32, 32 x 32
//    (and a small smoke shape).
//
// Tessera runs on the default IPU model (1472 tiles) with every host core; one engine per shape
// is built once, tensors from createInput/createWeights. Before the table, main() runs
// tests/benchmarks/conv_torch.py (Debian's python3-torch, 2 threads, OMP_WAIT_POLICY=PASSIVE)
// for the same cases; each row then carries torch_ms and x_torch = Tessera time / PyTorch time
// (below 1: Tessera faster) besides Tessera's per-pass times.
//   conv_bench [--no-torch] [--torch-min-time SECONDS] [Google Benchmark flags]
#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/ConvUtil.hpp>
#include <poplin/Convolution.hpp>
#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>

#ifndef CONV_TORCH_SCRIPT
#define CONV_TORCH_SCRIPT "conv_torch.py"
#endif

namespace {

using poplar::Tensor;

/// PyTorch milliseconds per iteration by case name ("conv:32,64,64,32,3,1"), filled by main().
std::map<std::string, double> &torchFigures() {
  static std::map<std::string, double> figures;
  return figures;
}

struct Bench {
  poplar::Device device;
  std::unique_ptr<poplar::Graph> graph;
  std::unique_ptr<poplar::Engine> engine;
  std::uint64_t flops = 0;
};

/// One engine per shape with programs 0 = forward, 1 = input gradient, 2 = weight update.
Bench &convBench(std::size_t b, std::size_t c, std::size_t o, std::size_t h, std::size_t k,
                 unsigned s) {
  static std::map<std::array<std::size_t, 6>, std::unique_ptr<Bench>> benches;
  auto &slot = benches[{b, c, o, h, k, s}];
  if (slot)
    return *slot;
  slot = std::make_unique<Bench>();
  slot->device = poplar::IPUModel().createDevice();
  slot->graph = std::make_unique<poplar::Graph>(slot->device.getTarget());
  poplar::Graph &graph = *slot->graph;
  poplin::addCodelets(graph);
  popops::addCodelets(graph);
  poplin::ConvParams p(poplar::FLOAT, b, {h, h}, {k, k}, c, o, 1);
  const unsigned pad = unsigned(k / 2);
  p.inputTransform.paddingLower = p.inputTransform.paddingUpper = {pad, pad};
  p.outputTransform.stride = {s, s};
  poplin::PlanningCache cache;
  Tensor in = poplin::createInput(graph, p, "in", {}, &cache);
  Tensor w = poplin::createWeights(graph, p, "w", {}, &cache);
  const poplin::ConvParams bwd = poplin::getGradientParams(p);
  Tensor z = poplin::createInput(graph, bwd, "zDeltas", {}, &cache);
  poplar::program::Sequence fwdProg, bwdProg, wuProg;
  poplin::convolution(graph, in, w, p, false, fwdProg, "fwd", {}, &cache);
  poplin::convolution(graph, z, w, bwd, true, bwdProg, "bwd", {}, &cache);
  poplin::convolutionWeightUpdate(graph, z, w, in, p, -0.01f, wuProg, "wu", {}, &cache);
  slot->engine = std::make_unique<poplar::Engine>(
      graph, std::vector<poplar::program::Program>{fwdProg, bwdProg, wuProg});
  slot->engine->load(slot->device);
  slot->flops = poplin::getFwdFlops(p) + poplin::getBwdFlops(p) + poplin::getWuFlops(p);
  return *slot;
}

double msOf(const std::chrono::steady_clock::duration &d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

void BM_ConvLayer(benchmark::State &state) {
  const auto b = state.range(0), c = state.range(1), o = state.range(2), h = state.range(3),
             k = state.range(4), s = state.range(5);
  Bench &bench = convBench(b, c, o, h, k, unsigned(s));
  for (unsigned prog = 0; prog < 3; ++prog)
    bench.engine->run(prog); // warm up
  std::array<double, 3> passMs{};
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state)
    for (unsigned prog = 0; prog < 3; ++prog) {
      const auto t0 = std::chrono::steady_clock::now();
      bench.engine->run(prog);
      passMs[prog] += msOf(std::chrono::steady_clock::now() - t0);
    }
  const double iters = static_cast<double>(state.iterations());
  const double ms = msOf(std::chrono::steady_clock::now() - start) / iters;
  state.counters["tessera_ms"] = ms;
  state.counters["fwd_ms"] = passMs[0] / iters;
  state.counters["bwd_ms"] = passMs[1] / iters;
  state.counters["wu_ms"] = passMs[2] / iters;
  state.counters["GFLOPs"] = double(bench.flops) / ms / 1e6;
  std::ostringstream name;
  name << "conv:" << b << "," << c << "," << o << "," << h << "," << k << "," << s;
  const auto it = torchFigures().find(name.str());
  if (it != torchFigures().end()) {
    state.counters["torch_ms"] = it->second;
    state.counters["x_torch"] = ms / it->second;
  }
}
BENCHMARK(BM_ConvLayer)
    ->ArgNames({"B", "C", "O", "H", "K", "S"})
    ->Args({2, 8, 8, 8, 3, 1})
    ->Args({32, 64, 64, 32, 3, 1})
    ->Args({32, 256, 64, 32, 1, 1})
    ->Args({32, 64, 256, 32, 1, 1})
    ->Args({32, 64, 128, 32, 3, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

/// Runs the PyTorch script for every case; prints its settings line, or why it could not run.
void runTorch(double minTime) {
  const char *python = std::fopen("/usr/bin/python3", "r") ? "/usr/bin/python3" : "python3";
  std::ostringstream cmd;
  cmd << python << " " << CONV_TORCH_SCRIPT << " --min-time " << minTime
      << " conv:2,8,8,8,3,1 conv:32,64,64,32,3,1 conv:32,256,64,32,1,1 conv:32,64,256,32,1,1"
      << " conv:32,64,128,32,3,2 2>&1";
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
