#include "codelet/CodeletBuilder.hpp"

#include <filesystem>
#include <fstream>
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
  const ParsedCodelets parsed = parseCodeletFile(sourcePath);
  const fs::path out = fs::absolute(objectPath);
  const std::string dir = out.parent_path().string();
  // The stub (one per process, so concurrent builds never share it) stays behind when
  // compilation fails, so errors that point into it can be read.
  const std::string stub = temporaryPath(dir, out.filename().string() + ".stub") + ".cpp";
  writeFileAtomically(stub, generateStub(sourcePath, parsed));
  const std::string tmp = temporaryPath(dir, out.filename().string());
  const CompileResult r = compileSharedObject(stub, tmp, flags);
  std::error_code ec;
  if (!r.ok) {
    fs::remove(tmp, ec);
    if (firstError(r.diagnostics).find(stub) == std::string::npos)
      fs::remove(stub, ec); // the error is in the user's code: the stub is of no interest
    throw graph_object_load_error(
        "codelet file '" + sourcePath + "' does not compile: " + firstError(r.diagnostics) +
        "\ncompiler output:\n" + clipped(r.diagnostics, 40) + "command: " + r.command);
  }
  fs::rename(tmp, out, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw graph_object_load_error("cannot write codelet object '" + out.string() + "'");
  }
  fs::remove(stub, ec);
  BuiltObject built;
  built.objectPath = out.string();
  for (const auto &v : parsed.vertices)
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
