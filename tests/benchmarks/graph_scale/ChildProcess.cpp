#include "ChildProcess.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

extern char **environ;

namespace graph_scale {

namespace {

// The process group of the child being waited for (0: none). The child has a group of its own,
// so a Ctrl-C or a `timeout` aimed at us would not reach it: our handler passes it on.
volatile sig_atomic_t runningGroup = 0;

extern "C" void killChildAndDie(int signal) {
  if (runningGroup > 0)
    ::kill(-runningGroup, SIGKILL);
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

void passOnTerminationSignals() {
  static const bool installed = [] {
    for (int s : {SIGINT, SIGTERM, SIGHUP})
      ::signal(s, killChildAndDie);
    return true;
  }();
  (void)installed;
}

// The resident set of `pid` in bytes, from /proc (0 once it is gone).
std::uint64_t residentBytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  std::uint64_t sizePages = 0, residentPages = 0;
  if (!(statm >> sizePages >> residentPages))
    return 0;
  return residentPages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

// Our environment with `extra` (NAME=value) replacing or adding entries.
std::vector<std::string> environmentWith(const std::vector<std::string> &extra) {
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const auto &x : extra)
      replaced = replaced || x.compare(0, name.size(), name) == 0;
    if (!replaced)
      env.push_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char *> pointersTo(std::vector<std::string> &strings) {
  std::vector<char *> p;
  for (auto &s : strings)
    p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

} // namespace

ChildResult runChild(const std::vector<std::string> &argv,
                     const std::vector<std::string> &environment, const ChildLimits &limits,
                     const std::filesystem::path &scratchDir) {
  // Everything the child needs is prepared before fork: after it, only exec-safe calls.
  std::vector<std::string> args = argv, env = environmentWith(environment);
  std::vector<char *> argp = pointersTo(args), envp = pointersTo(env);
  const std::string outFile = (scratchDir / "child-output.txt").string();

  passOnTerminationSignals();
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0)
    throw std::runtime_error(std::string("graph_scale_bench: fork failed: ") +
                             std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0); // its own group: a kill reaches the compilers it may start too
    const int fd = ::open(outFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      ::close(fd);
    }
    ::execve(argp[0], argp.data(), envp.data());
    const char msg[] = "graph_scale_bench: cannot execute the child program\n";
    [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::setpgid(pid, pid); // also from here, so the group exists before any kill
  runningGroup = pid;

  ChildResult result;
  const double limitBytes = limits.maxRssGiB * 1024.0 * 1024.0 * 1024.0;
  int status = 0;
  struct rusage usage {};
  for (;;) {
    const pid_t done = ::wait4(pid, &status, WNOHANG, &usage);
    if (done == pid)
      break;
    if (done < 0 && errno != EINTR) {
      runningGroup = 0;
      throw std::runtime_error(std::string("graph_scale_bench: waiting for the child: ") +
                               std::strerror(errno));
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool late = elapsed > limits.timeoutSeconds;
    const bool big = static_cast<double>(residentBytes(pid)) > limitBytes;
    if (late || big) {
      result.timedOut = late;
      result.overMemory = big && !late;
      ::kill(-pid, SIGKILL);
      while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  runningGroup = 0;
  result.wallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.peakRssMiB = static_cast<double>(usage.ru_maxrss) / 1024.0; // KiB on Linux
  if (WIFEXITED(status))
    result.status = WEXITSTATUS(status);
  else
    result.status = 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  std::ifstream in(outFile, std::ios::binary);
  result.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return result;
}

} // namespace graph_scale
