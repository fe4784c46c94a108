#include "codelet/CodeletCache.hpp"
#include "CodeletAbi.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <poplar/Version.hpp>
#include <poplar/exceptions.hpp>

#include "codelet/CodeletCompiler.hpp"
#include "codelet/CodeletParser.hpp"
#include "codelet/ContentHash.hpp"

namespace poplar::codelet {

namespace fs = std::filesystem;

std::string userCacheDirectory(const char *variable, const std::string &kind) {
  if (const char *env = std::getenv(variable); env && *env)
    return env;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return (fs::path(xdg) / "tessera" / kind).string();
  if (const char *home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "tessera" / kind).string();
  return (fs::temp_directory_path() / ("tessera-" + kind + "-" + std::to_string(getuid())))
      .string();
}

std::string cacheDirectory() {
  const fs::path dir = userCacheDirectory("TESSERA_CODELET_CACHE", "codelets");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir))
    throw graph_object_load_error("cannot create the codelet cache directory '" + dir.string() +
                                  "'" + (ec ? ": " + ec.message() : std::string()) +
                                  " (set TESSERA_CODELET_CACHE to a writable directory)");
  return fs::absolute(dir).string();
}

std::string readFile(const std::string &path, const std::string &what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw graph_object_load_error("cannot read " + what + " '" + path + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

/// Adds `file` and, recursively, the files it includes with `#include "…"`.
void hashWithIncludes(ContentHash &h, const fs::path &file, const std::vector<fs::path> &searchDirs,
                      std::set<fs::path> &seen) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(file, ec);
  if (!seen.insert(canonical).second)
    return;
  std::ifstream in(canonical, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string contents = text.str();
  h.add(canonical.string());
  h.add(contents);
  for (const auto &inc : quotedIncludes(contents)) {
    std::vector<fs::path> candidates{canonical.parent_path() / inc};
    for (const auto &d : searchDirs)
      candidates.push_back(d / inc);
    for (const auto &c : candidates)
      if (fs::is_regular_file(c, ec)) {
        hashWithIncludes(h, c, searchDirs, seen);
        break;
      }
    // An include found nowhere is left to the compiler to report.
  }
}

} // namespace

std::string cacheKey(const std::string &sourcePath, const std::string &flags,
                     const std::vector<std::string> &compiler, const std::string &sdkIncludeDir) {
  ContentHash h;
  h.add("tessera codelet object v1");
  h.add(codeletAbi());
  for (const auto &c : compiler)
    h.add(c);
  // The SDK's own flags (`-D__POPC__` among them) change the object as much as the caller's.
  for (const auto &f : fixedCompileFlags())
    h.add(f);
  h.add(flags);
  // `-I dir` / `-Idir` flags are searched for quoted includes too.
  std::vector<fs::path> searchDirs;
  const auto args = splitFlags(flags);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-I" && i + 1 < args.size())
      searchDirs.emplace_back(args[++i]);
    else if (args[i].rfind("-I", 0) == 0 && args[i].size() > 2)
      searchDirs.emplace_back(args[i].substr(2));
  }
  searchDirs.emplace_back(sdkIncludeDir);
  std::set<fs::path> seen;
  // The headers that fix the layout of vertex objects and fields.
  for (const char *abi : {"poplar/Vertex.hpp", "tessera/VertexType.hpp", "poplar/Type.hpp"})
    hashWithIncludes(h, fs::path(sdkIncludeDir) / abi, searchDirs, seen);
  hashWithIncludes(h, sourcePath, searchDirs, seen);
  return h.hex();
}

std::string temporaryPath(const std::string &dir, const std::string &stem) {
  static std::atomic<unsigned> counter{0};
  return (fs::path(dir) /
          (stem + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++)))
      .string();
}

void writeFileAtomically(const std::string &path, const std::string &contents) {
  const fs::path target(path);
  const std::string tmp = temporaryPath(target.parent_path().string(), target.filename().string());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << contents;
    if (!out.flush()) {
      out.close();
      std::error_code ec;
      fs::remove(tmp, ec); // a full disk must not keep half a file
      throw graph_object_load_error("cannot write '" + tmp + "' (disk full or not writable?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw graph_object_load_error("cannot move a file into place as '" + path + "'");
  }
}

} // namespace poplar::codelet
