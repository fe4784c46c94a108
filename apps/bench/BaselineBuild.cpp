#include "BaselineBuild.hpp"

#include "Git.hpp"
#include "Process.hpp"

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/FileEnvelope.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

namespace tessera::bench {
namespace {

std::string readText(const std::filesystem::path &file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

Worktree ensureWorktree(const std::filesystem::path &repo, const std::string &commit,
                        const std::string &shortCommit, const std::filesystem::path &baselinesDir) {
  const std::filesystem::path dir = std::filesystem::absolute(baselinesDir / shortCommit);
  std::error_code ec;
  if (std::filesystem::exists(dir, ec)) {
    const GitOutput head = git(dir, {"rev-parse", "HEAD"});
    const GitOutput top = git(dir, {"rev-parse", "--show-toplevel"});
    // A directory inside some other checkout (the main tree, say) answers rev-parse too; only
    // a checkout rooted exactly here is ours.
    if (head.status != 0 || top.status != 0 ||
        std::filesystem::weakly_canonical(top.out) != std::filesystem::weakly_canonical(dir))
      throw apps::app_error("baseline directory " + dir.string() +
                            " exists but is not a git worktree; remove it so tessera-bench can "
                            "check the baseline out there");
    if (head.out == commit)
      return {dir, true};
    gitOrThrow(dir, {"checkout", "--force", "--detach", commit},
               "moving baseline worktree " + dir.string() + " to " + shortCommit);
    return {dir, false};
  }
  std::filesystem::create_directories(baselinesDir, ec);
  // A worktree deleted by hand stays registered until pruned, and `add` refuses its path.
  git(repo, {"worktree", "prune"});
  gitOrThrow(repo, {"worktree", "add", "--detach", dir.string(), commit},
             "creating baseline worktree " + dir.string());
  return {dir, false};
}

std::string firstErrorLine(const std::string &log) {
  std::istringstream lines(log);
  std::string last;
  std::string failed;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("error:") != std::string::npos || line.find("CMake Error") == 0 ||
        line.find("Error:") != std::string::npos)
      return line;
    if (failed.empty() && line.rfind("FAILED:", 0) == 0)
      failed = line;
    if (line.find_first_not_of(" \t\r") != std::string::npos)
      last = line;
  }
  return failed.empty() ? last : failed;
}

BaselineBuildResult buildBaseline(const std::filesystem::path &worktree,
                                  const std::vector<std::string> &apps, std::ostream &progress) {
  BaselineBuildResult result;
  result.buildDir = worktree / "build" / "release";
  result.logFile = result.buildDir / "tessera-bench-build.log";
  std::error_code ec;
  std::filesystem::create_directories(result.buildDir, ec);
  if (ec)
    throw apps::app_error("cannot create baseline build directory " + result.buildDir.string() +
                          ": " + ec.message());
  std::filesystem::remove(result.logFile, ec);

  ProcessOptions options;
  options.searchPath = true;
  options.logFile = result.logFile;
  auto fail = [&](const std::string &fallback) {
    const std::string line = firstErrorLine(readText(result.logFile));
    result.firstError = line.empty() ? fallback : line;
    return result;
  };

  // The flags of the main release build (scripts/build), minus what the comparison never runs.
  std::vector<std::string> configure = {"cmake",
                                        "-S",
                                        worktree.string(),
                                        "-B",
                                        result.buildDir.string(),
                                        "-G",
                                        "Ninja",
                                        "-DCMAKE_BUILD_TYPE=Release",
                                        "-DTESSERA_BUILD_TESTS=OFF",
                                        "-DTESSERA_BUILD_BENCHMARKS=OFF"};
  if (runProcess({"ccache", "--version"}, {true, true, {}}).status == 0)
    configure.push_back("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache");
  progress << "tessera-bench: configuring baseline in " << result.buildDir.string() << " (log "
           << result.logFile.string() << ")\n"
           << std::flush;
  if (runProcess(configure, options).status != 0)
    return fail("cmake configure failed");

  std::vector<std::string> build = {
      "cmake", "--build", result.buildDir.string(), "--parallel",
      std::to_string(std::max(1u, std::thread::hardware_concurrency()))};
  for (const auto &app : apps)
    if (std::filesystem::exists(worktree / "apps" / app / "CMakeLists.txt") &&
        std::find(result.builtApps.begin(), result.builtApps.end(), app) == result.builtApps.end())
      result.builtApps.push_back(app);
  if (result.builtApps.empty()) {
    result.ok = true; // nothing there to build: every benchmark is new
    return result;
  }
  build.push_back("--target");
  build.insert(build.end(), result.builtApps.begin(), result.builtApps.end());
  progress << "tessera-bench: building baseline " << commandLine(result.builtApps) << "\n"
           << std::flush;
  if (runProcess(build, options).status != 0)
    return fail("cmake --build failed");
  result.ok = true;
  return result;
}

std::optional<std::filesystem::path> sourceDirOfBuild(const std::filesystem::path &buildDir) {
  std::istringstream lines(readText(buildDir / "CMakeCache.txt"));
  const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(key, 0) == 0)
      return std::filesystem::path(line.substr(key.size()));
  return std::nullopt;
}

std::optional<bool> baselineSuiteKnows(const std::filesystem::path &sourceDir,
                                       const std::string &benchmark) {
  const std::filesystem::path suite = sourceDir / "apps" / "bench" / "BenchSuite.cpp";
  std::error_code ec;
  if (!std::filesystem::exists(suite, ec))
    return std::nullopt;
  return readText(suite).find("\"" + benchmark + "\"") != std::string::npos;
}

} // namespace tessera::bench
