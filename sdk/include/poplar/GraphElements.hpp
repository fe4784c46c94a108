// Small handles to objects owned by a Graph: compute sets, vertices, fields, functions, streams.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <poplar/DataStreamType.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/Type.hpp>

namespace poplar {

namespace core {
struct GraphData;
}

/// A set of vertices that run in one BSP compute phase (`program::Execute`).
class ComputeSet {
public:
  ComputeSet() = default;
  ComputeSet(const core::GraphData *graph, unsigned id) : graph_(graph), id_(id) {}
  unsigned getId() const { return id_; }
  bool valid() const { return graph_ != nullptr; }
  const core::GraphData *graph() const { return graph_; }
  friend bool operator==(const ComputeSet &a, const ComputeSet &b) {
    return a.graph_ == b.graph_ && a.id_ == b.id_;
  }

private:
  const core::GraphData *graph_ = nullptr;
  unsigned id_ = ~0u;
};

class FieldRef;

/// A vertex in a compute set. `v["field"]` names one of its fields.
class VertexRef {
public:
  VertexRef() = default;
  VertexRef(core::GraphData *graph, unsigned id) : graph_(graph), id_(id) {}
  unsigned getId() const { return id_; }
  core::GraphData *graph() const { return graph_; }
  inline FieldRef operator[](StringRef fieldName) const;
  friend bool operator==(const VertexRef &a, const VertexRef &b) {
    return a.graph_ == b.graph_ && a.id_ == b.id_;
  }

private:
  core::GraphData *graph_ = nullptr;
  unsigned id_ = ~0u;
};

/// A field of a vertex; `f[i]` is element i of a VectorList field.
class FieldRef {
public:
  FieldRef() = default;
  FieldRef(VertexRef vertex, std::string name, std::size_t index = kNoIndex)
      : vertex_(vertex), name_(std::move(name)), index_(index) {}
  FieldRef operator[](std::size_t i) const { return FieldRef(vertex_, name_, i); }
  const VertexRef &vertex() const { return vertex_; }
  const std::string &name() const { return name_; }
  bool isIndexed() const { return index_ != kNoIndex; }
  std::size_t index() const { return index_; }

  static constexpr std::size_t kNoIndex = ~std::size_t(0);

private:
  VertexRef vertex_;
  std::string name_;
  std::size_t index_ = kNoIndex;
};

inline FieldRef VertexRef::operator[](StringRef fieldName) const {
  return FieldRef(*this, fieldName.str());
}

/// A reusable program body added with `Graph::addFunction`, run with `program::Call`.
class Function {
public:
  Function() = default;
  Function(const core::GraphData *graph, unsigned id) : graph_(graph), id_(id) {}
  unsigned getId() const { return id_; }
  const core::GraphData *graph() const { return graph_; }

private:
  const core::GraphData *graph_ = nullptr;
  unsigned id_ = ~0u;
};

enum class ReplicatedStreamMode { REPLICATE, BROADCAST };

/// A FIFO between host and device, made by `addHostToDeviceFIFO` / `addDeviceToHostFIFO` and
/// moved by `program::Copy`. The host side is connected with `Engine::connectStream`.
class DataStream {
public:
  DataStream() = default;
  DataStream(const core::GraphData *graph, unsigned id) : graph_(graph), id_(id) {}
  unsigned getId() const { return id_; }
  const core::GraphData *graph() const { return graph_; }
  /// The handle the host uses to connect a buffer.
  std::string handle() const;
  Type elementType() const;
  std::size_t numElements() const;
  /// HostToDeviceFIFO or DeviceToHostFIFO for the streams Graph makes.
  DataStreamType type() const;
  /// The graph's replication factor: how many replicas each have this stream.
  unsigned replicationFactor() const;
  /// For a host-to-device stream, the mode it was added with (REPLICATE for the others).
  ReplicatedStreamMode replicatedMode() const;

private:
  const core::GraphData *graph_ = nullptr;
  unsigned id_ = ~0u;
};

/// A buffer in the host's streaming memory, made by `Graph::addRemoteBuffer`: `getRepeats()`
/// rows of `numElements()` elements, zero when the Engine is loaded. `program::Copy` moves rows
/// between it and tensors (the row chosen by an offset tensor at run time); the host reads and
/// writes rows with `Engine::copyToRemoteBuffer` / `copyFromRemoteBuffer`. Each replica of a
/// replicated graph has a buffer of its own.
class RemoteBuffer {
public:
  RemoteBuffer() = default;
  RemoteBuffer(const core::GraphData *graph, unsigned id) : graph_(graph), id_(id) {}
  unsigned getId() const { return id_; }
  const core::GraphData *graph() const { return graph_; }
  /// The name the host uses in `Engine::copyToRemoteBuffer` / `copyFromRemoteBuffer`.
  std::string handle() const;
  Type elementType() const;
  /// Elements per row.
  std::size_t numElements() const;
  /// Rows.
  std::size_t getRepeats() const;
  /// As given to addRemoteBuffer; recorded only (the host always holds rows in order).
  bool isRearrangeOnHost() const;
  bool isOptimisedForMemory() const;
  bool operator==(const RemoteBuffer &b) const { return graph_ == b.graph_ && id_ == b.id_; }
  bool operator!=(const RemoteBuffer &b) const { return !(*this == b); }

private:
  const core::GraphData *graph_ = nullptr;
  unsigned id_ = ~0u;
};

} // namespace poplar
