// Graph::addCodelets and the public codelet toolchain functions.
#include <poplar/CodeletFileType.hpp>
#include <poplar/Graph.hpp>
#include <tessera/Codelets.hpp>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <ostream>
#include <set>
#include <sstream>

#include "codelet/CodeletBuilder.hpp"
#include "codelet/CodeletCache.hpp"
#include "codelet/CodeletLoader.hpp"
#include "codelet/ContentHash.hpp"
#include "core/GraphData.hpp"

namespace poplar {

namespace fs = std::filesystem;

std::string getCodeletFileTypeStr(CodeletFileType type) {
  switch (type) {
  case CodeletFileType::PreprocessedAsmSource:
    return "PreprocessedAsmSource";
  case CodeletFileType::AsmSource:
    return "AsmSource";
  case CodeletFileType::CSource:
    return "CSource";
  case CodeletFileType::CppSource:
    return "CppSource";
  case CodeletFileType::IrSource:
    return "IrSource";
  case CodeletFileType::Object:
    return "Object";
  case CodeletFileType::Auto:
    return "Auto";
  }
  return "?";
}

CodeletFileType getCodeletFileType(const char *path) {
  const std::string ext = fs::path(path ? path : "").extension().string();
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".C" || ext == ".c++")
    return CodeletFileType::CppSource;
  if (ext == ".c")
    return CodeletFileType::CSource;
  if (ext == ".S")
    return CodeletFileType::PreprocessedAsmSource;
  if (ext == ".s")
    return CodeletFileType::AsmSource;
  if (ext == ".ll" || ext == ".bc")
    return CodeletFileType::IrSource;
  if (ext == ".gp" || ext == ".o" || ext == ".so" || ext == ".elf")
    return CodeletFileType::Object;
  return CodeletFileType::Auto;
}

namespace {

// Loading registers types process-wide; one load at a time keeps that simple.
std::mutex &loadMutex() {
  static std::mutex m;
  return m;
}

bool startsWithElfMagic(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' &&
         magic[3] == 'F';
}

/// Loads codelet file `src`; returns the identity of the object loaded.
std::string loadCodelets(const std::string &src, CodeletFileType type, const std::string &flags,
                         std::ostream *compileOutput) {
  const std::string path = fs::absolute(src).lexically_normal().string();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw graph_object_load_error("addCodelets: codelet file '" + src + "' does not exist" +
                                  (path != src ? " (looked for '" + path + "')" : ""));
  if (type == CodeletFileType::Auto) {
    type = getCodeletFileType(path.c_str());
    if (startsWithElfMagic(path))
      type = CodeletFileType::Object;
    else if (type == CodeletFileType::Auto || type == CodeletFileType::Object)
      type = CodeletFileType::CppSource; // text with an unknown or object extension
  }
  switch (type) {
  case CodeletFileType::PreprocessedAsmSource:
  case CodeletFileType::AsmSource:
  case CodeletFileType::IrSource:
    throw graph_object_load_error("addCodelets: '" + path + "' is " + getCodeletFileTypeStr(type) +
                                  ", which only an IPU can run; Tessera runs C and C++ codelets "
                                  "on the host");
  case CodeletFileType::Object: {
    std::lock_guard lock(loadMutex());
    codelet::loadCodeletObject(path, path);
    return "object " + path;
  }
  default:
    break;
  }
  if (startsWithElfMagic(path))
    throw graph_object_load_error("addCodelets: '" + path + "' was given as " +
                                  getCodeletFileTypeStr(type) +
                                  " but is an object file; pass CodeletFileType::Object");
  std::lock_guard lock(loadMutex());
  const codelet::BuiltObject built = codelet::cachedCodeletObject(path, flags);
  if (compileOutput && built.compiled)
    *compileOutput << built.diagnostics;
  // The key in the origin lets a recompiled file replace the types of its earlier version.
  codelet::loadCodeletObject(built.objectPath, path + " [" + built.cacheKey + "]");
  return "source " + built.cacheKey;
}

std::string saveStreamSource(std::stringstream &stream) {
  const std::string text = stream.str();
  codelet::ContentHash h;
  h.add(text);
  const fs::path file = fs::path(codelet::cacheDirectory()) / ("source-" + h.hex() + ".cpp");
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    codelet::writeFileAtomically(file.string(), text);
  return file.string();
}

} // namespace

bool Graph::addCodelets(StringRef src, CodeletFileType type, StringRef compileFlags,
                        StringRef targetName) {
  (void)targetName;
  const std::string id = loadCodelets(src.str(), type, compileFlags.str(), nullptr);
  return data_->codeletObjects.insert(id).second;
}

bool Graph::addCodelets(StringRef src, CodeletFileType type, StringRef compileFlags,
                        std::ostream &compileOutput, StringRef targetName) {
  (void)targetName;
  const std::string id = loadCodelets(src.str(), type, compileFlags.str(), &compileOutput);
  return data_->codeletObjects.insert(id).second;
}

void Graph::addCodelets(std::stringstream &stream, StringRef compileFlags, CodeletFileType type,
                        StringRef targetName) {
  addCodelets(saveStreamSource(stream), type, compileFlags, targetName);
}

void Graph::addCodelets(std::stringstream &stream, StringRef compileFlags,
                        std::ostream &compileOutput, CodeletFileType type, StringRef targetName) {
  addCodelets(saveStreamSource(stream), type, compileFlags, compileOutput, targetName);
}

} // namespace poplar

namespace tessera {

namespace fs = std::filesystem;

tessera::CodeletBuild precompileCodelets(const std::string &sourcePath,
                                         const std::string &objectPath,
                                         const std::string &compileFlags) {
  const std::string source = fs::absolute(sourcePath).lexically_normal().string();
  const auto built = poplar::codelet::buildCodeletObject(source, objectPath, compileFlags);
  return {built.objectPath, built.vertexTypes, built.command, built.diagnostics};
}

tessera::CodeletBuild precompileCodelets(const std::vector<std::string> &sourcePaths,
                                         const std::string &objectPath,
                                         const std::string &compileFlags) {
  std::vector<std::string> sources;
  for (const auto &s : sourcePaths)
    sources.push_back(fs::absolute(s).lexically_normal().string());
  const auto built = poplar::codelet::buildCodeletObject(sources, objectPath, compileFlags);
  return {built.objectPath, built.vertexTypes, built.command, built.diagnostics};
}

std::vector<std::string> codeletVertexTypes(const std::string &sourcePath) {
  std::vector<std::string> names;
  const auto parsed =
      poplar::codelet::parseCodeletFile(fs::absolute(sourcePath).lexically_normal().string());
  for (const auto &v : parsed.vertices)
    names.push_back(v.registeredName);
  return names;
}

std::string codeletCacheDirectory() { return poplar::codelet::cacheDirectory(); }

} // namespace tessera
