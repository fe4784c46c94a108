#include "Process.hpp"

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/FileEnvelope.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

extern char **environ;

namespace tessera::bench {
namespace {

// Removes a directory of temporary capture files however runProcess leaves.
struct TempDirectory {
  std::filesystem::path path;
  TempDirectory() {
    char pattern[] = "/tmp/tessera-bench-XXXXXX";
    if (!::mkdtemp(pattern))
      throw apps::app_error(std::string("cannot create a temporary directory: ") +
                            std::strerror(errno));
    path = pattern;
  }
  ~TempDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDirectory(const TempDirectory &) = delete;
  TempDirectory &operator=(const TempDirectory &) = delete;
};

struct FileActions {
  posix_spawn_file_actions_t actions;
  FileActions() { ::posix_spawn_file_actions_init(&actions); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&actions); }
  FileActions(const FileActions &) = delete;
  FileActions &operator=(const FileActions &) = delete;
};

std::string readIfPresent(const std::filesystem::path &file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    return "";
  return apps::readWholeFile(file, "process output");
}

} // namespace

std::string commandLine(const std::vector<std::string> &argv) {
  std::string text;
  for (const auto &a : argv)
    text += (text.empty() ? "" : " ") + a;
  return text;
}

ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessOptions &options) {
  std::vector<char *> pointers;
  for (const auto &a : argv)
    pointers.push_back(const_cast<char *>(a.c_str()));
  pointers.push_back(nullptr);

  // Captured output goes through files, not pipes: nothing to drain while the child runs, so a
  // chatty child can never block on a full pipe.
  std::optional<TempDirectory> captureDir;
  FileActions files;
  const std::string logFile = options.logFile.string();
  std::string outFile, errFile;
  if (options.capture) {
    captureDir.emplace();
    outFile = (captureDir->path / "out").string();
    errFile = (captureDir->path / "err").string();
    ::posix_spawn_file_actions_addopen(&files.actions, STDOUT_FILENO, outFile.c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::posix_spawn_file_actions_addopen(&files.actions, STDERR_FILENO, errFile.c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0600);
  } else if (!logFile.empty()) {
    ::posix_spawn_file_actions_addopen(&files.actions, STDOUT_FILENO, logFile.c_str(),
                                       O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::posix_spawn_file_actions_adddup2(&files.actions, STDOUT_FILENO, STDERR_FILENO);
  }

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc =
      options.searchPath
          ? ::posix_spawnp(&pid, argv[0].c_str(), &files.actions, nullptr, pointers.data(), environ)
          : ::posix_spawn(&pid, argv[0].c_str(), &files.actions, nullptr, pointers.data(), environ);
  if (rc != 0)
    throw apps::app_error("cannot start " + argv[0] + ": " + std::strerror(rc));
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR)
      throw apps::app_error("waiting for " + argv[0] + ": " + std::strerror(errno));

  ProcessResult result;
  result.wallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (usage.ru_maxrss > 0) // kibibytes on Linux
    result.peakRssKiB = static_cast<std::uint64_t>(usage.ru_maxrss);
  if (WIFEXITED(status))
    result.status = WEXITSTATUS(status);
  else
    result.status = 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  if (options.capture) {
    result.out = readIfPresent(outFile);
    result.err = readIfPresent(errFile);
  }
  return result;
}

} // namespace tessera::bench
