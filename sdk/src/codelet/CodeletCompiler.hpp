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

/// The instruction-set flags for codelets built on this host: $TESSERA_CODELET_TARGET_FLAGS
/// when set (split like a command line; empty for the compiler's baseline), else on x86 the
/// -march of the widest tier this CPU has of those Highway dispatches to (skylake-avx512,
/// haswell, westmere; none below), else -march=native.
std::vector<std::string> hostTargetFlags();

/// The flags every codelet compile starts with, before the caller's: the language standard,
/// optimisation, shared-object flags, `-D__POPC__`, `-ffp-contract=off` (no fused multiply-adds,
/// so results do not depend on the host) and hostTargetFlags() (computed once per
/// process). Part of the codelet cache key, so objects built for a wider instruction set than
/// this host's are never loaded from a cache moved here. A caller's own -march comes later on
/// the command line and wins.
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
/// The same for several translation units linked into one object.
CompileResult compileSharedObject(const std::vector<std::string> &stubPaths,
                                  const std::string &outputPath, const std::string &userFlags);

/// The first line of `diagnostics` that reports an error ("file:line:col: error: …"), or the
/// first non-empty line when none does.
std::string firstError(const std::string &diagnostics);

} // namespace poplar::codelet
