#include "BenchSuite.hpp"

#include "CpuSteal.hpp"
#include "Process.hpp"

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingOptions.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

namespace tessera::bench {
namespace {

std::vector<std::string> splitCommas(const std::string &text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty())
      parts.push_back(part);
  return parts;
}

} // namespace

const std::vector<BenchmarkSpec> &standardBenchmarks() {
  // Fixed configurations: change them only together with a VERSION bump, or the records of
  // different versions stop being comparable. Throughput entries take under two minutes each
  // on a 2-core machine (compile included); the long ones train to an accuracy target.
  static const std::vector<BenchmarkSpec> benchmarks = {
      {"resnet50-synthetic-throughput",
       "resnet50",
       "ResNet-50 training throughput on synthetic data (no input pipeline cost)",
       {"--synthetic-data", "--batch-size", "32", "--epochs", "1", "--train-subset", "640",
        "--validation", "false", "--precision", "32.32", "--seed", "1", "--width", "0.125"}},
      {"resnet50-time-to-accuracy",
       "resnet50",
       "ResNet-50 (width 0.125, small stem) on Fashion-MNIST to 90% test accuracy: seconds",
       {"--batch-size",  "32",     "--epochs",       "3",     "--learning-rate",   "0.05",
        "--momentum",    "0.9",    "--weight-decay", "5e-05", "--warmup-epochs",   "0.2",
        "--lr-schedule", "cosine", "--precision",    "32.32", "--target-accuracy", "0.90",
        "--seed",        "1",      "--width",        "0.125"},
       true},
      {"bert-mini-phase1-throughput",
       "bert",
       "BERT mini (4 layers, hidden 256) phase-1 pre-training on FOLDOC, sequence 128, batch 16",
       {"--config", "mini", "--sequence-length", "128", "--batch-size", "16", "--steps", "64",
        "--steps-per-run", "8", "--evaluate-every", "0", "--evaluation-batches", "4", "--precision",
        "32.32", "--seed", "1"}},
      {"efficientnet-b0-synthetic-throughput",
       "efficientnet",
       "EfficientNet-B0 (depthwise, batch norm, small stem) training throughput on synthetic "
       "32x32 data",
       {"--variant", "b0", "--synthetic-data", "--image-size", "32", "--batch-size", "32",
        "--epochs", "1", "--train-subset", "640", "--validation", "false", "--precision", "32.32",
        "--seed", "1"}},
      // BERT mini leaves the unigram plateau (held-out MLM accuracy 0.037) after ~300 steps at
      // batch 16; 0.08 marks learning past it. 1024 steps ≈ 7 minutes at 40 sequences/s, with
      // evaluations every 128 steps (a multiple of --steps-per-run, as the trainer needs).
      {"bert-mini-mlm-accuracy",
       "bert",
       "BERT mini phase-1 pre-training on FOLDOC to 8% held-out masked-LM accuracy: seconds",
       {"--config",
        "mini",
        "--sequence-length",
        "128",
        "--batch-size",
        "16",
        "--steps",
        "1024",
        "--steps-per-run",
        "8",
        "--evaluate-every",
        "128",
        "--evaluation-batches",
        "4",
        "--target-mlm-accuracy",
        "0.08",
        "--precision",
        "32.32",
        "--seed",
        "1"},
       true},
      // B0 with the trainer's defaults reaches 0.876 after the first Fashion-MNIST epoch (README),
      // so 85% ends the run after one epoch (about 15 minutes on 2 cores); the second epoch is
      // the margin for a slower-learning change.
      {"efficientnet-b0-time-to-accuracy",
       "efficientnet",
       "EfficientNet-B0 (depthwise, batch norm, small stem) on Fashion-MNIST to 85% test "
       "accuracy: seconds",
       {"--variant", "b0", "--image-size", "32", "--batch-size", "32", "--epochs", "2",
        "--target-accuracy", "0.85", "--stop-at-target", "--precision", "32.32", "--seed", "1"},
       true},
  };
  return benchmarks;
}

