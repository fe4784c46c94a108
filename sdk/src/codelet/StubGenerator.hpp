// Writes the C++ file that turns a codelet source into a loadable object: it includes the
// user's file and defines the registration function the loader calls.
#pragma once

#include <string>

#include "codelet/CodeletParser.hpp"

namespace poplar::codelet {

/// `unsigned tessera_register_codelets_v1(const char *origin)`: registers every vertex class
/// of the object (VertexTypeBuilder, with `.origin(origin)`) and returns how many.
inline constexpr const char *kRegisterSymbol = "tessera_register_codelets_v1";
/// `const char *tessera_codelet_sdk_version_v1()`: the poplar::versionString() of the SDK the
/// object was compiled against (objects only load into the same SDK build).
inline constexpr const char *kVersionSymbol = "tessera_codelet_sdk_version_v1";

/// The stub source for the codelet file at `sourcePath` (absolute) whose classes are `parsed`.
std::string generateStub(const std::string &sourcePath, const ParsedCodelets &parsed);

/// For an object built from several codelet files (popc a.cpp b.cpp), one translation unit per
/// file, as each would be compiled alone: it includes the file and defines
/// `unsigned tessera_register_codelets_part<part>(const char *origin)` registering its classes.
std::string generatePartStub(const std::string &sourcePath, const ParsedCodelets &parsed,
                             unsigned part);
/// The entry points of such an object (kVersionSymbol and kRegisterSymbol), calling parts
/// 0 … parts-1 in order.
std::string generateEntryStub(unsigned parts);

} // namespace poplar::codelet
