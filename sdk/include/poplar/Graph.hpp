// The graph: variables, constants, tile mappings, compute sets, vertices, streams, functions.
#pragma once

// <cassert>, <functional>, <numeric> and <unordered_set> as Poplar's headers bring them in:
// programs written for Poplar use `assert`, std::function, std::accumulate and
// std::unordered_set after including only this header.
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iosfwd>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/CodeletFileType.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/Device.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/Interval.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/PerfEstimateFunc.hpp>
#include <poplar/Program.hpp>
#include <poplar/SerializationFormat.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/TensorCloneMethod.hpp>
#include <poplar/Type.hpp>
#include <poplar/Version.hpp> // Poplar declares versionString() in Graph.hpp
#include <poplar/exceptions.hpp>

namespace poplar {

/// One list of tensor-element intervals per tile: element `i` of the outer vector is tile i.
using TileToTensorMapping = std::vector<std::vector<Interval>>;

/// Number of replicas a graph describes: `Graph(target, replication_factor(R))` builds one
/// replica's graph on target.getNumTiles() / R tiles, and the Engine runs R copies of it on the
/// whole device, each with its own tile memory, streams and host tensors (gcl's collectives
/// combine them).
struct replication_factor {
  explicit replication_factor(unsigned v) : value(v) {}
  unsigned value;
};

/// A field connection given to `addVertex`: `{"field", tensor}`, `{"field", {t0, t1}}`, or a
/// plain member's value `{"numRows", n}` (any arithmetic host type, converted to the member's
/// type as `setInitialValue` does).
struct ConnectionDesc {
  ConnectionDesc(StringRef field, const Tensor &t) : field(field.str()), tensors{t} {}
  ConnectionDesc(StringRef field, ArrayRef<Tensor> ts)
      : field(field.str()), tensors(ts.begin(), ts.end()), isList(true) {}
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  ConnectionDesc(StringRef field, T v)
      : field(field.str()), valueType(equivalent_device_type<T>::value), value(sizeof(T)) {
    std::memcpy(value.data(), &v, sizeof(T));
  }
  std::string field;
  std::vector<Tensor> tensors;
  bool isList = false;
  /// For a value connection: the host type and bytes of the value (else an invalid type).
  Type valueType;
  std::vector<unsigned char> value;
};

/// A dataflow graph for one Target. Build it, then hand it with programs to an Engine.
/// Graphs are movable, not copyable. `createVirtualGraph` gives a view over a tile range that
/// shares the same variables and compute sets.
class Graph {
public:
  /// Poplar spells these as members of Graph too.
  using TileToTensorMapping = poplar::TileToTensorMapping;
  using ConnectionDesc = poplar::ConnectionDesc;

  explicit Graph(const Target &target, replication_factor r = replication_factor(1));
  explicit Graph(const Device &device, replication_factor r = replication_factor(1));
  Graph(Graph &&) noexcept;
  Graph &operator=(Graph &&) noexcept;
  ~Graph();

  /// The target of this graph (a virtual graph's target has only its tiles; a replicated
  /// graph's, one replica's share of the device).
  const Target &getTarget() const;
  unsigned getReplicationFactor() const;
  /// An UNSIGNED_INT scalar that holds, in each replica, that replica's index (0 … R-1). Map it
  /// to a tile like any tensor.
  Tensor addReplicationIndexConstant(const DebugContext &debugContext = {});

  // ---- variables and constants -------------------------------------------------------
  /// A new, unmapped variable of `shape`.
  Tensor addVariable(const Type &type, ArrayRef<std::size_t> shape,
                     const DebugContext &debugContext = {});
  Tensor addVariable(const Type &type, ArrayRef<std::size_t> shape, VariableMappingMethod mapping,
                     const DebugContext &debugContext = {});
  /// A variable of a type that requires metadata (QUARTER) read under `metadata`, a
  /// QUARTER_METADATA tensor of one element (see <poplar/MetadataCreation.hpp>). The forms
  /// without metadata give a QUARTER variable a metadata variable of its own (mapped to tile 0,
  /// initially F152 scale 0) that Engine::writeTensor with a QuarterMetadata or a Copy into
  /// `getMetadata()` sets. Throws type_error naming the variable and the metadata tensor when
  /// the metadata is missing or not one QUARTER_METADATA element, or when `type` takes none.
  Tensor addVariable(const Type &type, const Tensor &metadata, ArrayRef<std::size_t> shape,
                     const DebugContext &debugContext = {});
  Tensor addVariable(const Type &type, const Tensor &metadata, ArrayRef<std::size_t> shape,
                     VariableMappingMethod mapping, const DebugContext &debugContext = {});

