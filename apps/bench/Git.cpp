#include "Git.hpp"

#include "Process.hpp"

#include <tessera/apps/Errors.hpp>

#include <cctype>

namespace tessera::bench {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.pop_back();
  return text;
}

} // namespace

GitOutput git(const std::filesystem::path &repo, const std::vector<std::string> &args) {
  std::vector<std::string> argv = {"git", "-C", repo.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions options;
  options.searchPath = true;
  options.capture = true;
  const ProcessResult r = runProcess(argv, options);
  return {r.status, trimmed(r.out), trimmed(r.err)};
}

std::string gitOrThrow(const std::filesystem::path &repo, const std::vector<std::string> &args,
                       const std::string &what) {
  const GitOutput r = git(repo, args);
  if (r.status != 0) {
    std::vector<std::string> argv = {"git", "-C", repo.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    throw apps::app_error(what + ": " + commandLine(argv) + " failed: " +
                          (r.err.empty() ? "exit status " + std::to_string(r.status) : r.err));
  }
  return r.out;
}

std::optional<std::string> commitOf(const std::filesystem::path &repo,
                                    const std::string &revision) {
  // "--end-of-options" keeps a revision that starts with '-' from being read as a flag.
  const GitOutput r =
      git(repo, {"rev-parse", "--verify", "--quiet", "--end-of-options", revision + "^{commit}"});
  if (r.status != 0 || r.out.empty())
    return std::nullopt;
  return r.out;
}

bool isAncestor(const std::filesystem::path &repo, const std::string &ancestor,
                const std::string &descendant) {
  return git(repo, {"merge-base", "--is-ancestor", ancestor, descendant}).status == 0;
}

} // namespace tessera::bench
