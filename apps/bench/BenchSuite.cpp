#include "BenchSuite.hpp"

#include <tessera/apps/Errors.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char **environ;

namespace tessera::bench {
namespace {

std::string joined(const std::vector<std::string> &args) {
  std::string text;
  for (const auto &a : args)
    text += (text.empty() ? "" : " ") + a;
  return text;
}

// Runs argv[0] with the arguments, inheriting stdout/stderr so the trainer's progress shows.
int runAndWait(const std::vector<std::string> &argv) {
  std::vector<char *> pointers;
  for (const auto &a : argv)
    pointers.push_back(const_cast<char *>(a.c_str()));
  pointers.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, argv[0].c_str(), nullptr, nullptr, pointers.data(), environ);
  if (rc != 0)
    throw apps::app_error("cannot start trainer " + argv[0] + ": " + std::strerror(rc) +
                          "; build it or pass --trainer");
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      throw apps::app_error("waiting for trainer " + argv[0] + ": " + std::strerror(errno));
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

} // namespace

const std::vector<BenchmarkSpec> &standardBenchmarks() {
  // Fixed configurations: change them only together with a VERSION bump, or the records of
  // different versions stop being comparable.
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
        "--seed",        "1",      "--width",        "0.125"}},
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
  };
  return benchmarks;
}

apps::BenchmarkRecord runBenchmark(const BenchmarkSpec &spec, const std::filesystem::path &trainer,
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

  apps::BenchmarkRecord record;
  try {
    const int status = runAndWait(argv);
    if (status != 0)
      throw apps::app_error("trainer " + trainer.string() + " exited with status " +
                            std::to_string(status) + " running benchmark " + spec.name + " (" +
                            joined(argv) + ")");
    if (!std::filesystem::exists(recordFile))
      throw apps::app_error("trainer " + trainer.string() + " wrote no record to " +
                            recordFile.string() + " for benchmark " + spec.name +
                            "; does it support --record-file?");
    record = apps::loadBenchmarkRecord(recordFile);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(tempDir, ec);
    throw;
  }
  std::error_code ec;
  std::filesystem::remove_all(tempDir, ec);

  record.set_benchmark(spec.name);
  if (record.app().empty())
    record.set_app(spec.app);
  if (record.host().host_class().empty())
    *record.mutable_host() = apps::detectHost();
  (*record.mutable_config())["bench-args"] = joined(spec.args);
  return record;
}

} // namespace tessera::bench
