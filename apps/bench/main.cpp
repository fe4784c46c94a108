// tessera-bench: the SDK's release benchmark driver.
//   tessera-bench run       run the standard benchmarks through the trainers, store the records
//   tessera-bench table     speedups of a VERSION over every earlier one on this host class
//   tessera-bench releases  regenerate the benchmark section of RELEASES.md from the records
//   tessera-bench list      the standard benchmarks and their fixed arguments
#include "BenchSuite.hpp"

#include <tessera/apps/BenchReport.hpp>
#include <tessera/apps/Errors.hpp>
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
  std::string benchmarks; // comma-separated subset; empty runs all
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

std::vector<std::string> splitCommas(const std::string &text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty())
      parts.push_back(part);
  return parts;
}

std::vector<bench::BenchmarkSpec> selectedBenchmarks(const std::string &names) {
  const auto &all = bench::standardBenchmarks();
  if (names.empty())
    return all;
  std::vector<bench::BenchmarkSpec> chosen;
  std::vector<std::string> known;
  for (const auto &b : all)
    known.push_back(b.name);
  for (const std::string &name : splitCommas(names)) {
    const auto found =
        std::find_if(all.begin(), all.end(), [&](const auto &b) { return b.name == name; });
    if (found == all.end()) {
      const std::string near = apps::nearestName(name, known);
      throw apps::cli_error("--benchmarks: unknown benchmark '" + name + "'" +
                            (near.empty() ? "" : "; did you mean " + near + "?") +
                            " (tessera-bench list shows them)");
    }
    chosen.push_back(*found);
  }
  return chosen;
}

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
  const std::string hostClass = o.hostClass.empty() ? apps::detectHost().host_class() : o.hostClass;
  if (o.command == "list") {
    for (const auto &b : bench::standardBenchmarks()) {
      std::cout << b.name << " (" << b.app << "): " << b.description << "\n   ";
      for (const auto &a : b.args)
        std::cout << " " << a;
      std::cout << "\n";
    }
    return 0;
  }
  if (o.command == "run") {
    pricePerHour(o); // reject bad prices before hours of benchmarking
    for (const auto &spec : selectedBenchmarks(o.benchmarks)) {
      std::cout << "tessera-bench: running " << spec.name << "\n" << std::flush;
      const std::filesystem::path trainer =
          o.trainer.empty() ? std::filesystem::path(TESSERA_BENCH_APPS_DIR) / spec.app / spec.app
                            : std::filesystem::path(o.trainer);
      apps::BenchmarkRecord record = bench::runBenchmark(spec, trainer, o.trainerArgs);
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
  if (o.command == "releases") {
    std::string document;
    if (std::ifstream in(o.releasesFile); in)
      document.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    else
      document = "# Releases\n";
    const std::string updated = apps::replaceReleasesSection(
        document, apps::releasesSection(apps::loadBenchmarkRecords(o.recordsDir)));
    std::ofstream out(o.releasesFile, std::ios::trunc);
    out << updated;
    if (!out)
      throw apps::app_error("cannot write " + o.releasesFile);
    std::cout << "tessera-bench: updated " << o.releasesFile << "\n";
    return 0;
  }
  throw apps::cli_error("unknown command '" + o.command + "'; use run, table, releases or list");
}

} // namespace

int main(int argc, char **argv) {
  BenchOptions o;
  po::options_description description(
      "tessera-bench [run|table|releases|list] [options]\n"
      "Runs the standard benchmarks through the trainers, keeps one record per VERSION,\n"
      "benchmark and host class, and compares versions");
  auto optionalDouble = [](std::optional<double> &target) {
    return po::value<double>()->notifier([&target](double v) { target = v; });
  };
  // clang-format off
  description.add_options()
    ("help", po::bool_switch(&o.help), "Print this help and exit")
    ("command", po::value(&o.command)->default_value(o.command), "run | table | releases | list")
    ("trainer", po::value(&o.trainer), "Trainer executable for every selected benchmark (default: each benchmark's own, apps/<app>/<app> in the build tree)")
    ("trainer-arg", po::value(&o.trainerArgs)->composing(),
     "Extra argument passed to every trainer run (repeatable), e.g. --trainer-arg=--host-threads=2")
    ("benchmarks", po::value(&o.benchmarks), "Comma-separated benchmarks to run (default: all)")
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
  positional.add("command", 1);
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
