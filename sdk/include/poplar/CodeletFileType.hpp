// What kind of file `Graph::addCodelets` is given.
#pragma once

#include <string>

namespace poplar {

/// The kind of a codelet file. Tessera runs codelets on the host, so it compiles C and C++
/// sources with the host compiler and loads `Object`s made by `popc`; the IPU assembly and IR
/// kinds exist for source compatibility and are rejected with `graph_object_load_error`.
enum class CodeletFileType {
  PreprocessedAsmSource, ///< .S (IPU assembly; not supported on Tessera)
  AsmSource,             ///< .s (IPU assembly; not supported on Tessera)
  CSource,               ///< .c (compiled as C++: vertices are C++ classes)
  CppSource,             ///< .cpp, .cc, .cxx, .C
  IrSource,              ///< .ll (LLVM IR; not supported on Tessera)
  Object,                ///< .gp, .o, .so, .elf: made by `popc`, loaded without compiling
  Auto,                  ///< Decide from the file extension (and the ELF magic number)
};

/// "CppSource", "Object", …
std::string getCodeletFileTypeStr(CodeletFileType type);

/// The kind a path's extension names; `Auto` when the extension is not recognised.
CodeletFileType getCodeletFileType(const char *path);

} // namespace poplar
