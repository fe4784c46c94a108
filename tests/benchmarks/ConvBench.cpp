// poplin convolution benchmarks beside PyTorch CPU, in the same run (issue #5).
//
//  - ConvLayer/B/C/O/H/K/S/G: one layer's training step — forward, input gradient
//    (getGradientParams + transposeAndFlipWeights) and weight update — batch B, C -> O channels
//    in G groups (ConvParams numConvGroups = G, C/G and O/G per group), H x H input, K x K
//    kernel, stride S, padding K/2.
//  - Cases (kConvCases, the one list both the registration and the PyTorch invocation read):
//    every distinct convolution of full-width ResNet-50 v1.5 with the small-image stem (3x3
//    stride 1, no max-pool) at 32 x 32 input, batch 32 — stem, and per stage the 1x1 reduce, the
//    3x3 (stride 2 in the first block of stages 2-4), the 1x1 expand, the 1x1 downsample
//    projection and the repeated blocks' 1x1 reduce and 3x3 — plus EfficientNet-B0's depthwise
//    layers at the resolutions a 32 x 32 input gives (3x3 and 5x5, groups = channels), and a
//    small smoke shape (B:2).
//
// Tessera runs on the default IPU model (1472 tiles) with every host core; one engine per shape
// is built once (and dropped when the next shape starts), tensors from createInput/
// createWeights. Before the table, main() runs tests/benchmarks/conv_torch.py (Debian's
// python3-torch, 2 threads, OMP_WAIT_POLICY=PASSIVE) for the cases the filter selects, and again
// after it, keeping each case's faster figure for the summary (rows show the first); each row
// carries torch_ms and speed_vs_torch = PyTorch time / Tessera time (throughput ratio, higher is
// better; the goal is >= 0.7) besides Tessera's per-pass times. After the Google Benchmark table, a
// summary lists per layer the Tessera and PyTorch milliseconds (medians over repetitions), the
// ratio, and the minimum and geometric mean of the ratios.
//
// A full run (all 28 cases) with --benchmark_repetitions=3 takes about 7 minutes on the 2-core
// development machine, of which about 1 is PyTorch's two passes.
//   conv_bench [--no-torch] [--torch-min-time SECONDS] [--profile] [--conv-option name=value]…
//              [Google Benchmark flags]
// --profile measures host time per engine step and prints each case's convolution plans and
// profile summary.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

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

/// One benchmarked layer: batch, total input/output channels, input height = width, kernel,
/// stride, groups (padding is kernel / 2).
struct ConvCase {
  const char *layer;
  long b, c, o, h, k, s, g;
};