  /// A constant filled from `values` (converted to `type`); must still be mapped to tiles.
  template <class T>
  Tensor addConstant(const Type &type, ArrayRef<std::size_t> shape, ArrayRef<T> values,
                     const DebugContext &debugContext = {"<const>"}) {
    static_assert(std::is_arithmetic<T>::value, "addConstant takes arithmetic host values");
    return addConstantImpl(type, shape, equivalent_device_type<T>::value, values.data(),
                           values.size(), false, debugContext);
  }
  /// A constant of `shape` with every element equal to `value`.
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  Tensor addConstant(const Type &type, ArrayRef<std::size_t> shape, T value,
                     const DebugContext &debugContext = {"<const>"}) {
    return addConstantImpl(type, shape, equivalent_device_type<T>::value, &value, 1, true,
                           debugContext);
  }
  template <class T>
  Tensor addConstant(const Type &type, ArrayRef<std::size_t> shape, const T *values,
                     const DebugContext &debugContext = {"<const>"}) {
    std::size_t n = 1;
    for (auto d : shape)
      n *= d;
    return addConstantImpl(type, shape, equivalent_device_type<T>::value, values, n, false,
                           debugContext);
  }
  /// A HALF constant from raw IEEE binary16 bits.
  Tensor addConstantHalf(const Type &type, ArrayRef<std::size_t> shape, std::uint16_t bits,
                         const DebugContext &debugContext = {"<const>"});

  /// A new variable with `t`'s shape, type and tile mapping.
  Tensor clone(const Tensor &t, const DebugContext &debugContext = {},
               TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);
  /// As clone, with another element type.
  Tensor clone(const Type &type, const Tensor &t, const DebugContext &debugContext = {},
               TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);
  /// N clones stacked in a new outermost dimension.
  Tensor cloneN(const Tensor &t, std::size_t N, const DebugContext &debugContext = {},
                TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);

  /// The whole variable `v` as a flat tensor.
  Tensor getVariable(VariableRef v) const;
  /// The debug name a variable was created with.
  std::string getDebugStr(VariableRef v) const;
  bool isConstant(VariableRef v) const;

  /// Initial contents of `t` (written when the Engine is loaded).
  template <class T> void setInitialValue(const Tensor &t, ArrayRef<T> values) {
    setInitialValueImpl(t, equivalent_device_type<T>::value, values.data(), values.size(), false);
  }
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  void setInitialValue(const Tensor &t, T value) {
    setInitialValueImpl(t, equivalent_device_type<T>::value, &value, 1, true);
  }

  // ---- tile mapping ------------------------------------------------------------------
  /// Places every element of `t` on `tile`.
  void setTileMapping(const Tensor &t, unsigned tile);
  /// Places elements by a per-tile list of tensor-element intervals.
  void setTileMapping(const Tensor &t, const TileToTensorMapping &mapping);
  void setTileMapping(VertexRef v, unsigned tile);
  /// Per tile, the intervals of `t`'s elements mapped there. With `requireComplete`, an
  /// unmapped element throws `invalid_tile_mapping` naming the variable.
  TileToTensorMapping getTileMapping(const Tensor &t, bool requireComplete = true) const;
  TileToTensorMapping getTileMapping(const Tensor &t, bool *isComplete) const;

