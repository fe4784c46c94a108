// The baseline side of `tessera-bench compare`: a git worktree of the baseline commit under the
// build tree, built like a release (Ninja, Release, ccache, tests and benchmarks off) for just
// the trainers the comparison runs.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace tessera::bench {

struct Worktree {
  std::filesystem::path path;
  bool reused = false; ///< it existed at the right commit already
};

/// A detached worktree of `repo` at `commit` in baselinesDir/<shortCommit>: reused when it is
/// already checked out there at that commit, moved to it (forced checkout) when it is a checkout
/// of another commit, created with `git worktree add --detach` otherwise. Throws apps::app_error
/// naming the directory when it exists but is not a git checkout, or git fails.
Worktree ensureWorktree(const std::filesystem::path &repo, const std::string &commit,
                        const std::string &shortCommit, const std::filesystem::path &baselinesDir);

struct BaselineBuildResult {
  bool ok = false;
  std::filesystem::path buildDir; ///< <worktree>/build/release: apps/<app>/<app> inside
  std::filesystem::path logFile;  ///< configure and build output
  std::string firstError;         ///< when !ok: the first error line of the log
  std::vector<std::string> builtApps;
};

/// Configures and builds the trainers `apps` that exist in `worktree` (apps/<app>/CMakeLists.txt)
/// with release flags, appending all output to <buildDir>/tessera-bench-build.log. Progress
/// lines go to `progress`.
BaselineBuildResult buildBaseline(const std::filesystem::path &worktree,
                                  const std::vector<std::string> &apps, std::ostream &progress);

/// The first line of a build log that reports an error (a compiler "error:", "CMake Error",
/// ninja's "FAILED:"), else its last non-empty line, else "".
std::string firstErrorLine(const std::string &log);

/// The source tree a CMake build directory was configured from (CMakeCache.txt's
/// CMAKE_HOME_DIRECTORY), or nullopt.
std::optional<std::filesystem::path> sourceDirOfBuild(const std::filesystem::path &buildDir);

/// Whether the tessera-bench of the tree at `sourceDir` knows `benchmark` (its name appears
/// quoted in apps/bench/BenchSuite.cpp); nullopt when that tree has no such file to ask.
std::optional<bool> baselineSuiteKnows(const std::filesystem::path &sourceDir,
                                       const std::string &benchmark);

} // namespace tessera::bench
