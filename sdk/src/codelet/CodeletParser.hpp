// Finds the vertex classes of a codelet source file by reading its text.
//
// The parser only needs names: which classes derive from Vertex, MultiVertex or
// SupervisorVertex (with or without `poplar::`), the names of their data members, and the
// explicit instantiations of templated ones. Everything about types (kinds, element types,
// offsets) comes from the compiler later, through the member pointers the stub names.
#pragma once

#include <string>
#include <vector>

namespace poplar::codelet {

/// One vertex class to register.
struct VertexClassDecl {
  std::string registeredName; ///< "ns::Foo" or, for an instantiation, "ns::Foo<float,4>".
  std::string cppType;        ///< "::ns::Foo<float, 4>": how generated code names it.
  std::vector<std::string> fields;
};

struct ParsedCodelets {
  std::vector<VertexClassDecl> vertices;
  /// Templated vertex classes with no explicit instantiation (they cannot be registered).
  std::vector<std::string> uninstantiatedTemplates;
};

/// Parses the text of a codelet file. Comments, string literals and preprocessor lines are
/// ignored, and so are branches compiled only without `__POPC__` (`#ifndef __POPC__`, the
/// `#else` of `#ifdef __POPC__`); classes nested in other classes or functions are not vertex
/// classes.
ParsedCodelets parseCodelets(const std::string &source);

/// The targets of `#include "…"` lines in `source`, in order (angle-bracket includes are
/// system or SDK headers and are not listed).
std::vector<std::string> quotedIncludes(const std::string &source);

} // namespace poplar::codelet
