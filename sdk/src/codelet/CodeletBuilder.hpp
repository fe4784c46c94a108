// From a codelet source file to a loadable object: parse, generate the stub, compile, cache.
#pragma once

#include <string>
#include <vector>

#include "codelet/CodeletParser.hpp"

namespace poplar::codelet {

struct BuiltObject {
  std::string objectPath;
  std::string cacheKey;                 ///< Empty when not built through the cache.
  std::vector<std::string> vertexTypes; ///< Registered names, in file order.
  bool compiled = false;                ///< False on a cache hit.
  std::string command;                  ///< The compiler command, when compiled.
  std::string diagnostics;              ///< Compiler output (warnings), when compiled.
};

/// Reads and parses the codelet source `sourcePath` (absolute). Throws
/// graph_object_load_error when the file is missing or defines no vertex class.
ParsedCodelets parseCodeletFile(const std::string &sourcePath);

/// Compiles `sourcePath` (absolute) with `flags` into `objectPath`, written atomically.
/// Throws graph_object_load_error carrying the compiler's first error when it fails.
BuiltObject buildCodeletObject(const std::string &sourcePath, const std::string &objectPath,
                               const std::string &flags);

/// Compiles several codelet files (absolute paths), each as its own translation unit, into one
/// object registering all their vertex classes. Throws graph_object_load_error as above, and
/// when two files define a vertex type of the same name.
BuiltObject buildCodeletObject(const std::vector<std::string> &sourcePaths,
                               const std::string &objectPath, const std::string &flags);

/// The cached object of `sourcePath` compiled with `flags`, compiling it only when the cache
/// has no object for the current key.
BuiltObject cachedCodeletObject(const std::string &sourcePath, const std::string &flags);

} // namespace poplar::codelet
