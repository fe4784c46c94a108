// Runs the host C++ compiler on a generated stub to make a codelet shared object.
#pragma once

#include <string>
#include <vector>

namespace poplar::codelet {

/// The compiler command: $TESSERA_CXX (split at spaces, so "ccache g++" works) or the compiler
/// the SDK was built with.
std::vector<std::string> hostCompiler();

/// The directory holding <poplar/Vertex.hpp> for codelets: $TESSERA_INCLUDE_DIR, else the
/// installed layout next to libpoplar (found with dladdr), else the source tree of this build.
std::string sdkIncludeDir();

/// The flags every codelet compile starts with, before the caller's: the language standard,
/// optimisation, shared-object flags and `-D__POPC__`. Part of the codelet cache key.
const std::vector<std::string> &fixedCompileFlags();

/// Splits a flag string like a shell would (quotes and backslashes group characters).
std::vector<std::string> splitFlags(const std::string &flags);

struct CompileResult {
  bool ok = false;
  std::string diagnostics; ///< Everything the compiler printed.
  std::string command;     ///< The command line, for messages and `popc -v`.
};

/// Compiles `stubPath` into the shared object `outputPath` with fixedCompileFlags(),
/// `-I<sdk include>`, then `userFlags`, linking Highway.
CompileResult compileSharedObject(const std::string &stubPath, const std::string &outputPath,
                                  const std::string &userFlags);

/// The first line of `diagnostics` that reports an error ("file:line:col: error: …"), or the
/// first non-empty line when none does.
std::string firstError(const std::string &diagnostics);

} // namespace poplar::codelet
