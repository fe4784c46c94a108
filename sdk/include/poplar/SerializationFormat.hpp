// The two encodings Graph::serialize and Graph::serializeTensors write.
#pragma once

namespace poplar {

/// How a graph or a set of tensors is written to a stream.
enum class SerializationFormat {
  /// Compact binary: Protocol Buffers behind a header with a length and a checksum (Poplar
  /// writes Cap'n Proto here; the bytes are not interchangeable with Poplar's).
  Binary,
  /// Plain JSON text, for people and tools; it carries the same checksum.
  JSON
};

} // namespace poplar
