// graph_scale_bench: how graph build, compile, peak memory, executable size and warm start grow
// with the size of a program (issue #44). Each point runs in a child process of its own (this
// program again, in its hidden --one mode, or a trainer's --estimate-ipu run), so the peak
// resident memory the kernel reports for the child is that point's alone.
//
//   graph_scale_bench [--workloads matvec-spread,matvec-local] [--sizes 1000,2000]
//                     [--csv FILE] [--plot FILE.png] [--timeout 600] [--max-rss-gb 12]
#include "graph_scale/ChildProcess.hpp"
#include "graph_scale/MatVecWorkload.hpp"
#include "graph_scale/PointResult.hpp"
#include "graph_scale/Workloads.hpp"

#include <boost/program_options.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace graph_scale;

namespace {

struct Options {
  std::string workloads = "matvec-spread,matvec-local";
  std::string sizes; // empty: each workload's own list
  std::string csvFile, plotFile;
  ChildLimits limits;
  unsigned tiles = 1216;
  unsigned hostThreads = 0;
  std::string resnet50Binary = GRAPH_SCALE_RESNET50_BINARY;
  std::string bertBinary = GRAPH_SCALE_BERT_BINARY;
  std::string trainerArgs;
  std::vector<std::string> one;  // hidden: WORKLOAD SIZE, run one point in this process
  bool stopAfterCompile = false; // hidden, with --one: to profile the compile alone
};

std::vector<std::string> splitList(const std::string &text, char separator) {
  std::vector<std::string> items;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, separator);)
    if (!item.empty())
      items.push_back(item);
  return items;
}

std::vector<std::string> splitWords(const std::string &text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;)
    words.push_back(w);
  return words;
}

unsigned parseSize(const std::string &text, const char *what) {
  std::size_t used = 0;
  unsigned long v = 0;
  try {
    v = std::stoul(text, &used);
  } catch (const std::exception &) {
    used = 0;
  }
  if (used != text.size() || v == 0 || v > 100000000)
    throw std::invalid_argument(std::string(what) + " takes positive integers, not '" + text + "'");
  return static_cast<unsigned>(v);
}

// --- The child: one matrix-vector point, measured in this process -----------------------------

int runOnePoint(const Options &o) {
  if (o.one.size() != 2)
    throw std::invalid_argument("--one takes WORKLOAD SIZE");
  PointResult r;
  r.workload = o.one[0];
  if (r.workload == "warm-up") { // compiles the codelets into the cache, measures nothing
    warmCodeletCache();
    return 0;
  }
  r.size = parseSize(o.one[1], "--one");
  MatVecConfig config;
  config.placement =
      r.workload == "matvec-local" ? VectorPlacement::Local : VectorPlacement::Spread;
  if (!workloadNamed(r.workload).trainer.empty())
    throw std::invalid_argument("--one runs the matvec workloads only, not " + r.workload);
  config.rows = r.size;
  config.tiles = o.tiles;
  config.hostThreads = o.hostThreads;
  config.stopAfterCompile = o.stopAfterCompile;
  const MatVecMeasurement m = measureMatVec(config);
  r.codeletSeconds = m.codeletSeconds;
  r.buildSeconds = m.buildSeconds;
  r.compileSeconds = m.compileSeconds;
  r.compilePeakMiB = m.compilePeakMiB;
  r.vertices = m.vertices;
  if (!o.stopAfterCompile) {
    r.serializeSeconds = m.serializeSeconds;
    r.serializePeakMiB = m.serializePeakMiB;
    r.executableBytes = m.executableBytes;
    r.warmStartSeconds = m.warmStartSeconds;
    r.runSeconds = m.runSeconds;
    r.maxRelativeError = m.maxRelativeError;
  }
  std::cout << pointLine(r) << std::endl;
  return 0;
}

// --- The parent: one child per point ------------------------------------------------------------

