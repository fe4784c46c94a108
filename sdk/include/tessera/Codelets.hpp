// Tessera's codelet toolchain as a library: what `popc` and `Graph::addCodelets` use.
//
// A codelet file is ordinary C++ (see <poplar/Vertex.hpp>). Tessera compiles it with the host
// compiler into a shared object holding the vertex code plus a generated registration
// function, and loads that object into the process. `precompileCodelets` does the compiling
// ahead of time (the `popc` tool); `Graph::addCodelets("file.gp")` then loads the result
// without running a compiler.
#pragma once

#include <string>
#include <vector>

namespace tessera {

/// What building a codelet object did.
struct CodeletBuild {
  std::string objectPath;               ///< Absolute path of the object written.
  std::vector<std::string> vertexTypes; ///< Names the object registers ("Foo<float>").
  std::string command;                  ///< The compiler command line that ran.
  std::string diagnostics;              ///< What the compiler printed (warnings).
};

/// Compiles the codelet source `sourcePath` into the loadable object `objectPath` (written
/// atomically; conventionally named *.gp), passing `compileFlags` to the host compiler after
/// Tessera's own `-std=c++20 -O2 -fPIC -shared -I<sdk include>`.
/// Throws poplar::graph_object_load_error naming the file: missing, defining no vertex class,
/// or not compiling (the message starts with the compiler's first "file:line: error:" line and
/// carries the rest of its output).
CodeletBuild precompileCodelets(const std::string &sourcePath, const std::string &objectPath,
                                const std::string &compileFlags = "");

/// Compiles several codelet sources into one object registering the vertex classes of all of
/// them (each file is its own translation unit, as `popc a.cpp b.cpp -o ab.gp` does). Throws
/// as above, and poplar::graph_object_load_error when two files define the same vertex type.
CodeletBuild precompileCodelets(const std::vector<std::string> &sourcePaths,
                                const std::string &objectPath,
                                const std::string &compileFlags = "");

/// The vertex type names the codelet source `sourcePath` defines, found without compiling.
std::vector<std::string> codeletVertexTypes(const std::string &sourcePath);

/// Where compiled codelet objects are cached: $TESSERA_CODELET_CACHE, else
/// $XDG_CACHE_HOME/tessera/codelets, else ~/.cache/tessera/codelets (created if missing).
std::string codeletCacheDirectory();

} // namespace tessera
