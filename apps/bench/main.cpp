// tessera-bench: the SDK's release benchmark driver.
//   tessera-bench run       run the standard benchmarks through the trainers, store the records
//   tessera-bench table     speedups of a VERSION over every earlier one on this host class
//   tessera-bench releases  regenerate the benchmark section of RELEASES.md from the records
//   tessera-bench compare BASELINE  build BASELINE beside this tree and measure both, alternating
//   tessera-bench list      the standard benchmarks and their fixed arguments
//   tessera-bench ipu-estimate  ResNet-50 and BERT-Large priced on a simulated IPU-POD16
#include "BenchSuite.hpp"
#include "CompareCommand.hpp"
#include "IpuEstimateCommand.hpp"

#include <tessera/apps/BenchReport.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/FileEnvelope.hpp>
#include <tessera/apps/TrainingOptions.hpp>

#include <poplar/Version.hpp>

#include <boost/program_options.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

namespace po = boost::program_options;
using namespace tessera;

namespace {

struct BenchOptions {
  std::string command = "table";
  std::string trainer;    // empty: each benchmark's own trainer in the build tree
  std::string benchmarks; // comma-separated subset; empty runs all but the long ones
  bool includeLong = false;
  std::string baseline; // compare: VERSION or git revision
  unsigned rounds = 3;
  std::string repo = TESSERA_BENCH_SOURCE_DIR;
  std::string baselinesDir = std::string(TESSERA_BENCH_BUILD_DIR) + "/bench-baselines";
  std::string baselineBuildDir;
  std::string recordsDir = TESSERA_BENCH_RECORDS_DIR;
  std::string releasesFile = TESSERA_BENCH_RELEASES_FILE;
  std::string version = poplar::versionNumber();
  std::string hostClass; // empty: this machine
  std::vector<std::string> trainerArgs;
  std::optional<double> pricePerHour;
  std::optional<double> systemPrice;
  std::optional<double> amortisationYears;
  bool help = false;
};

// Dollars per hour from --price-per-hour or --system-price with --amortisation-years.
std::optional<double> pricePerHour(const BenchOptions &o) {
  if (o.pricePerHour && o.systemPrice)
    throw apps::cli_error("give either --price-per-hour or --system-price, not both");
  if (o.pricePerHour) {
    if (!(*o.pricePerHour > 0))
      throw apps::cli_error("--price-per-hour must be > 0 dollars");
    return o.pricePerHour;
  }
  if (o.systemPrice || o.amortisationYears) {
    if (!o.systemPrice || !o.amortisationYears)
      throw apps::cli_error("--system-price and --amortisation-years go together");
    return apps::pricePerHourFromSystem(*o.systemPrice, *o.amortisationYears);
  }
  return std::nullopt;
}

std::string money(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4f", v);
  return text;
}

void printCosts(const std::vector<apps::BenchmarkRecord> &records, const std::string &version,
                const std::string &hostClass, double price) {
  std::cout << "\nPerformance per dollar at $" << money(price) << "/h (" << version << ", "
            << hostClass << "):\n";
  for (const auto &r : records) {
    if (r.sdk_version() != version || r.host().host_class() != hostClass)
      continue;
    const apps::CostFigures f = apps::costFigures(r, price);
    std::cout << "  " << r.benchmark() << ": " << f.imagesPerSecondPerDollarHour
              << " images/s per $/h";
    if (f.costToTrain)
      std::cout << ", $" << money(*f.costToTrain) << " to train";
    std::cout << "\n";
  }
}

void printTable(const BenchOptions &o, const std::string &hostClass) {
  const auto records = apps::loadBenchmarkRecords(o.recordsDir);
  const auto rows = apps::speedupTable(records, o.version, hostClass);
  std::cout << "Speedups of " << o.version << " on " << hostClass << " (" << o.recordsDir << "):\n";
  if (rows.empty())
    std::cout << "  no earlier version recorded on this host class\n";
  else
    std::cout << apps::formatSpeedupTable(rows);
  if (const auto price = pricePerHour(o))
    printCosts(records, o.version, hostClass, *price);
}

int run(const BenchOptions &o) {
  if (!o.baseline.empty() && o.command != "compare")
    throw apps::cli_error("unexpected argument '" + o.baseline + "' after " + o.command +
                          " (only compare takes a BASELINE)");
  const std::string hostClass = o.hostClass.empty() ? apps::detectHost().host_class() : o.hostClass;
  if (o.command == "list") {
    for (const auto &b : bench::standardBenchmarks()) {
      std::cout << b.name << " (" << b.app << (b.longRunning ? ", long" : "")
                << "): " << b.description << "\n   ";
      for (const auto &a : b.args)
        std::cout << " " << a;
      std::cout << "\n";
    }
    return 0;
  }
  if (o.command == "run") {
    pricePerHour(o); // reject bad prices before hours of benchmarking
    for (const auto &spec : bench::selectBenchmarks(o.benchmarks, o.includeLong)) {
      std::cout << "tessera-bench: running " << spec.name << "\n" << std::flush;
      const std::filesystem::path trainer =
          o.trainer.empty() ? bench::trainerIn(TESSERA_BENCH_BUILD_DIR, spec.app)
                            : std::filesystem::path(o.trainer);
      apps::BenchmarkRecord record = bench::runBenchmark(spec, trainer, o.trainerArgs);
      // A record must name the commit it measured, or `compare VERSION` cannot find it later.
      if (record.git_commit().empty() || record.git_commit() == "unknown") {
        record.set_git_commit(apps::gitCommit(o.repo));
        std::cout << "tessera-bench: " << spec.name << ": the trainer's record names no commit; "
                  << "recorded as " << record.git_commit() << " (" << o.repo << ")\n";
      }
      const std::filesystem::path file =
          std::filesystem::path(o.recordsDir) / apps::benchmarkRecordFileName(record);
      apps::saveBenchmarkRecord(file, record);
      std::cout << "tessera-bench: " << spec.name << ": " << record.throughput_images_per_second()
                << " samples/s -> " << file.string() << "\n";
    }
    printTable(o, hostClass);
    return 0;
  }
  if (o.command == "table") {
    printTable(o, hostClass);
    return 0;
  }
  if (o.command == "compare") {
    bench::CompareOptions c;
    c.baseline = o.baseline;
    c.benchmarks = bench::selectBenchmarks(o.benchmarks, o.includeLong);
    c.rounds = o.rounds;
    c.repo = o.repo;
    c.recordsDir = o.recordsDir;
    c.currentBuildDir = TESSERA_BENCH_BUILD_DIR;
    c.currentTrainer = o.trainer;
    c.currentVersion = o.version;
    c.baselinesDir = o.baselinesDir;
    c.baselineBuildDir = o.baselineBuildDir;
    c.trainerArgs = o.trainerArgs;
    c.hostClass = o.hostClass;
    c.pricePerHour = pricePerHour(o);
    if (c.pricePerHour)
      c.priceSource =
          o.pricePerHour ? "--price-per-hour" : "--system-price over --amortisation-years";
    return bench::runCompare(c, std::cout);
  }
  if (o.command == "ipu-estimate")
    return bench::runIpuEstimates(TESSERA_BENCH_BUILD_DIR, o.benchmarks, o.trainerArgs,
                                  std::filesystem::path(TESSERA_BENCH_BUILD_DIR) / "ipu-estimates",
                                  std::cout);
  if (o.command == "releases") {
    std::string document;
    if (std::ifstream in(o.releasesFile); in)
      document.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    else
      document = "# Releases\n";
    const std::string updated = apps::replaceReleasesSection(
        document, apps::releasesSection(apps::loadBenchmarkRecords(o.recordsDir),
                                        apps::loadComparisonRecords(o.recordsDir)));
    try {
      apps::writeFileAtomically(o.releasesFile, updated);
    } catch (const apps::file_write_error &e) {
      throw apps::app_error(std::string(e.what()) + "; check --releases-file");
    }
    std::cout << "tessera-bench: updated " << o.releasesFile << "\n";
    return 0;
  }
  throw apps::cli_error("unknown command '" + o.command +
                        "'; use run, table, compare, releases, list or ipu-estimate");
}

} // namespace

