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

/// A field's tensors in 24 bytes: one valid tensor (a Scalar or Vector field, the common case)
/// is held inline; anything else (a VectorList field, whose elements may still be unset) in a
/// vector of its own.
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

  std::size_t size() const { return many_ ? many_->size() : one_.valid() ? 1 : 0; }
  bool empty() const { return size() == 0; }
  Tensor *begin() { return many_ ? many_->data() : &one_; }
  Tensor *end() { return begin() + size(); }
  const Tensor *begin() const { return many_ ? many_->data() : &one_; }
  const Tensor *end() const { return begin() + size(); }
  /// Elements may be assigned a valid tensor in place (never an invalid one).
  Tensor &operator[](std::size_t i) { return begin()[i]; }
  const Tensor &operator[](std::size_t i) const { return begin()[i]; }
  const Tensor &front() const { return *begin(); }

  template <class It> void assign(It first, It last) { set(std::vector<Tensor>(first, last)); }
  /// Keeps the first min(n, size()) tensors; new ones are invalid (unset).
  void resize(std::size_t n) {
    std::vector<Tensor> kept(begin(), begin() + std::min(n, size()));
    kept.resize(n);
    set(std::move(kept));
  }

private:
  void set(std::vector<Tensor> v) {
    if (v.size() == 1 && v.front().valid()) {
      one_ = std::move(v.front());
      many_.reset();
    } else {
      one_ = Tensor();
      many_ = v.empty() ? nullptr : std::make_unique<std::vector<Tensor>>(std::move(v));
    }
  }
  Tensor one_;                                ///< The one valid tensor, when that is all.
  std::unique_ptr<std::vector<Tensor>> many_; ///< Otherwise (null when there are none).
};

/// A plain member's bytes: up to 8 inline (a count, a flag, a stride), more on the heap.
class FieldValue {
public:
  FieldValue() = default;
  FieldValue(const FieldValue &o) { assign(o.data(), o.data() + o.size()); }
  FieldValue &operator=(const FieldValue &o) {
    if (this != &o)
      assign(o.data(), o.data() + o.size());
    return *this;
  }
  FieldValue(FieldValue &&o) noexcept : n_(o.n_) {
    std::copy(o.inline_, o.inline_ + kInline, inline_); // the inline bytes or the heap pointer
    o.n_ = 0;
  }
  FieldValue &operator=(FieldValue &&o) noexcept {
    if (this != &o) {
      release();
      n_ = o.n_;
      std::copy(o.inline_, o.inline_ + kInline, inline_);
      o.n_ = 0;
    }
    return *this;
  }
  ~FieldValue() { release(); }

  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  unsigned char *data() { return n_ > kInline ? heap_ : inline_; }
  const unsigned char *data() const { return n_ > kInline ? heap_ : inline_; }
  /// `n` copies of `byte`, as std::vector::assign.
  void assign(std::size_t n, unsigned char byte) {
    resizeUninitialised(n);
    std::fill(data(), data() + n, byte);
  }
  void assign(const unsigned char *first, const unsigned char *last) {
    const auto n = static_cast<std::size_t>(last - first);
    resizeUninitialised(n);
    std::copy(first, last, data());
  }
  operator std::vector<unsigned char>() const { return {data(), data() + n_}; }

private:
  static constexpr std::size_t kInline = 8;
  void release() {
    if (n_ > kInline)
      delete[] heap_;
    n_ = 0;
  }
  void resizeUninitialised(std::size_t n) {
    release();
    if (n > kInline)
      heap_ = new unsigned char[n];
    n_ = static_cast<std::uint32_t>(n);
  }
  union {
    unsigned char inline_[kInline] = {};
    unsigned char *heap_;
  };
  std::uint32_t n_ = 0;
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
  /// Plain and PlainVector fields. May share its tail padding with `connected`.
  [[no_unique_address]] FieldValue value;
  bool connected = false;
  FieldSize size; ///< From setFieldSize.
};
static_assert(sizeof(FieldState) <= 48, "FieldState is kept per field of every vertex");

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
