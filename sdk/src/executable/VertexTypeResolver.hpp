// Vertex classes across processes: what an executable records of each type it uses, and how
// a deserialized executable finds (or loads) the same classes again.
#pragma once

#include <memory>
#include <string>

#include <tessera/VertexType.hpp>

namespace poplar::executable {

/// The layout an executable's vertex objects depend on: size, alignment, MultiVertex-ness and
/// every field's name, kind, direction, element type and offset (16 hex digits).
std::string fingerprint(const tessera::VertexTypeInfo &type);

/// The bytes of the codelet object `type` was loaded from, or "" for Tessera's built-in types.
std::string codeletObjectBytes(const tessera::VertexTypeInfo &type);

/// The registered class `name`: as registered in this process when its origin and layout match;
/// else loaded from `objectBytes` (a codelet file's object carried by the executable) or from
/// Tessera's built-in codelet libraries. Throws graph_object_load_error naming the type when it
/// cannot be found or its layout differs from `expectedFingerprint`.
std::shared_ptr<const tessera::VertexTypeInfo>
resolveVertexType(const std::string &name, const std::string &origin,
                  const std::string &expectedFingerprint, const std::string &objectBytes);

} // namespace poplar::executable
