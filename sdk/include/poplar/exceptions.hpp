// Exceptions thrown by the SDK. Every error is a `poplar_error`; catch the subclass to tell
// causes apart. Messages always name the object at fault (tensor, vertex, field, tile, file,
// option) and say what was expected.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace poplar {

/// Base of every error the SDK throws.
struct poplar_error : std::runtime_error {
  std::string type;
  explicit poplar_error(const std::string &message, std::string typeName = "poplar_error")
      : std::runtime_error(message), type(std::move(typeName)) {}
};

#define TESSERA_DEFINE_ERROR(NAME)                                                                 \
  struct NAME : poplar_error {                                                                     \
    explicit NAME(const std::string &message) : poplar_error(message, #NAME) {}                    \
  };

/// A vertex field connection is invalid (wrong element type or size, unconnected field…).
TESSERA_DEFINE_ERROR(graph_connection_error)
/// The graph does not fit in a tile's memory; the message names the tile and its largest users.
TESSERA_DEFINE_ERROR(graph_memory_allocation_error)
/// A program refers to objects that cannot be compiled together (e.g. from another graph).
TESSERA_DEFINE_ERROR(graph_program_compilation_error)
/// A control program is malformed (bad predicate, recursive call…).
TESSERA_DEFINE_ERROR(control_program_error)
/// A data stream is used at run time without a host buffer connected, or connected wrongly.
TESSERA_DEFINE_ERROR(stream_connection_error)
/// An index, dimension or range lies outside a tensor or list.
TESSERA_DEFINE_ERROR(index_error)
/// Shapes do not agree (reshape to another element count, concat of mismatched tensors…).
/// Tessera addition; Poplar reports these as plain `poplar_error`.
TESSERA_DEFINE_ERROR(shape_error)
/// Element types do not agree.
TESSERA_DEFINE_ERROR(type_error)
/// An option key is unknown or its value is malformed; the message suggests the nearest key.
TESSERA_DEFINE_ERROR(invalid_option)
/// A device or IPU Model description is inconsistent.
TESSERA_DEFINE_ERROR(invalid_machine_model)
/// A tensor or vertex has no tile, or a tile index is out of range.
TESSERA_DEFINE_ERROR(invalid_tile_mapping)
/// A vertex type name is not registered.
TESSERA_DEFINE_ERROR(unknown_vertex_type)
/// A vertex type has no field of the given name.
TESSERA_DEFINE_ERROR(unknown_field)
/// A field needs a size (`setFieldSize`) that was never given.
TESSERA_DEFINE_ERROR(no_size_specified)
/// Host-side tensor I/O was attempted in a state that does not allow it.
TESSERA_DEFINE_ERROR(tensor_io_state_error)
/// A graph object could not be created.
TESSERA_DEFINE_ERROR(graph_object_creation_error)
/// A codelet file or object could not be loaded.
TESSERA_DEFINE_ERROR(graph_object_load_error)
/// A file could not be parsed.
TESSERA_DEFINE_ERROR(parse_error)
/// Something failed while a program was running (a vertex returned false or threw, an Abort…).
TESSERA_DEFINE_ERROR(runtime_error)
/// Program execution aborted (Abort, AbortOnCondition or a vertex failure).
struct application_runtime_error : runtime_error {
  explicit application_runtime_error(const std::string &message) : runtime_error(message) {
    type = "application_runtime_error";
  }
};

#undef TESSERA_DEFINE_ERROR

} // namespace poplar
