#include "codelet/CodeletBuilder.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <poplar/exceptions.hpp>

#include "codelet/CodeletCache.hpp"
#include "codelet/CodeletCompiler.hpp"
#include "codelet/StubGenerator.hpp"

namespace poplar::codelet {

namespace fs = std::filesystem;

namespace {

/// At most `maxLines` lines of compiler output, for exception messages.
std::string clipped(const std::string &text, std::size_t maxLines) {
  std::istringstream in(text);
  std::string line, out;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    if (n++ == maxLines) {
      out += "[… more compiler output not shown]\n";
      break;
    }
    out += line + "\n";
  }
  return out;
}

} // namespace

ParsedCodelets parseCodeletFile(const std::string &sourcePath) {
  std::error_code ec;
  if (!fs::is_regular_file(sourcePath, ec))
    throw graph_object_load_error("codelet file '" + sourcePath + "' does not exist");
  ParsedCodelets parsed = parseCodelets(readFile(sourcePath, "codelet file"));
  if (parsed.vertices.empty()) {
    std::string why = "codelet file '" + sourcePath +
                      "' defines no vertex class (a class deriving from poplar::Vertex, "
                      "MultiVertex or SupervisorVertex)";
    for (const auto &t : parsed.uninstantiatedTemplates)
      why += "; template '" + t + "' has no explicit instantiation (add `template class " + t +
             "<float>;`)";
    throw graph_object_load_error(why);
  }
  return parsed;
}

BuiltObject buildCodeletObject(const std::string &sourcePath, const std::string &objectPath,
                               const std::string &flags) {
  return buildCodeletObject(std::vector<std::string>{sourcePath}, objectPath, flags);
}

BuiltObject buildCodeletObject(const std::vector<std::string> &sourcePaths,
                               const std::string &objectPath, const std::string &flags) {
  if (sourcePaths.empty())
    throw graph_object_load_error("no codelet file to compile into '" + objectPath + "'");
  std::vector<ParsedCodelets> parsed;
  std::map<std::string, std::string> definedIn; // vertex type -> file
  for (const auto &source : sourcePaths) {
    parsed.push_back(parseCodeletFile(source));
    for (const auto &v : parsed.back().vertices) {
      const auto [at, fresh] = definedIn.emplace(v.registeredName, source);
      if (!fresh)
        throw graph_object_load_error("vertex type '" + v.registeredName +
                                      "' is defined in both '" + at->second + "' and '" + source +
                                      "': one object cannot register it twice");
    }
  }
  const fs::path out = fs::absolute(objectPath);
  const std::string dir = out.parent_path().string();
  // The stubs (one per process, so concurrent builds never share them) stay behind when
  // compilation fails, so errors that point into them can be read. One file compiles with the
  // stub that includes it; several compile one translation unit each, plus the entry points.
  std::vector<std::string> stubs;
  const auto writeStub = [&](const std::string &text) {
    stubs.push_back(temporaryPath(dir, out.filename().string() + ".stub") + ".cpp");
    writeFileAtomically(stubs.back(), text);
  };
  if (sourcePaths.size() == 1) {
    writeStub(generateStub(sourcePaths.front(), parsed.front()));
  } else {
    for (std::size_t i = 0; i < sourcePaths.size(); ++i)
      writeStub(generatePartStub(sourcePaths[i], parsed[i], static_cast<unsigned>(i)));
    writeStub(generateEntryStub(static_cast<unsigned>(sourcePaths.size())));
  }
  const std::string tmp = temporaryPath(dir, out.filename().string());
  const CompileResult r = compileSharedObject(stubs, tmp, flags);
  std::error_code ec;
  if (!r.ok) {
    fs::remove(tmp, ec);
    const std::string first = firstError(r.diagnostics);
    for (const auto &stub : stubs)
      if (first.find(stub) == std::string::npos)
        fs::remove(stub, ec); // the error is in the user's code: the stub is of no interest
    std::string what = "codelet file '" + sourcePaths.front() + "'";
    if (sourcePaths.size() > 1) {
      what = "codelet files";
      for (const auto &source : sourcePaths)
        what += " '" + source + "'";
    }
    throw graph_object_load_error(what + (sourcePaths.size() > 1 ? " do" : " does") +
                                  " not compile: " + first + "\ncompiler output:\n" +
                                  clipped(r.diagnostics, 40) + "command: " + r.command);
  }
  fs::rename(tmp, out, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw graph_object_load_error("cannot write codelet object '" + out.string() + "'");
  }
  for (const auto &stub : stubs)
    fs::remove(stub, ec);
  BuiltObject built;
  built.objectPath = out.string();
  for (const auto &p : parsed)
    for (const auto &v : p.vertices)
      built.vertexTypes.push_back(v.registeredName);
  built.compiled = true;
  built.command = r.command;
  built.diagnostics = r.diagnostics;
  return built;
}

BuiltObject cachedCodeletObject(const std::string &sourcePath, const std::string &flags) {
  std::error_code ec;
  if (!fs::is_regular_file(sourcePath, ec))
    throw graph_object_load_error("codelet file '" + sourcePath + "' does not exist");
  const std::string dir = cacheDirectory();
  const std::string key = cacheKey(sourcePath, flags, hostCompiler(), sdkIncludeDir());
  const std::string objectPath = (fs::path(dir) / (key + ".so")).string();
  BuiltObject built;
  if (fs::is_regular_file(objectPath, ec)) {
    built.objectPath = objectPath;
  } else {
    built = buildCodeletObject(sourcePath, objectPath, flags);
  }
  built.cacheKey = key;
  return built;
}

} // namespace poplar::codelet
