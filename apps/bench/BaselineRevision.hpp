// Which commit `tessera-bench compare BASELINE` builds. BASELINE is a VERSION or a git revision:
//
//  1. A VERSION recorded in the records directory resolves to the commit its records name in
//     gitCommit. Records of one version may name several commits (each benchmark is recorded
//     when it was first run); the latest of them in history is taken — the one the others are
//     ancestors of, or by commit date when they lie on different branches — since it is the
//     first commit where every recorded benchmark had been measured.
//  2. Otherwise a VERSION resolves to the first commit (oldest first, in HEAD's history) whose
//     VERSION file holds it.
//  3. Anything else must be a git revision (`git rev-parse --verify`).
#pragma once

#include <tessera/apps/BenchmarkRecord.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace tessera::bench {

struct ResolvedBaseline {
  std::string label;       ///< as given: "0.1.0", "HEAD~3"…; names the comparison records
  std::string commit;      ///< full hash
  std::string shortCommit; ///< 12 hex digits: names the worktree directory
  std::string version;     ///< the VERSION file at that commit ("" when it has none)
  std::string rule;        ///< how it was resolved, one sentence for the output
};

/// Resolves `baseline` in the repository at `repo` using `records` (see the rules above).
/// Throws apps::app_error naming `baseline` when it is neither a known version nor a revision.
ResolvedBaseline resolveBaseline(const std::string &baseline, const std::filesystem::path &repo,
                                 const std::vector<apps::BenchmarkRecord> &records);

/// The VERSION file's content (trimmed) at `commit`, or "" when it has none.
std::string versionAt(const std::filesystem::path &repo, const std::string &commit);

} // namespace tessera::bench