/// The single list of cases: Google Benchmark registration and the PyTorch invocation both
/// iterate it. ResNet-50 v1.5 (full width, 3x3 stride-1 stem, no max-pool) at 32 x 32, batch 32;
/// stage n has width w = 64·2^(n-1), 4w output channels and input 32/2^(n-1) (stage 1: 32).
constexpr ConvCase kConvCases[] = {
    {"smoke 3x3", 2, 8, 8, 8, 3, 1, 1},
    {"stem 3x3 3->64", 32, 3, 64, 32, 3, 1, 1},
    {"s1 reduce 1x1 64->64", 32, 64, 64, 32, 1, 1, 1},
    {"s1 3x3 64", 32, 64, 64, 32, 3, 1, 1},
    {"s1 expand/proj 1x1 64->256", 32, 64, 256, 32, 1, 1, 1},
    {"s1 reduce' 1x1 256->64", 32, 256, 64, 32, 1, 1, 1},
    {"s2 reduce 1x1 256->128", 32, 256, 128, 32, 1, 1, 1},
    {"s2 3x3/2 128", 32, 128, 128, 32, 3, 2, 1},
    {"s2 expand 1x1 128->512", 32, 128, 512, 16, 1, 1, 1},
    {"s2 proj 1x1/2 256->512", 32, 256, 512, 32, 1, 2, 1},
    {"s2 reduce' 1x1 512->128", 32, 512, 128, 16, 1, 1, 1},
    {"s2 3x3 128", 32, 128, 128, 16, 3, 1, 1},
    {"s3 reduce 1x1 512->256", 32, 512, 256, 16, 1, 1, 1},
    {"s3 3x3/2 256", 32, 256, 256, 16, 3, 2, 1},
    {"s3 expand 1x1 256->1024", 32, 256, 1024, 8, 1, 1, 1},
    {"s3 proj 1x1/2 512->1024", 32, 512, 1024, 16, 1, 2, 1},
    {"s3 reduce' 1x1 1024->256", 32, 1024, 256, 8, 1, 1, 1},
    {"s3 3x3 256", 32, 256, 256, 8, 3, 1, 1},
    {"s4 reduce 1x1 1024->512", 32, 1024, 512, 8, 1, 1, 1},
    {"s4 3x3/2 512", 32, 512, 512, 8, 3, 2, 1},
    {"s4 expand 1x1 512->2048", 32, 512, 2048, 4, 1, 1, 1},
    {"s4 proj 1x1/2 1024->2048", 32, 1024, 2048, 8, 1, 2, 1},
    {"s4 reduce' 1x1 2048->512", 32, 2048, 512, 4, 1, 1, 1},
    {"s4 3x3 512", 32, 512, 512, 4, 3, 1, 1},
    // EfficientNet-B0 depthwise (groups = channels) after its stride-2 stem: 16 x 16 input.
    {"effnet dw 3x3 32", 32, 32, 32, 16, 3, 1, 32},
    {"effnet dw 3x3/2 96", 32, 96, 96, 16, 3, 2, 96},
    {"effnet dw 3x3 144", 32, 144, 144, 8, 3, 1, 144},
    {"effnet dw 5x5 240", 32, 240, 240, 4, 5, 1, 240},
    // Late EfficientNet-B0 layers whose 5x5 kernel is wider than the field (1x1): only the
    // centre tap meets real input.
    {"effnet dw 5x5 1152 1x1", 32, 1152, 1152, 1, 5, 1, 1152},
    // The ResNet-50 trainer's default model (width 0.125): its 3x3 layers, the trainer's
    // largest share of convolution time.
    {"w/8 s1 3x3 8", 32, 8, 8, 32, 3, 1, 1},
    {"w/8 s2 3x3/2 16", 32, 16, 16, 32, 3, 2, 1},
    {"w/8 s2 3x3 16", 32, 16, 16, 16, 3, 1, 1},
    {"w/8 s3 3x3 32", 32, 32, 32, 8, 3, 1, 1},
    {"w/8 s4 3x3 64", 32, 64, 64, 4, 3, 1, 1},
};
constexpr std::size_t kNumCases = std::size(kConvCases);

/// No shape is listed twice (a layer shared by two roles, like stage 1's expand and projection,
/// is one row).
constexpr bool casesDistinct() {
  for (std::size_t i = 0; i < kNumCases; ++i)
    for (std::size_t j = i + 1; j < kNumCases; ++j) {
      const ConvCase &x = kConvCases[i], &y = kConvCases[j];
      if (x.b == y.b && x.c == y.c && x.o == y.o && x.h == y.h && x.k == y.k && x.s == y.s &&
          x.g == y.g)
        return false;
    }
  return true;
}
static_assert(casesDistinct(), "kConvCases lists a shape twice");

/// The PyTorch script's name for a case: "conv:B,C,O,H,K,S,G".
std::string torchName(const ConvCase &c) {
  std::ostringstream name;
  name << "conv:" << c.b << "," << c.c << "," << c.o << "," << c.h << "," << c.k << "," << c.s
       << "," << c.g;
  return name.str();
}

/// Google Benchmark's name for a case (as ArgNames and UseRealTime spell it).
std::string benchmarkName(const ConvCase &c) {
  std::ostringstream name;
  name << "BM_ConvLayer/B:" << c.b << "/C:" << c.c << "/O:" << c.o << "/H:" << c.h << "/K:" << c.k
       << "/S:" << c.s << "/G:" << c.g << "/real_time";
  return name.str();
}

/// PyTorch milliseconds per iteration by case index, filled by main().
std::map<std::size_t, double> &torchFigures() {
  static std::map<std::size_t, double> figures;
  return figures;
}

