// popc: compiles codelet files ahead of time, like Graphcore's popc.
//
//   popc [options] codelets.cpp [more.cpp …] -o codelets.gp
//
// It takes what Graphcore's build files pass popc: several sources into one object, -I, -D,
// -O<level>, -g, any -W<warning> (-Wall, -Wextra, -Werror, -Wno-…) and --target with one
// target or a comma-separated list.
// Tessera runs codelets on the host, so the object is a host shared library (plus Tessera's
// registration function) that `graph.addCodelets("codelets.gp")` loads without compiling.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include <poplar/Version.hpp>
#include <poplar/exceptions.hpp>
#include <tessera/Codelets.hpp>

namespace po = boost::program_options;

namespace {

/// `s` quoted for the compiler flag string (which is split like a shell command line).
std::string shellQuoted(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> inputs, includes, defines, warnings, targetLists;
  std::string output, optLevel, compileFlags;
  bool debug = false, verbose = false;

  po::options_description visible("popc (Tessera " + poplar::versionNumber() +
                                  "): precompile codelet files\n\n"
                                  "Usage: popc [options] <codelets.cpp> [more.cpp ...] -o "
                                  "<codelets.gp>\n\n"
                                  "Options");
  visible.add_options()                             //
      ("help,h", "print this help and exit")        //
      ("version", "print the SDK version and exit") //
      ("output-file,o", po::value(&output),
       "object to write (default: the first input's name with .gp); every input's vertices "
       "are registered by it") //
      ("include-path,I", po::value(&includes)->composing(),
       "add a directory to the include search path (repeatable)") //
      ("define,D", po::value(&defines)->composing(),
       "define a preprocessor macro, NAME or NAME=VALUE (repeatable; __POPC__ is always "
       "defined, as by Poplar's popc)") //
      ("optimize,O", po::value(&optLevel)->default_value("2"),
       "optimisation level: 0, 1, 2, 3, s or fast")                     //
      ("debug,g", po::bool_switch(&debug), "include debug information") //
      ("warning,W", po::value(&warnings)->composing(),
       "a compiler warning option, passed on as -W<option>: -Wall, -Wextra, -Werror, "
       "-Wno-unused-parameter, … (repeatable)") //
      ("target", po::value(&targetLists)->composing(),
       "targets to compile for, one or a comma-separated list (cpu, ipu1, ipu2, ipu21; "
       "--target=ipu2 or --target ipu1,ipu2): checked and accepted for compatibility; Tessera "
       "codelets run on the host, so one object serves them all") //
      ("compile-flags,X", po::value(&compileFlags),
       "extra flags for the host C++ compiler, e.g. \"-march=native -ffast-math\"") //
      ("verbose,v", po::bool_switch(&verbose),
       "print the compiler command, the vertex types and the compile time");
  po::options_description hidden;
  hidden.add_options()("input", po::value(&inputs));
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("input", -1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error &e) {
    std::cerr << "popc: " << e.what() << " (try --help)\n";
    return 2;
  }
  if (vm.count("help")) {
    std::cout << visible
              << "\nEnvironment: TESSERA_CXX overrides the host compiler; "
                 "TESSERA_INCLUDE_DIR the SDK headers.\n";
    return 0;
  }
  if (vm.count("version")) {
    std::cout << poplar::versionString() << "\n";
    return 0;
  }
  if (inputs.empty()) {
    std::cerr << "popc: no codelet source file given (try --help)\n";
    return 2;
  }
  const std::vector<std::string> levels = {"0", "1", "2", "3", "s", "fast"};
  if (std::find(levels.begin(), levels.end(), optLevel) == levels.end()) {
    std::cerr << "popc: unknown optimisation level -O" << optLevel
              << " (use 0, 1, 2, 3, s or fast)\n";
    return 2;
  }
  const std::vector<std::string> targets = {"cpu", "ipu1", "ipu2", "ipu21", "ipu2:cpp"};
  for (const auto &list : targetLists) {
    std::size_t begin = 0;
    for (;;) {
      const std::size_t comma = list.find(',', begin);
      const std::string target = list.substr(begin, comma - begin);
      if (std::find(targets.begin(), targets.end(), target) == targets.end()) {
        std::cerr << "popc: unknown target '" << target << "' in --target=" << list
                  << " (use cpu, ipu1, ipu2 or ipu21, or a comma-separated list of them)\n";
        return 2;
      }
      if (comma == std::string::npos)
        break;
      begin = comma + 1;
    }
  }
  for (const auto &w : warnings)
    if (w.empty()) {
      std::cerr << "popc: -W needs a warning option, as in -Wall (try --help)\n";
      return 2;
    }
  if (output.empty())
    output = std::filesystem::path(inputs.front()).replace_extension(".gp").string();

  std::string flags = "-O" + optLevel;
  if (debug)
    flags += " -g";
  for (const auto &dir : includes)
    flags += " -I" + shellQuoted(dir);
  for (const auto &d : defines)
    flags += " -D" + shellQuoted(d);
  for (const auto &w : warnings)
    flags += " -W" + shellQuoted(w);
  if (!compileFlags.empty())
    flags += " " + compileFlags;

  try {
    const auto start = std::chrono::steady_clock::now();
    const tessera::CodeletBuild build = tessera::precompileCodelets(inputs, output, flags);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << build.diagnostics;
    if (verbose) {
      std::cout << "command: " << build.command << "\n";
      for (const auto &v : build.vertexTypes)
        std::cout << "vertex: " << v << "\n";
      std::cout << "wrote " << build.objectPath << " in " << seconds << " s\n";
    }
  } catch (const poplar::poplar_error &e) {
    std::cerr << "popc: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