// A scratch directory for the children's output and executable cache, removed at the end.
struct Scratch {
  fs::path path;
  Scratch() {
    char pattern[] = "/tmp/graph-scale-bench-XXXXXX";
    if (!::mkdtemp(pattern))
      throw std::runtime_error(std::string("cannot create a temporary directory: ") +
                               std::strerror(errno));
    path = pattern;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
};

std::string lastLines(const std::string &text, std::size_t count) {
  std::size_t at = text.size();
  for (std::size_t n = 0; n <= count && at > 0; ++n)
    at = text.rfind('\n', at - 1);
  return at == std::string::npos ? text : text.substr(at + 1);
}

std::string gigabytes(double gib) {
  std::ostringstream s;
  s << gib;
  return s.str();
}

PointResult measurePoint(const Options &o, const Workload &w, unsigned size, const Scratch &s) {
  std::vector<std::string> argv;
  if (w.trainer.empty()) {
    argv = {"/proc/self/exe", "--one",
            w.name,           std::to_string(size),
            "--tiles",        std::to_string(o.tiles),
            "--host-threads", std::to_string(o.hostThreads)};
  } else {
    const std::string &binary = w.trainer == "resnet50" ? o.resnet50Binary : o.bertBinary;
    if (binary.empty() || !fs::exists(binary))
      throw std::runtime_error("the " + w.trainer + " trainer is not at '" + binary +
                               "'; build it (cmake --build … --target " + w.trainer +
                               ") or pass --" + w.trainer + "-binary");
    argv = {binary};
    std::string line = binary;
    for (auto &a : trainerArguments(w, size, splitWords(o.trainerArgs))) {
      argv.push_back(a);
      line += " " + a;
    }
    // Minutes of silence otherwise: say what is running (and how to run it alone).
    std::cerr << "graph_scale_bench: running " << line << std::endl;
  }
  // No executable cache: every point compiles (a fresh, empty cache directory besides).
  const fs::path cache = s.path / "executable-cache";
  fs::remove_all(cache);
  std::vector<std::string> env{"TESSERA_EXECUTABLE_CACHE=" + cache.string()};
  if (!w.trainer.empty() && !std::getenv("POPLAR_ENGINE_OPTIONS"))
    env.push_back("POPLAR_ENGINE_OPTIONS={\"executableCache.enable\":\"false\"}");

  const ChildResult c = runChild(argv, env, o.limits, s.path);
  PointResult r;
  r.workload = w.name;
  r.size = size;
  r.wallSeconds = c.wallSeconds;
  r.peakRssMiB = c.peakRssMiB;
  if (c.overMemory)
    r.status = "killed: over " + gigabytes(o.limits.maxRssGiB) + " GB";
  else if (c.timedOut)
    r.status = "killed: timeout " + gigabytes(o.limits.timeoutSeconds) + " s";
  else if (c.status != 0)
    r.status = "failed: exit status " + std::to_string(c.status);
  else if (w.trainer.empty() && !readPointLine(c.output, r))
    r.status = "failed: no result line";
  if (!w.trainer.empty())
    readTrainerLog(c.output, r);
  if (r.status != "ok") // where it was when it failed or was killed
    std::cerr << "graph_scale_bench: " << w.name << " " << size << " " << r.status
              << "; the child's last output:\n"
              << lastLines(c.output, 15) << std::endl;
  return r;
}

void drawPlot(const std::string &csvFile, const std::string &plotFile) {
  const std::string script = GRAPH_SCALE_PLOT_SCRIPT;
  const pid_t pid = ::fork();
  if (pid < 0)
    throw std::runtime_error("cannot start the plot script: fork failed");
  if (pid == 0) {
    ::execl("/usr/bin/python3", "/usr/bin/python3", script.c_str(), csvFile.c_str(),
            plotFile.c_str(), static_cast<char *>(nullptr));
    std::perror("graph_scale_bench: cannot run /usr/bin/python3");
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // The script prints why it skipped (no matplotlib: exit 3); a plot is never worth a failure.
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    std::cout << "plot written to " << plotFile << "\n";
  else
    std::cout << "graph_scale_bench: plot skipped (see the message above)\n";
}

int runAll(const Options &o) {
  std::vector<const Workload *> chosen;
  for (const auto &name : splitList(o.workloads, ','))
    chosen.push_back(&workloadNamed(name));
  if (chosen.empty())
    throw std::invalid_argument("--workloads names no workload");
  std::vector<unsigned> sizes;
  for (const auto &s : splitList(o.sizes, ','))
    sizes.push_back(parseSize(s, "--sizes"));

  Scratch scratch;
  bool anyMatVec = false;
  for (const Workload *w : chosen)
    anyMatVec = anyMatVec || w->trainer.empty();
  if (anyMatVec) {
    // The codelet file compiles once, here: no measured child starts the compiler.
    const ChildResult warm =
        runChild({"/proc/self/exe", "--one", "warm-up", "0"}, {}, o.limits, scratch.path);
    if (warm.status != 0)
      throw std::runtime_error("compiling the matvec codelets failed:\n" + warm.output);
  }

  std::vector<PointResult> rows;
  printTableHeader(std::cout);
  int status = 0;
  for (const Workload *w : chosen)
    for (unsigned size : sizes.empty() ? w->defaultSizes : sizes) {
      rows.push_back(measurePoint(o, *w, size, scratch));
      printTableRow(std::cout, rows.back());
      if (rows.back().status != "ok")
        status = 1;
    }

  std::string csvFile = o.csvFile;
  if (csvFile.empty() && !o.plotFile.empty())
    csvFile = (scratch.path / "points.csv").string();
  if (!csvFile.empty()) {
    std::ofstream csv(csvFile);
    printCsvHeader(csv);
    for (const auto &r : rows)
      printCsvRow(csv, r);
    if (!csv)
      throw std::runtime_error("cannot write '" + csvFile + "'");
    csv.close();
    if (!o.csvFile.empty())
      std::cout << "rows written to " << csvFile << "\n";
  }
  if (!o.plotFile.empty())
    drawPlot(csvFile, o.plotFile);
  return status;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  bool help = false;
  po::options_description visible(
      "graph_scale_bench: graph build and compile time, peak memory, executable size and warm "
      "start against program size, one child process per point");
  // clang-format off
  visible.add_options()
    ("help", po::bool_switch(&help), "Print this help")
    ("workloads", po::value(&o.workloads)->default_value(o.workloads),
     "Comma-separated: matvec-spread (R x 1000 matrix, vector one element per tile), "
     "matvec-local (the vector on tile 0), resnet50 and bert-large (the trainers' --estimate-ipu "
     "runs, long: opt-in)")
    ("sizes", po::value(&o.sizes),
     "Comma-separated sizes for every chosen workload: rows for matvec (default "
     "1000,2000,5000,10000,20000), micro-batch for resnet50 (1,2,4,8,20) and bert-large (8)")
    ("csv", po::value(&o.csvFile), "Also write the rows to this CSV file")
    ("plot", po::value(&o.plotFile),
     "Draw peak RSS and build+compile seconds against size (log-log) into this PNG "
     "(tests/benchmarks/graph_scale_plot.py, needs python3-matplotlib)")
    ("timeout", po::value(&o.limits.timeoutSeconds)->default_value(o.limits.timeoutSeconds),
     "Kill a point's child after this many seconds")
    ("max-rss-gb", po::value(&o.limits.maxRssGiB)->default_value(o.limits.maxRssGiB),
     "Kill a point's child when its resident memory passes this many GiB")
    ("tiles", po::value(&o.tiles)->default_value(o.tiles), "matvec: tiles of the IPU model")
    ("host-threads", po::value(&o.hostThreads)->default_value(o.hostThreads),
     "matvec: host threads running tiles (0: all cores)")
    ("resnet50-binary", po::value(&o.resnet50Binary)->default_value(o.resnet50Binary),
     "The resnet50 trainer")
    ("bert-binary", po::value(&o.bertBinary)->default_value(o.bertBinary), "The bert trainer")
    ("trainer-args", po::value(&o.trainerArgs),
     "Extra trainer flags, e.g. \"--image-size 64 --width 0.25\" (a flag already given is "
     "replaced)");
  po::options_description hidden;
  hidden.add_options()
    ("one", po::value(&o.one)->multitoken(), "WORKLOAD SIZE: measure one point in this process")
    ("stop-after-compile", po::bool_switch(&o.stopAfterCompile),
     "With --one: stop once compiled (e.g. under heaptrack, to see the compile alone)");
  // clang-format on
  po::options_description all;
  all.add(visible).add(hidden);
  try {
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, all), vm);
    po::notify(vm);
    if (help) {
      std::cout << visible << "\n";
      return 0;
    }
    if (!(o.limits.timeoutSeconds > 0) || !(o.limits.maxRssGiB > 0))
      throw std::invalid_argument("--timeout and --max-rss-gb must be positive");
    if (o.tiles == 0)
      throw std::invalid_argument("--tiles must be positive");
    return o.one.empty() ? runAll(o) : runOnePoint(o);
  } catch (const po::error &e) {
    std::cerr << "graph_scale_bench: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const std::invalid_argument &e) {
    std::cerr << "graph_scale_bench: " << e.what() << "\n";
    return 2;
  } catch (const std::exception &e) {
    std::cerr << "graph_scale_bench: error: " << e.what() << "\n";
    return 1;
  }
}