int main(int argc, char **argv) {
  BenchOptions o;
  po::options_description description(
      "tessera-bench [run|table|releases|list|ipu-estimate] [options]\n"
      "tessera-bench compare BASELINE [--benchmarks a,b] [--rounds N] [--long] [options]\n"
      "Runs the standard benchmarks through the trainers, keeps one record per VERSION,\n"
      "benchmark and host class, and compares versions; compare builds BASELINE (a VERSION\n"
      "or git revision) in a worktree and runs both builds in alternating rounds");
  auto optionalDouble = [](std::optional<double> &target) {
    return po::value<double>()->notifier([&target](double v) { target = v; });
  };
  // clang-format off
  description.add_options()
    ("help", po::bool_switch(&o.help), "Print this help and exit")
    ("command", po::value(&o.command)->default_value(o.command), "run | table | compare | releases | list | ipu-estimate")
    ("baseline", po::value(&o.baseline), "compare: the VERSION (resolved through its records' gitCommit, else the first commit whose VERSION file holds it) or git revision to compare with")
    ("trainer", po::value(&o.trainer), "Trainer executable for every selected benchmark (default: each benchmark's own, apps/<app>/<app> in the build tree)")
    ("trainer-arg", po::value(&o.trainerArgs)->composing(),
     "Extra argument passed to every trainer run (repeatable), e.g. --trainer-arg=--host-threads=2")
    ("benchmarks", po::value(&o.benchmarks), "Comma-separated benchmarks to run (default: all but the long ones; ipu-estimate: resnet50, bert-large)")
    ("long", po::bool_switch(&o.includeLong), "Also run the long (time-to-accuracy) benchmarks")
    ("rounds", po::value(&o.rounds)->default_value(o.rounds), "compare: alternating rounds per benchmark")
    ("repo", po::value(&o.repo)->default_value(o.repo), "compare: git repository the baseline is resolved and checked out from")
    ("baselines-dir", po::value(&o.baselinesDir)->default_value(o.baselinesDir), "compare: where baseline worktrees (<short hash>/) and their builds go")
    ("baseline-build-dir", po::value(&o.baselineBuildDir), "compare: use this existing build of the baseline (apps/<app>/<app> inside) instead of checking out and building it")
    ("records-dir", po::value(&o.recordsDir)->default_value(o.recordsDir),
     "Where records are kept, one JSON per VERSION, benchmark and host class")
    ("releases-file", po::value(&o.releasesFile)->default_value(o.releasesFile),
     "RELEASES.md whose benchmark section 'releases' regenerates")
    ("version", po::value(&o.version)->default_value(o.version),
     "VERSION compared against every earlier recorded one")
    ("host-class", po::value(&o.hostClass), "Host class to report (default: this machine's)")
    ("price-per-hour", optionalDouble(o.pricePerHour), "Machine price, dollars per hour")
    ("system-price", optionalDouble(o.systemPrice),
     "Machine purchase price in dollars (with --amortisation-years)")
    ("amortisation-years", optionalDouble(o.amortisationYears),
     "Years of continuous use the purchase is written off over");
  // clang-format on
  po::positional_options_description positional;
  positional.add("command", 1).add("baseline", 1);
  try {
    apps::parseCommandLine(argc, argv, description, &positional);
    if (o.help) {
      std::cout << description << "\n";
      return 0;
    }
    return run(o);
  } catch (const apps::cli_error &e) {
    std::cerr << "tessera-bench: " << e.what() << "\n";
    return 2;
  } catch (const poplar::poplar_error &e) {
    std::cerr << "tessera-bench: " << e.what() << "\n";
    return 1;
  }
}
