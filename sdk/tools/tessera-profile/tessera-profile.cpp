// tessera-profile: the command-line view of Tessera profile files.
//
//   tessera-profile summary   <dir|graph_profile.pb> [--steps]
//   tessera-profile top       <dir|graph_profile.pb> [-n N]
//   tessera-profile memory    <dir|graph_profile.pb>
//   tessera-profile diff      <a> <b>
//   tessera-profile html      <dir|graph_profile.pb> -o report.html
//   tessera-profile json      <dir|graph_profile.pb>
//   tessera-profile breakdown <dir|graph_profile.pb>       (host time by kind and layer)
//   tessera-profile trace     <dir|graph_profile.pb> -o trace.json (Chrome/Perfetto)
// A directory means the autoReport.directory an Engine wrote (its execution profile is used
// when present).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <poplar/exceptions.hpp>
#include <tessera/profile/ProfileReader.hpp>
#include <tessera/profile/StepBreakdown.hpp>

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace tessera::profile;

namespace {

struct Loaded {
  GraphProfile graph;
  std::optional<ExecutionProfile> exec;
};

Loaded load(const std::string &where) {
  Loaded l;
  fs::path graphPath = where, execPath;
  if (fs::is_directory(where)) {
    graphPath = fs::path(where) / kGraphProfileFile;
    execPath = fs::path(where) / kExecutionProfileFile;
  } else {
    execPath = fs::path(where).parent_path() / kExecutionProfileFile;
  }
  l.graph = readGraphProfile(graphPath.string());
  if (fs::exists(execPath))
    l.exec = readExecutionProfile(execPath.string());
  return l;
}

void usage(std::ostream &out, const po::options_description &opts) {
  out << "Usage: tessera-profile <summary|top|memory|diff|html|json|breakdown|trace> <profile> "
         "[<profile>] "
         "[options]\n"
         "  <profile> is an autoReport.directory or a graph_profile.pb file.\n"
      << opts;
}

} // namespace

int main(int argc, char **argv) {
  po::options_description opts("Options");
  opts.add_options()("help,h", "show this help")("steps", "summary: list the execution steps")(
      "n,n", po::value<std::size_t>()->default_value(10), "top: how many compute sets")(
      "output,o", po::value<std::string>(), "html, trace: the file to write");
  po::options_description hidden;
  hidden.add_options()("command", po::value<std::string>())(
      "profiles", po::value<std::vector<std::string>>()->default_value({}, ""));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("command", 1).add("profiles", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error &e) {
    std::cerr << "tessera-profile: " << e.what() << '\n';
    usage(std::cerr, opts);
    return 2;
  }
  if (vm.count("help") || !vm.count("command")) {
    usage(vm.count("help") ? std::cout : std::cerr, opts);
    return vm.count("help") ? 0 : 2;
  }
  const std::string command = vm["command"].as<std::string>();
  const auto profiles = vm["profiles"].as<std::vector<std::string>>();
  const std::size_t want = command == "diff" ? 2 : 1;
  if (profiles.size() != want) {
    std::cerr << "tessera-profile " << command << ": expected " << want << " profile(s)\n";
    return 2;
  }
  try {
    if (command == "summary") {
      const Loaded l = load(profiles[0]);
      SummaryOptions so;
      so.showExecutionSteps = vm.count("steps") > 0;
      printSummary(std::cout, l.graph, l.exec ? &*l.exec : nullptr, so);
    } else if (command == "top") {
      const Loaded l = load(profiles[0]);
      printTopComputeSets(std::cout, l.graph, l.exec ? &*l.exec : nullptr,
                          vm["n"].as<std::size_t>());
    } else if (command == "memory") {
      printTileMemoryTable(std::cout, load(profiles[0]).graph);
    } else if (command == "diff") {
      printDiff(std::cout, load(profiles[0]).graph, load(profiles[1]).graph);
    } else if (command == "html") {
      if (!vm.count("output")) {
        std::cerr << "tessera-profile html: give the report file with -o\n";
        return 2;
      }
      const Loaded l = load(profiles[0]);
      writeHtmlReport(vm["output"].as<std::string>(), l.graph, l.exec ? &*l.exec : nullptr);
    } else if (command == "breakdown" || command == "trace") {
      const Loaded l = load(profiles[0]);
      if (!l.exec) {
        std::cerr << "tessera-profile " << command << ": " << profiles[0]
                  << " has no execution profile (run the engine with debug.instrument)\n";
        return 1;
      }
      if (command == "breakdown") {
        printStepBreakdown(std::cout, l.graph, *l.exec);
      } else {
        if (!vm.count("output")) {
          std::cerr << "tessera-profile trace: give the trace file with -o\n";
          return 2;
        }
        std::ofstream out(vm["output"].as<std::string>());
        writeChromeTrace(out, l.graph, *l.exec);
        if (!out)
          throw poplar::runtime_error("cannot write '" + vm["output"].as<std::string>() + "'");
      }
    } else if (command == "json") {
      const Loaded l = load(profiles[0]);
      std::cout << toJson(l.graph) << '\n';
      if (l.exec)
        std::cout << toJson(*l.exec) << '\n';
    } else {
      std::cerr << "tessera-profile: unknown command '" << command
                << "' (expected summary, top, memory, diff, html, json, breakdown or trace)\n";
      return 2;
    }
  } catch (const poplar::poplar_error &e) {
    std::cerr << "tessera-profile: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
