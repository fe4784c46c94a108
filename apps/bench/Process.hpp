// Starting child processes for tessera-bench: trainers (output shown, peak memory and wall time
// measured), git (output captured) and the baseline build (output to a log file). posix_spawn
// rather than system() so arguments are never re-parsed by a shell.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tessera::bench {

struct ProcessOptions {
  /// Search PATH for argv[0] (git, cmake) instead of taking it as a path (trainers).
  bool searchPath = false;
  /// Keep stdout and stderr in ProcessResult instead of passing them through.
  bool capture = false;
  /// Append stdout and stderr to this file instead (ignored when capture is set).
  std::filesystem::path logFile;
};

struct ProcessResult {
  int status = 0; ///< exit status, or 128 + signal number
  std::string out, err;
  double wallSeconds = 0;
  std::optional<std::uint64_t> peakRssKiB; ///< the child's maximum resident set (wait4)
};

/// Runs argv and waits for it. Throws apps::app_error naming argv[0] when it cannot be started.
ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessOptions &options = {});

/// argv joined with spaces, for messages and logs.
std::string commandLine(const std::vector<std::string> &argv);

} // namespace tessera::bench
