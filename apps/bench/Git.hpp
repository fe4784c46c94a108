// git, run as a child process against one repository (git -C <repo> …), for resolving baselines
// and managing their worktrees.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tessera::bench {

struct GitOutput {
  int status = 0;
  std::string out; ///< stdout with trailing whitespace removed
  std::string err; ///< stderr with trailing whitespace removed
};

/// `git -C repo args…`. Throws apps::app_error when git cannot be started.
GitOutput git(const std::filesystem::path &repo, const std::vector<std::string> &args);

/// Like git(), but throws apps::app_error with git's message and `what` when it fails.
std::string gitOrThrow(const std::filesystem::path &repo, const std::vector<std::string> &args,
                       const std::string &what);

/// The full hash `revision` names as a commit, or nullopt when it names none.
std::optional<std::string> commitOf(const std::filesystem::path &repo, const std::string &revision);

/// Whether `ancestor` is an ancestor of (or equal to) `descendant`.
bool isAncestor(const std::filesystem::path &repo, const std::string &ancestor,
                const std::string &descendant);

} // namespace tessera::bench
