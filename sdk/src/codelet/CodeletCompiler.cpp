#include "codelet/CodeletCompiler.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <poplar/exceptions.hpp>

// From the build: the compiler, the headers in the source tree and the installed layout.
#ifndef TESSERA_HOST_CXX
#error "TESSERA_HOST_CXX must be defined by the build"
#endif
#ifndef TESSERA_BUILD_INCLUDE_DIR
#error "TESSERA_BUILD_INCLUDE_DIR must be defined by the build"
#endif
#ifndef TESSERA_LIB_TO_INCLUDE
#define TESSERA_LIB_TO_INCLUDE "../include"
#endif

extern char **environ;

namespace poplar::codelet {

namespace fs = std::filesystem;

std::vector<std::string> splitFlags(const std::string &flags) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    const char c = flags[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < flags.size())
        cur += flags[++i];
      else
        cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      have = true;
    } else if (c == '\\' && i + 1 < flags.size()) {
      cur += flags[++i];
      have = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (have)
        out.push_back(cur);
      cur.clear();
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have)
    out.push_back(cur);
  return out;
}

std::vector<std::string> hostCompiler() {
  const char *env = std::getenv("TESSERA_CXX");
  auto cmd = splitFlags(env && *env ? env : TESSERA_HOST_CXX);
  if (cmd.empty())
    throw graph_object_load_error("TESSERA_CXX is set but names no compiler");
  return cmd;
}

namespace {
int anchor = 0; // an object inside libpoplar, to find where the library lives
bool hasSdkHeaders(const fs::path &dir) {
  std::error_code ec;
  return fs::exists(dir / "poplar" / "Vertex.hpp", ec);
}
} // namespace

std::string sdkIncludeDir() {
  if (const char *env = std::getenv("TESSERA_INCLUDE_DIR"); env && *env) {
    if (!hasSdkHeaders(env))
      throw graph_object_load_error(std::string("TESSERA_INCLUDE_DIR is '") + env +
                                    "' but it holds no poplar/Vertex.hpp");
    return env;
  }
  Dl_info info{};
  if (dladdr(&anchor, &info) && info.dli_fname) {
    std::error_code ec;
    const fs::path lib = fs::weakly_canonical(info.dli_fname, ec);
    const fs::path installed = (lib.parent_path() / TESSERA_LIB_TO_INCLUDE).lexically_normal();
    if (!ec && hasSdkHeaders(installed))
      return installed.string();
  }
  return TESSERA_BUILD_INCLUDE_DIR;
}

std::vector<std::string> hostTargetFlags() {
  if (const char *env = std::getenv("TESSERA_CODELET_TARGET_FLAGS"))
    return splitFlags(env);
#if defined(__x86_64__) || defined(__i386__)
  // The tiers Highway dispatches the SDK's own kernels to (AVX-512, AVX2, SSE4), named by the
  // -march of the oldest CPU that has each one, rather than -march=native: the name is the same
  // on every machine of a tier, and Highway 1.0.3 rejects -march=native on CPUs newer than it.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"))
    return {"-march=skylake-avx512"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("f16c"))
    return {"-march=haswell"};
  if (__builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul") &&
      __builtin_cpu_supports("aes"))
    return {"-march=westmere"};
  return {};
#else
  return {"-march=native"};
#endif
}

const std::vector<std::string> &fixedCompileFlags() {
  // __POPC__ is what Poplar's codelet compiler defines, so codelet files written for Poplar can
  // keep host-only code (printing, host includes) out of their vertices with `#ifdef __POPC__`.
  // -ffp-contract=off: with the instruction set's FMA available, GCC would fuse `a * b + c`
  // (its default for C++), so a codelet's float results would depend on the host's tier and
  // differ from the same C++ compiled without -march; every operation rounds, as on the IPU.
  static const std::vector<std::string> flags = [] {
    std::vector<std::string> f{"-std=c++20",       "-O2",        "-fPIC",
                               "-shared",          "-D__POPC__", "-fvisibility=hidden",
                               "-ffp-contract=off"};
    for (auto &t : hostTargetFlags())
      f.push_back(std::move(t));
    return f;
  }();
  return flags;
}

CompileResult compileSharedObject(const std::string &stubPath, const std::string &outputPath,
                                  const std::string &userFlags) {
  return compileSharedObject(std::vector<std::string>{stubPath}, outputPath, userFlags);
}

CompileResult compileSharedObject(const std::vector<std::string> &stubPaths,
                                  const std::string &outputPath, const std::string &userFlags) {
  std::vector<std::string> args = hostCompiler();
  for (const auto &f : fixedCompileFlags())
    args.push_back(f);
  args.push_back("-I" + sdkIncludeDir());
  for (auto &f : splitFlags(userFlags))
    args.push_back(std::move(f));
  args.push_back("-o");
  args.push_back(outputPath);
  for (const auto &stub : stubPaths)
    args.push_back(stub);
  args.push_back("-lhwy");

  CompileResult result;
  for (const auto &a : args)
    result.command += (result.command.empty() ? "" : " ") + a;

  // The compiler's stdout and stderr go to a log file next to the output.
  const std::string logPath = outputPath + ".log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char *> argv;
  for (auto &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    result.diagnostics = "cannot run the compiler '" + args[0] + "': " + std::strerror(rc) +
                         " (set TESSERA_CXX to a C++20 compiler)";
    return result;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::ifstream log(logPath);
  std::ostringstream text;
  text << log.rdbuf();
  result.diagnostics = text.str();
  std::error_code ec;
  fs::remove(logPath, ec);
  result.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!result.ok && result.diagnostics.empty())
    result.diagnostics = "the compiler '" + args[0] + "' failed with status " +
                         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return result;
}

std::string firstError(const std::string &diagnostics) {
  std::istringstream in(diagnostics);
  std::string line, firstNonEmpty;
  while (std::getline(in, line)) {
    if (firstNonEmpty.empty() && !line.empty())
      firstNonEmpty = line;
    if (line.find(": error:") != std::string::npos ||
        line.find(": fatal error:") != std::string::npos)
      return line;
  }
  return firstNonEmpty;
}

} // namespace poplar::codelet
