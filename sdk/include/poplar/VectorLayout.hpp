// How a vertex's vector and vector-list fields are laid out in vertex state, as Poplar names the
// layouts for its cycle estimators (popops::internal::getScaledArithmeticSupervisorCycleEstimate
// takes them). Tessera stores every field as a full pointer and a size, so a layout changes no
// result and no cycle count; the names are here so code written against Poplar compiles.
#pragma once

#include <ostream>
#include <string>

namespace poplar {
namespace layout {

/// The layout of a Vector field.
enum class Vector {
  NotAVector,   ///< The field is not a vector.
  Span,         ///< A pointer and a size.
  ShortSpan,    ///< A pointer and a size packed into one word.
  OnePtr,       ///< A pointer alone (the size is known from elsewhere).
  ScaledPtr32,  ///< A 16-bit pointer scaled by 4 bytes.
  ScaledPtr64,  ///< A 16-bit pointer scaled by 8 bytes.
  ScaledPtr128, ///< A 16-bit pointer scaled by 16 bytes.
};

/// The enumerator's name, e.g. "ShortSpan".
inline std::string to_string(const Vector v) {
  switch (v) {
  case Vector::NotAVector:
    return "NotAVector";
  case Vector::Span:
    return "Span";
  case Vector::ShortSpan:
    return "ShortSpan";
  case Vector::OnePtr:
    return "OnePtr";
  case Vector::ScaledPtr32:
    return "ScaledPtr32";
  case Vector::ScaledPtr64:
    return "ScaledPtr64";
  case Vector::ScaledPtr128:
    return "ScaledPtr128";
  }
  return "Unknown";
}

/// The layout of a VectorList field.
enum class VectorList {
  NotAVector,     ///< The field is not a vector list.
  OnePtr,         ///< A pointer to an array of pointers.
  ScaledPtr32,    ///< A scaled 32-byte-aligned pointer to the pointers.
  ScaledPtr64,    ///< A scaled 64-byte-aligned pointer to the pointers.
  ScaledPtr128,   ///< A scaled 128-byte-aligned pointer to the pointers.
  DeltaN,         ///< A base and packed (offset, size) pairs, sizes in bytes.
  DeltaNElements, ///< A base and packed (offset, size) pairs, sizes in elements.
};

/// The enumerator's name, e.g. "DeltaN".
inline std::string to_string(const VectorList v) {
  switch (v) {
  case VectorList::NotAVector:
    return "NotAVector";
  case VectorList::OnePtr:
    return "OnePtr";
  case VectorList::ScaledPtr32:
    return "ScaledPtr32";
  case VectorList::ScaledPtr64:
    return "ScaledPtr64";
  case VectorList::ScaledPtr128:
    return "ScaledPtr128";
  case VectorList::DeltaN:
    return "DeltaN";
  case VectorList::DeltaNElements:
    return "DeltaNElements";
  }
  return "Unknown";
}

/// Writes to_string(v).
inline std::ostream &operator<<(std::ostream &os, const Vector v) { return os << to_string(v); }
inline std::ostream &operator<<(std::ostream &os, const VectorList v) { return os << to_string(v); }

} // namespace layout
} // namespace poplar
