// Everything a Graph owns. Shared by a graph and its virtual graphs; read by the compiler.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <iterator>
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

/// A field's tensors: Scalar and Vector fields (most of them) hold one, inline, with no
/// allocation of its own; VectorList fields hold any number in one array.
class FieldTensors {
public:
  FieldTensors() = default;
  FieldTensors(const FieldTensors &o) { assign(o.begin(), o.end()); }
  FieldTensors(FieldTensors &&) noexcept = default;
  FieldTensors &operator=(const FieldTensors &o) {
    if (this != &o)
      assign(o.begin(), o.end());
    return *this;
  }
  FieldTensors &operator=(FieldTensors &&) noexcept = default;
  FieldTensors &operator=(std::initializer_list<Tensor> l) {
    assign(l.begin(), l.end());
    return *this;
  }

  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  Tensor *begin() { return many_ ? many_.get() : &one_; }
  Tensor *end() { return begin() + n_; }
  const Tensor *begin() const { return many_ ? many_.get() : &one_; }
  const Tensor *end() const { return begin() + n_; }
  Tensor &operator[](std::size_t i) { return begin()[i]; }
  const Tensor &operator[](std::size_t i) const { return begin()[i]; }
  const Tensor &front() const { return *begin(); }

  template <class It> void assign(It first, It last) {
    const auto n = static_cast<std::size_t>(std::distance(first, last));
    std::unique_ptr<Tensor[]> many;
    Tensor one;
    if (n > 1) {
      many.reset(new Tensor[n]);
      std::copy(first, last, many.get());
    } else if (n == 1) {
      one = *first;
    }
    many_ = std::move(many);
    one_ = std::move(one);
    n_ = n;
  }
  /// Keeps the first min(n, size()) tensors; new ones are invalid (unset).
  void resize(std::size_t n) {
    std::vector<Tensor> kept(begin(), begin() + std::min(n, n_));
    kept.resize(n);
    assign(kept.begin(), kept.end());
  }

private:
  std::unique_ptr<Tensor[]> many_; ///< When more than one.
  Tensor one_;                     ///< When exactly one.
  std::size_t n_ = 0;
};

/// An optional element count in one word (std::optional<std::size_t> takes two).
class FieldSize {
public:
  FieldSize &operator=(std::size_t n) {
    n_ = n;
    return *this;
  }
  explicit operator bool() const { return n_ != kNone; }
  bool has_value() const { return n_ != kNone; }
  std::size_t operator*() const { return n_; }
  std::size_t value_or(std::size_t other) const { return has_value() ? n_ : other; }

private:
  static constexpr std::size_t kNone = ~std::size_t(0);
  std::size_t n_ = kNone;
};

/// What one field of a vertex has been given so far.
struct FieldState {
  /// Scalar/Vector: one tensor. VectorList: one per element (invalid where unset).
  FieldTensors tensors;
  std::vector<unsigned char> value; ///< Plain and PlainVector fields.
  FieldSize size;                   ///< From setFieldSize.
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
