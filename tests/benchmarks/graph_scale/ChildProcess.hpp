// Runs one measured point of graph_scale_bench in a child process of its own, so the peak
// resident memory the kernel reports for it (wait4's ru_maxrss) belongs to that point alone.
// The child is watched while it runs: killed when it outlives its time limit or its resident
// memory passes a limit, so one oversized point cannot take the shared machine down.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace graph_scale {

struct ChildLimits {
  double timeoutSeconds = 600;
  double maxRssGiB = 12;
};

struct ChildResult {
  int status = 0;          ///< exit status, or 128 + signal number
  bool timedOut = false;   ///< killed by us at the time limit
  bool overMemory = false; ///< killed by us at the memory limit
  double wallSeconds = 0;
  double peakRssMiB = 0; ///< wait4's ru_maxrss of the child
  std::string output;    ///< stdout and stderr, interleaved
};

/// Starts argv (argv[0] a path) with `environment` added to ours (NAME=value each), in its own
/// process group, and waits for it; stdout and stderr go to a file under `scratchDir` and are
/// returned. Throws std::runtime_error when the child cannot be started.
ChildResult runChild(const std::vector<std::string> &argv,
                     const std::vector<std::string> &environment, const ChildLimits &limits,
                     const std::filesystem::path &scratchDir);

} // namespace graph_scale
