#include "BaselineRevision.hpp"

#include "Git.hpp"

#include <tessera/apps/Errors.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace tessera::bench {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.pop_back();
  const auto begin = text.find_first_not_of(" \t\r\n");
  return begin == std::string::npos ? "" : text.substr(begin);
}

// Dotted numbers with an optional suffix ("0.1.0", "1.2.0-rc1"); anything else is a revision.
bool looksLikeVersion(const std::string &text) {
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text[0])) &&
         text.find('.') != std::string::npos &&
         text.find_first_not_of("0123456789.-+abcdefghijklmnopqrstuvwxyz") == std::string::npos;
}

long commitTime(const std::filesystem::path &repo, const std::string &commit) {
  return std::stol(gitOrThrow(repo, {"show", "-s", "--format=%ct", commit}, "reading commit time"));
}

// The latest of `commits` in history (see the header's rule 1).
std::string latestInHistory(const std::filesystem::path &repo,
                            const std::vector<std::string> &commits) {
  std::string best = commits.front();
  for (const std::string &c : commits) {
    if (c == best || isAncestor(repo, c, best))
      continue;
    if (isAncestor(repo, best, c) || commitTime(repo, c) > commitTime(repo, best))
      best = c;
  }
  return best;
}

std::string shortOf(const std::string &commit) { return commit.substr(0, 12); }

std::string joined(const std::vector<std::string> &items) {
  std::string text;
  for (const auto &i : items)
    text += (text.empty() ? "" : ", ") + i;
  return text;
}

ResolvedBaseline resolved(const std::filesystem::path &repo, const std::string &label,
                          const std::string &commit, const std::string &rule) {
  return {label, commit, shortOf(commit), versionAt(repo, commit), rule};
}

} // namespace

std::string versionAt(const std::filesystem::path &repo, const std::string &commit) {
  const GitOutput r = git(repo, {"show", commit + ":VERSION"});
  return r.status == 0 ? trimmed(r.out) : "";
}

ResolvedBaseline resolveBaseline(const std::string &baseline, const std::filesystem::path &repo,
                                 const std::vector<apps::BenchmarkRecord> &records) {
  if (baseline.empty())
    throw apps::cli_error("compare needs a BASELINE: a VERSION (e.g. 0.1.0) or a git revision");
  if (git(repo, {"rev-parse", "--git-dir"}).status != 0)
    throw apps::app_error(repo.string() + " is not a git repository; pass --repo");

  if (looksLikeVersion(baseline)) {
    // Rule 1: the commits the version's records name, in the order first seen.
    std::vector<std::string> named, found, missing;
    for (const auto &r : records)
      if (r.sdk_version() == baseline && !r.git_commit().empty() && r.git_commit() != "unknown" &&
          std::find(named.begin(), named.end(), r.git_commit()) == named.end())
        named.push_back(r.git_commit());
    for (const auto &c : named) {
      if (const auto full = commitOf(repo, c))
        found.push_back(*full);
      else
        missing.push_back(c);
    }
    if (!found.empty()) {
      const std::string best = latestInHistory(repo, found);
      std::string rule = "the records of " + baseline + " name " + joined(named) + "; " +
                         shortOf(best) + " is the latest of them in history";
      if (!missing.empty())
        rule += " (" + joined(missing) + " not in this repository)";
      return resolved(repo, baseline, best, rule);
    }
    // Rule 2: the commits that changed VERSION, oldest first.
    const GitOutput changes =
        git(repo, {"log", "--reverse", "--format=%H", "HEAD", "--", "VERSION"});
    if (changes.status == 0) {
      std::istringstream lines(changes.out);
      for (std::string c; std::getline(lines, c);)
        if (!c.empty() && versionAt(repo, c) == baseline)
          return resolved(repo, baseline, c,
                          shortOf(c) + " is the first commit whose VERSION file holds " + baseline +
                              (named.empty() ? " (no record names a commit of it)"
                                             : " (its records' commits " + joined(missing) +
                                                   " are not in this repository)"));
    }
  }
  // Rule 3.
  if (const auto commit = commitOf(repo, baseline))
    return resolved(repo, baseline, *commit, "git revision " + baseline);
  if (looksLikeVersion(baseline))
    throw apps::cli_error("unknown baseline '" + baseline +
                          "': no benchmark record in the "
                          "records directory is of version " +
                          baseline +
                          ", no commit's VERSION file holds it, and it is no git revision in " +
                          repo.string());
  throw apps::cli_error("unknown baseline '" + baseline +
                        "': git rev-parse --verify finds no "
                        "revision of that name in " +
                        repo.string() + " (give a VERSION such as 0.1.0, a commit, tag or branch)");
}

} // namespace tessera::bench