  // ---- codelets ----------------------------------------------------------------------
  /// Adds the vertex classes of codelet file `src` (C++ source, or an object made by `popc`).
  /// A source is compiled with the host compiler (`compileFlags` are passed to it, e.g.
  /// "-O3 -DN=4 -I dir") into a shared object that is cached on disk, keyed by the contents of
  /// the file and of every `#include "…"` it pulls in, the SDK version, the flags and the
  /// compiler; an unchanged file therefore compiles once per machine, not once per process.
  /// Every class deriving from Vertex, MultiVertex or SupervisorVertex (templates: each
  /// explicit instantiation, named "Foo<float>") is registered with its fields.
  /// `targetName` is accepted for compatibility (codelets always run on the host).
  /// Returns false when this graph had already loaded the same codelets, else true.
  /// Throws `graph_object_load_error` naming the file (and, when it does not compile, the
  /// compiler's first error with file:line) if it is missing, does not compile, defines no
  /// vertex class or is not a Tessera codelet object.
  /// Environment: TESSERA_CXX (compiler), TESSERA_CODELET_CACHE (cache directory, default
  /// $XDG_CACHE_HOME/tessera/codelets), TESSERA_INCLUDE_DIR (SDK headers given to codelets).
  bool addCodelets(StringRef src, CodeletFileType type = CodeletFileType::Auto,
                   StringRef compileFlags = "", StringRef targetName = "");
  /// As above; the compiler's diagnostics (warnings too) are also written to `compileOutput`.
  bool addCodelets(StringRef src, CodeletFileType type, StringRef compileFlags,
                   std::ostream &compileOutput, StringRef targetName = "");
  /// Adds codelets whose source text is in `stream` (written to the cache directory and
  /// compiled like a file; relative `#include "…"` lines resolve from there).
  void addCodelets(std::stringstream &stream, StringRef compileFlags = "",
                   CodeletFileType type = CodeletFileType::CppSource, StringRef targetName = "");
  void addCodelets(std::stringstream &stream, StringRef compileFlags, std::ostream &compileOutput,
                   CodeletFileType type = CodeletFileType::CppSource, StringRef targetName = "");

  // ---- compute -----------------------------------------------------------------------
  ComputeSet addComputeSet(const DebugContext &debugContext = {});
  /// A vertex of a registered type; throws `unknown_vertex_type` for an unknown name.
  VertexRef addVertex(ComputeSet cs, StringRef vertexType);
  VertexRef addVertex(ComputeSet cs, StringRef vertexType, ArrayRef<ConnectionDesc> connections);
  /// Connects a scalar, Vector or (indexed) VectorList element field to `t`.
  void connect(FieldRef field, const Tensor &t);
  /// Connects a VectorList field to one tensor per element.
  void connect(FieldRef field, ArrayRef<Tensor> tensors);
  /// Number of elements of a VectorList field (or the expected size of a Vector field).
  void setFieldSize(FieldRef field, std::size_t size);
  /// Value of a plain member field.
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  void setInitialValue(FieldRef field, T value) {
    setFieldValueImpl(field, equivalent_device_type<T>::value, &value, 1);
  }
  template <class T> void setInitialValue(FieldRef field, ArrayRef<T> values) {
    setFieldValueImpl(field, equivalent_device_type<T>::value, values.data(), values.size());
  }
  /// Cycle estimate used by the cost model for `v` (overrides the vertex type's own).
  void setPerfEstimate(const VertexRef &v, std::uint64_t cycles, std::uint64_t flops = 0);
  void setPerfEstimate(const VertexRef &v, const VertexPerfEstimate &estimate);

  // ---- host I/O ----------------------------------------------------------------------
  DataStream addHostToDeviceFIFO(StringRef handle, const Type &elementType, std::size_t numElements,
                                 ReplicatedStreamMode mode = ReplicatedStreamMode::REPLICATE,
                                 const OptionFlags &options = {});
  DataStream addDeviceToHostFIFO(StringRef handle, const Type &elementType, std::size_t numElements,
                                 const OptionFlags &options = {});
  /// A remote buffer of `repeats` rows of `numElements` elements in host memory (one per
  /// replica). `rearrangeOnHost` and `optimiseMemory` are recorded and change nothing on CPU.
  /// Throws graph_object_creation_error for a handle a stream or remote buffer already has, or
  /// for 0 elements or rows; type_error for an invalid element type.
  RemoteBuffer addRemoteBuffer(StringRef handle, const Type &elementType, std::size_t numElements,
                               std::size_t repeats = 1, bool rearrangeOnHost = false,
                               bool optimiseMemory = false);
  /// Lets the host write `t` with `Engine::writeTensor(handle, …)`.
  void createHostWrite(StringRef handle, const Tensor &t, bool rearrangeOnHost = false);
  /// Lets the host read `t` with `Engine::readTensor(handle, …)`.
  void createHostRead(StringRef handle, const Tensor &t, bool rearrangeOnHost = false);

  // ---- structure ---------------------------------------------------------------------
  Function addFunction(const program::Program &program);
  /// A graph over tiles [lowerTile, upperTile) of this one; tile numbers in it start at 0.
  Graph createVirtualGraph(unsigned lowerTile, unsigned upperTile);

