// Everything a Graph owns. Shared by a graph and its virtual graphs; read by the compiler.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <poplar/Program.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>
#include <tessera/VertexType.hpp>

#include "core/TileIntervalMap.hpp"

namespace poplar::core {

inline constexpr unsigned kNoTile = ~0u;

struct VariableData {
  Type type;
  std::size_t numElements = 0;
  std::vector<std::size_t> shape;
  std::string name;
  bool isConstant = false;
  TileIntervalMap mapping;
  /// Initial contents (numElements × type size bytes), or empty when none were given.
  std::vector<unsigned char> initialValue;
  /// QUARTER variables: the QUARTER_METADATA scalar that says how to read them.
  Tensor metadata;
};

/// What one field of a vertex has been given so far.
struct FieldState {
  /// Scalar/Vector: one tensor. VectorList: one per element (invalid where unset).
  std::vector<Tensor> tensors;
  std::optional<std::size_t> size;  ///< From setFieldSize.
  std::vector<unsigned char> value; ///< Plain and PlainVector fields.
  bool connected = false;
};

struct VertexData {
  std::shared_ptr<const tessera::VertexTypeInfo> type;
  unsigned computeSet = 0;
  unsigned tile = kNoTile;
  std::vector<FieldState> fields; ///< Parallel to type->fields.
  std::optional<std::uint64_t> perfEstimate;
  std::uint64_t flops = 0;
};

struct ComputeSetData {
  std::string name;
  std::vector<unsigned> vertices;
};

struct StreamData {
  std::string handle;
  Type type;
  std::size_t numElements = 0;
  bool toDevice = true;
  ReplicatedStreamMode mode = ReplicatedStreamMode::REPLICATE;
};

/// Graph::addRemoteBuffer: `repeats` rows of `numElements` elements in the host's memory.
struct RemoteBufferData {
  std::string handle;
  Type type;
  std::size_t numElements = 0;
  std::size_t repeats = 1;
  bool rearrangeOnHost = false;
  bool optimiseMemory = false;
};

struct GraphData {
  std::uint64_t id = 0; ///< Unique per top-level graph in this process.
  Target target;
  unsigned replicationFactor = 1;
  /// Graph::addReplicationIndexConstant's tensors: each replica's copy holds its index.
  std::vector<Tensor> replicationIndexTensors;
  std::vector<VariableData> variables;
  std::vector<ComputeSetData> computeSets;
  std::vector<VertexData> vertices;
  std::vector<StreamData> streams;
  std::map<std::string, unsigned> streamByHandle;
  std::map<std::string, Tensor> hostWrites;
  std::map<std::string, Tensor> hostReads;
  std::vector<program::Program> functions;
  /// Codelet objects `addCodelets` loaded into this graph (by cache key or object path).
  std::set<std::string> codeletObjects;
  std::vector<RemoteBufferData> remoteBuffers;
};

/// The hidden host handle through which Engine::readTensor/writeTensor with a QuarterMetadata
/// reach the metadata of the QUARTER tensor registered under `handle`.
std::string metadataHandle(const std::string &handle);

/// "'weights' (float[3,4])": how error messages name a tensor.
std::string describe(const Tensor &t);
/// "vertex 12 'Sum' in compute set 'cs'": how error messages name a vertex.
std::string describeVertex(const GraphData &g, unsigned vertexId);

} // namespace poplar::core