struct Bench {
  std::size_t index = kNumCases;
  poplar::Device device;
  std::unique_ptr<poplar::Graph> graph;
  std::unique_ptr<poplar::Engine> engine;
  std::uint64_t flops = 0;
};

/// --profile: engines measure host time per step and print their profile summary when dropped.
bool gProfile = false;
/// --conv-option name=value (repeatable): convolution options for every pass, e.g.
/// useWinograd=false to time the blocks where the planner would choose Winograd.
poplar::OptionFlags gConvOptions;

std::unique_ptr<Bench> &benchSlot() {
  static std::unique_ptr<Bench> slot;
  return slot;
}

/// Drops the current engine (printing its profile summary under --profile).
void dropBench() {
  auto &slot = benchSlot();
  if (slot && gProfile) {
    std::printf("Profile of %s (%s):\n", kConvCases[slot->index].layer,
                torchName(kConvCases[slot->index]).c_str());
    std::ostringstream os;
    slot->engine->printProfileSummary(os);
    std::printf("%s\n", os.str().c_str());
  }
  slot.reset();
}

/// The engine of case `index` with programs 0 = forward, 1 = input gradient, 2 = weight
/// update; built on first use, and the previous case's engine is dropped (Google Benchmark runs
/// a case's repetitions together), so memory holds one engine at a time.
Bench &convBench(std::size_t index) {
  auto &slot = benchSlot();
  if (slot && slot->index == index)
    return *slot;
  dropBench();
  const ConvCase &c = kConvCases[index];
  slot = std::make_unique<Bench>();
  slot->index = index;
  slot->device = poplar::IPUModel().createDevice();
  slot->graph = std::make_unique<poplar::Graph>(slot->device.getTarget());
  poplar::Graph &graph = *slot->graph;
  poplin::addCodelets(graph);
  popops::addCodelets(graph);
  const auto g = std::size_t(c.g);
  poplin::ConvParams p(poplar::FLOAT, std::size_t(c.b), {std::size_t(c.h), std::size_t(c.h)},
                       {std::size_t(c.k), std::size_t(c.k)}, std::size_t(c.c) / g,
                       std::size_t(c.o) / g, g);
  const unsigned pad = unsigned(c.k / 2);
  p.inputTransform.paddingLower = p.inputTransform.paddingUpper = {pad, pad};
  p.outputTransform.stride = {unsigned(c.s), unsigned(c.s)};
  poplin::PlanningCache cache;
  Tensor in = poplin::createInput(graph, p, "in", gConvOptions, &cache);
  Tensor w = poplin::createWeights(graph, p, "w", gConvOptions, &cache);
  const poplin::ConvParams bwd = poplin::getGradientParams(p);
  Tensor z = poplin::createInput(graph, bwd, "zDeltas", gConvOptions, &cache);
  if (gProfile) {
    std::ostringstream os;
    os << "Plans of " << c.layer << ": forward ";
    poplin::reportPlanInfo(os, graph, p, gConvOptions, &cache);
    os << "input gradient ";
    poplin::reportPlanInfo(os, graph, bwd, gConvOptions, &cache);
    os << "weight update ";
    poplin::reportWeightUpdatePlanInfo(os, graph, p, gConvOptions, &cache);
    std::printf("%s", os.str().c_str());
  }
  poplar::program::Sequence fwdProg, bwdProg, wuProg;
  poplin::convolution(graph, in, w, p, false, fwdProg, "fwd", gConvOptions, &cache);
  poplin::convolution(graph, z, w, bwd, true, bwdProg, "bwd", gConvOptions, &cache);
  poplin::convolutionWeightUpdate(graph, z, w, in, p, -0.01f, wuProg, "wu", gConvOptions, &cache);
  slot->engine = std::make_unique<poplar::Engine>(
      graph, std::vector<poplar::program::Program>{fwdProg, bwdProg, wuProg},
      gProfile ? poplar::OptionFlags{{"debug.instrument", "true"}} : poplar::OptionFlags{});
  slot->engine->load(slot->device);
  slot->flops = poplin::getFwdFlops(p) + poplin::getBwdFlops(p) + poplin::getWuFlops(p);
  return *slot;
}