  // ---- serialization and inspection (GraphSerialization.cpp, ContiguousRegions.cpp,
  //      GraphDot.cpp) -----------------------------------------------------------------
  /// Writes a description of the whole graph (variables with their types, shapes and tile
  /// mappings, compute sets, vertices with their tiles and connections, streams) and, with
  /// `progs`, how many programs there are: for inspection and debugging, not for reloading.
  void serialize(std::ostream &out, SerializationFormat format) const;
  void serialize(std::ostream &out, ArrayRef<program::Program> progs,
                 SerializationFormat format) const;
  /// Writes `tensors` (all of this graph) with the variables they are views of: each
  /// tensor's element type, shape and runs of variable elements; each variable's type, shape,
  /// debug name, tile mapping and (for constants and variables given one) initial value.
  /// The data carries a checksum. Throws `graph_connection_error` naming a tensor that is
  /// invalid or of another graph, `runtime_error` when the stream cannot be written.
  void serializeTensors(std::ostream &out, ArrayRef<Tensor> tensors,
                        SerializationFormat format) const;
  /// Reads what serializeTensors wrote and re-creates it in this graph: one new variable per
  /// variable written (same type, shape, name and tile mapping; new ids), and the tensors as
  /// views of them, so tensors that shared elements when written share them again. Both
  /// formats are accepted (Poplar reads Binary only). The whole stream is checked before
  /// anything is added: a truncated, corrupt or foreign stream throws `parse_error` saying what
  /// is wrong; a tile mapping this graph cannot hold throws `invalid_tile_mapping` naming the
  /// variable and the tile.
  std::vector<Tensor> deserializeTensors(std::istream &in, SerializationFormat format);

  /// The elements of `t` listed in `regions` (tensor-order intervals), as sequences of
  /// intervals such that each sequence is one contiguous run of memory (consecutive elements
  /// of one variable on one tile), the intervals of a sequence listed in memory order, and the
  /// sequences sorted by variable then offset. Elements that several intervals alias (the same
  /// variable element reached twice) are kept once with `removeAliasedIntervals`; otherwise
  /// each aliased interval follows, as a sequence of its own, the sequence holding the first
  /// interval it aliases. `aliases`, when given, gets one entry per returned interval (in
  /// flattened order): the interval's own begin when it is not an alias, else the begin of the
  /// returned interval (of the same size) it aliases. Throws `index_error` for an interval
  /// outside `t` and `graph_connection_error` for a tensor of another graph.
  std::vector<std::vector<Interval>>
  getSortedContiguousRegions(const Tensor &t, ArrayRef<Interval> regions,
                             bool removeAliasedIntervals = false,
                             std::vector<std::size_t> *aliases = nullptr) const;

  /// Writes, as a Graphviz `digraph`, every vertex (labelled with its type, compute set and
  /// tile) and every variable it is connected to, with an edge per connected field (variable
  /// to vertex for inputs, vertex to variable for outputs, both ways for in-outs). With
  /// `progs`, only the compute sets those programs execute are drawn.
  void outputVertexGraph(std::ostream &outputStream, ArrayRef<program::Program> progs = {}) const;
  /// Writes, as a Graphviz `digraph`, every compute set (with its vertex count) and the
  /// variables its vertices read and write. With `progs`, the programs are drawn as nodes too,
  /// with edges in the order they run, and only the compute sets they execute are drawn.
  void outputComputeGraph(std::ostream &outputStream, ArrayRef<program::Program> progs = {}) const;

  // Tessera internals.
  core::GraphData &data() const { return *data_; }
  /// Absolute tile index of this (possibly virtual) graph's tile 0.
  unsigned tileBase() const { return tileBase_; }

private:
  Graph(std::shared_ptr<core::GraphData> data, Target target, unsigned tileBase);
  Tensor addConstantImpl(const Type &type, ArrayRef<std::size_t> shape, Type hostType,
                         const void *values, std::size_t count, bool broadcastOne,
                         const DebugContext &dc);
  void setInitialValueImpl(const Tensor &t, Type hostType, const void *values, std::size_t count,
                           bool broadcastOne);
  void setFieldValueImpl(FieldRef field, Type hostType, const void *values, std::size_t count);
  /// `what` names the operation for the out-of-range message; it is only called on that path
  /// (describing a tensor or vertex costs more than mapping it).
  unsigned absoluteTile(unsigned tile, const std::function<std::string()> &what) const;

  std::shared_ptr<core::GraphData> data_;
  Target target_;
  unsigned tileBase_ = 0;
};

} // namespace poplar