std::vector<BenchmarkSpec> selectBenchmarks(const std::string &names, bool includeLong) {
  const auto &all = standardBenchmarks();
  std::vector<BenchmarkSpec> chosen;
  if (names.empty()) {
    for (const auto &b : all)
      if (includeLong || !b.longRunning)
        chosen.push_back(b);
    return chosen;
  }
  std::vector<std::string> known;
  for (const auto &b : all)
    known.push_back(b.name);
  const std::vector<std::string> wanted = splitCommas(names);
  for (const std::string &name : wanted)
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      const std::string near = apps::nearestName(name, known);
      throw apps::cli_error("--benchmarks: unknown benchmark '" + name + "'" +
                            (near.empty() ? "" : "; did you mean " + near + "?") +
                            " (tessera-bench list shows them)");
    }
  for (const auto &b : all)
    if (std::find(wanted.begin(), wanted.end(), b.name) != wanted.end())
      chosen.push_back(b);
  return chosen;
}

std::filesystem::path trainerIn(const std::filesystem::path &buildDir, const std::string &app) {
  return buildDir / "apps" / app / app;
}

MeasuredRun runBenchmarkMeasured(const BenchmarkSpec &spec, const std::filesystem::path &trainer,
                                 const std::vector<std::string> &extraArgs) {
  if (!std::filesystem::exists(trainer))
    throw apps::app_error("trainer " + trainer.string() + " for benchmark " + spec.name +
                          " does not exist; build it (ninja " + spec.app + ") or pass --trainer");
  char pattern[] = "/tmp/tessera-bench-XXXXXX";
  if (!::mkdtemp(pattern))
    throw apps::app_error(std::string("cannot create a temporary directory: ") +
                          std::strerror(errno));
  const std::filesystem::path tempDir = pattern;
  const std::filesystem::path recordFile = tempDir / "record.json";

  std::vector<std::string> argv = {trainer.string()};
  argv.insert(argv.end(), spec.args.begin(), spec.args.end());
  argv.insert(argv.end(), extraArgs.begin(), extraArgs.end());
  argv.push_back("--record-file");
  argv.push_back(recordFile.string());

  MeasuredRun run;
  try {
    const auto before = readCpuTimes();
    ProcessResult process;
    try {
      process = runProcess(argv);
    } catch (const apps::app_error &e) {
      throw apps::app_error(std::string(e.what()) + "; build it or pass --trainer");
    }
    run.stealShare = stolenShare(before, readCpuTimes());
    if (process.status != 0)
      throw apps::app_error("trainer " + trainer.string() + " exited with status " +
                            std::to_string(process.status) + " running benchmark " + spec.name +
                            " (" + commandLine(argv) + ")");
    if (!std::filesystem::exists(recordFile))
      throw apps::app_error("trainer " + trainer.string() + " wrote no record to " +
                            recordFile.string() + " for benchmark " + spec.name +
                            "; does it support --record-file?");
    run.record = apps::loadBenchmarkRecord(recordFile);
    run.wallSeconds = process.wallSeconds;
    run.peakRssKiB = process.peakRssKiB;
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(tempDir, ec);
    throw;
  }
  std::error_code ec;
  std::filesystem::remove_all(tempDir, ec);

  apps::BenchmarkRecord &record = run.record;
  record.set_benchmark(spec.name);
  if (record.app().empty())
    record.set_app(spec.app);
  if (record.host().host_class().empty())
    *record.mutable_host() = apps::detectHost();
  (*record.mutable_config())["bench-args"] = commandLine(spec.args);
  return run;
}

apps::BenchmarkRecord runBenchmark(const BenchmarkSpec &spec, const std::filesystem::path &trainer,
                                   const std::vector<std::string> &extraArgs) {
  return runBenchmarkMeasured(spec, trainer, extraArgs).record;
}

} // namespace tessera::bench