double msOf(const std::chrono::steady_clock::duration &d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

bool isCase(const ConvCase &c, const benchmark::State &state) {
  return state.range(0) == c.b && state.range(1) == c.c && state.range(2) == c.o &&
         state.range(3) == c.h && state.range(4) == c.k && state.range(5) == c.s &&
         state.range(6) == c.g;
}

void BM_ConvLayer(benchmark::State &state) {
  std::size_t index = 0;
  while (index + 1 < kNumCases && !isCase(kConvCases[index], state))
    ++index;
  Bench *built = nullptr;
  try {
    built = &convBench(index);
  } catch (const std::exception &e) {
    // A bad --conv-option, or a plan that does not fit: this case reports why, the rest run.
    benchSlot().reset();
    state.SkipWithError(e.what());
    return;
  }
  Bench &bench = *built;
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
  const auto it = torchFigures().find(index);
  if (it != torchFigures().end()) {
    state.counters["torch_ms"] = it->second;
    state.counters["speed_vs_torch"] = it->second / ms;
  }
  state.SetLabel(kConvCases[index].layer);
}

/// Registers every case, in table order (Run::per_family_instance_index is the case's index).
void registerCases(benchmark::internal::Benchmark *b) {
  for (const ConvCase &c : kConvCases)
    b->Args({c.b, c.c, c.o, c.h, c.k, c.s, c.g});
}
BENCHMARK(BM_ConvLayer)
    ->ArgNames({"B", "C", "O", "H", "K", "S", "G"})
    ->Apply(registerCases)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

/// The console table, plus every iteration run's Tessera time kept per case for the summary.
class SummaryReporter : public benchmark::ConsoleReporter {
public:
  /// Colours only on a terminal (Google Benchmark's --benchmark_color applies to its own
  /// reporter, not to one passed in).
  SummaryReporter() : ConsoleReporter(isatty(fileno(stdout)) ? OO_Defaults : OO_Tabular) {}

  /// Per case: every repetition's Tessera ms, or (with --benchmark_report_aggregates_only,
  /// which reports no single repetitions) the median aggregate alone.
  std::map<std::size_t, std::vector<double>> tesseraMs;

  void ReportRuns(const std::vector<Run> &runs) override {
    for (const Run &run : runs) {
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if ((run.run_type != Run::RT_Iteration && !median) || run.error_occurred)
        continue;
      // By the layer label: instance indices count only the cases a filter lets through.
      const auto ms = run.counters.find("tessera_ms");
      for (std::size_t i = 0; i < kNumCases && ms != run.counters.end(); ++i)
        if (run.report_label == kConvCases[i].layer) {
          if (median)
            tesseraMs[i] = {ms->second.value}; // replaces the repetitions it summarises
          else
            tesseraMs[i].push_back(ms->second.value);
          break;
        }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  /// Per layer: median Tessera ms, PyTorch ms, ratio; then the minimum and geometric mean.
  void printSummary() const {
    if (tesseraMs.empty())
      return;
    std::printf("\nSummary: speed_vs_torch = PyTorch ms / Tessera ms (throughput ratio, higher is "
                "better; goal >= 0.70)\n");
    std::printf("%-30s %-26s %11s %11s %8s\n", "layer", "case", "tessera_ms", "torch_ms", "ratio");
    double minRatio = 0, logSum = 0;
    std::size_t ratios = 0, below = 0;
    for (auto [index, samples] : tesseraMs) {
      std::sort(samples.begin(), samples.end());
      const double ms = samples[samples.size() / 2];
      const ConvCase &c = kConvCases[index];
      const auto torch = torchFigures().find(index);
      if (torch == torchFigures().end()) {
        std::printf("%-30s %-26s %11.3f %11s %8s\n", c.layer, torchName(c).c_str(), ms, "-", "-");
        continue;
      }
      const double ratio = torch->second / ms;
      std::printf("%-30s %-26s %11.3f %11.3f %8.2f%s\n", c.layer, torchName(c).c_str(), ms,
                  torch->second, ratio, ratio < 0.7 ? "  < goal" : "");
      minRatio = ratios ? std::min(minRatio, ratio) : ratio;
      logSum += std::log(ratio);
      ++ratios;
      below += ratio < 0.7;
    }
    if (ratios)
      std::printf("ratio over %zu layers: min %.2f, geometric mean %.2f; %zu below the 0.70 goal\n",
                  ratios, minRatio, std::exp(logSum / double(ratios)), below);
  }
};

/// Whether Google Benchmark's --benchmark_filter (a regex, '-' prefix negates) selects `name`.
bool selected(const std::string &filter, const std::string &name) {
  if (filter.empty() || filter == "all")
    return true;
  const bool negate = filter[0] == '-';
  const bool match = std::regex_search(name, std::regex(negate ? filter.substr(1) : filter));
  return match != negate;
}

/// Runs the PyTorch script for `cases`, keeping per case the fastest figure seen; prints its
/// settings line (the first time), or why it could not run.
void runTorch(double minTime, const std::vector<std::size_t> &cases) {
  static bool settingsPrinted = false;
  const char *python = std::fopen("/usr/bin/python3", "r") ? "/usr/bin/python3" : "python3";
  std::ostringstream cmd;
  cmd << python << " " << CONV_TORCH_SCRIPT << " --min-time " << minTime;
  std::map<std::string, std::size_t> indexOf;
  for (std::size_t i : cases) {
    cmd << " " << torchName(kConvCases[i]);
    indexOf[torchName(kConvCases[i])] = i;
  }
  if (indexOf.empty())
    return;
  cmd << " 2>&1";
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
      if (in >> name >> ms && indexOf.count(name)) {
        const auto [it, fresh] = torchFigures().emplace(indexOf[name], ms);
        if (!fresh)
          it->second = std::min(it->second, ms);
        any = true;
      }
    } else {
      const bool settings = s.rfind("settings ", 0) == 0;
      if (settings && settingsPrinted)
        continue; // the second pass's settings are the first's
      settingsPrinted |= settings;
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
  std::string filter;
  std::vector<char *> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-torch") == 0) {
      torch = false;
    } else if (std::strcmp(argv[i], "--profile") == 0) {
      gProfile = true;
    } else if (std::strcmp(argv[i], "--conv-option") == 0 && i + 1 < argc) {
      const std::string option = argv[++i];
      const auto eq = option.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "conv_bench: --conv-option takes name=value, not '%s'\n",
                     option.c_str());
        return 2;
      }
      gConvOptions.set(option.substr(0, eq), option.substr(eq + 1));
    } else if (std::strcmp(argv[i], "--torch-min-time") == 0 && i + 1 < argc) {
      torchMinTime = std::atof(argv[++i]);
    } else {
      if (std::strncmp(argv[i], "--benchmark_filter=", 19) == 0)
        filter = argv[i] + 19;
      rest.push_back(argv[i]);
    }
  }
  int restCount = static_cast<int>(rest.size());
  benchmark::Initialize(&restCount, rest.data());
  std::printf("Tessera: IPU model with %u tiles, engine host threads = all %u cores\n",
              poplar::IPUModel().tilesPerIPU, std::thread::hardware_concurrency());
  std::vector<std::size_t> cases;
  for (std::size_t i = 0; i < kNumCases; ++i)
    if (selected(filter, benchmarkName(kConvCases[i])))
      cases.push_back(i);
  if (torch)
    runTorch(torchMinTime, cases);
  else
    std::printf("PyTorch: skipped (--no-torch)\n");
  std::fflush(stdout);
  SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  dropBench();
  if (torch) {
    // Again after Tessera, with its memory handed back (beside a live multi-GB engine PyTorch
    // runs up to 2-3x slower), keeping each case's faster figure: the machine's speed drifts
    // by up to ±25% within minutes here, and the ratios should not gain from a slow spell.
    malloc_trim(0);
    runTorch(torchMinTime, cases);
  }
  reporter.printSummary();
  benchmark::Shutdown();
  return 0;
}
