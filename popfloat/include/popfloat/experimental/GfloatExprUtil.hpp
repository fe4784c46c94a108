// Names of the gfloat enumerations (GfloatExpr.hpp): as strings, as poplar types, and as template
// arguments of vertex names ("popfloat::experimental::RoundType::RN"), the way PopLibs spells them.
#pragma once

#include <string>

#include <popfloat/experimental/GfloatExpr.hpp>
#include <poplar/Type.hpp>
#include <poputil/VertexTemplates.hpp>

namespace popfloat {
namespace experimental {

/// The enumerator's name, e.g. "RN"; throws poputil::poplibs_error for a value out of range.
std::string roundTypeToString(RoundType rmode);
/// The enumerator's name, e.g. "BFLOAT16".
std::string formatTypeToString(FormatType fmt);
/// The enumerator's name, e.g. "TRUNCATED_NORMAL".
std::string srDensityTypeToString(SRDensityType dist);
/// FP32 -> FLOAT, FP16 -> HALF, INT8 -> CHAR, INT16 -> SHORT, INT32 -> INT; AUTO has no type and
/// throws poputil::poplibs_error.
poplar::Type specTypeToPoplarType(SpecType specType);

} // namespace experimental
} // namespace popfloat

namespace poputil {

template <> struct VertexTemplateToString<popfloat::experimental::RoundType> {
  static std::string to_string(const popfloat::experimental::RoundType &rmode) {
    return "popfloat::experimental::RoundType::" + popfloat::experimental::roundTypeToString(rmode);
  }
};

template <> struct VertexTemplateToString<popfloat::experimental::FormatType> {
  static std::string to_string(const popfloat::experimental::FormatType &fmt) {
    return "popfloat::experimental::FormatType::" + popfloat::experimental::formatTypeToString(fmt);
  }
};

template <> struct VertexTemplateToString<popfloat::experimental::SRDensityType> {
  static std::string to_string(const popfloat::experimental::SRDensityType &dist) {
    return "popfloat::experimental::SRDensityType::" +
           popfloat::experimental::srDensityTypeToString(dist);
  }
};

} // namespace poputil
