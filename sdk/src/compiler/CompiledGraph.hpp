// What Engine construction produces and `run()` executes: tile memory sizes, vertex objects
// to build in it, and a flat list of steps. Everything refers to tile memory as
// (tile, byte offset) so the same plan works wherever the arenas are allocated.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <poplar/Type.hpp>
#include <tessera/VertexType.hpp>

#include "core/CrossReplica.hpp"

namespace poplar::compiler {

/// A place in tile memory.
struct TileAddress {
  unsigned tile = 0;
  std::uint64_t offset = 0;
};

/// Where a copy reads or writes: a tile and a byte offset in it. Copies are the bulk of a compiled
/// graph (millions of them for a whole IPU), so they address tile memory with 32 bits: a tile
/// arena of more than 4 GiB is refused when the copies are planned (CopyListBuilder).
struct CopyAddress {
  std::uint32_t tile = 0;
  std::uint32_t offset = 0;
  operator TileAddress() const { return {tile, offset}; }
};

/// The largest tile arena copies can address (CopyAddress's offsets are 32 bits).
constexpr std::uint64_t kMaxCopyTileBytes = std::uint64_t(1) << 32;

/// A memcpy between tile memories, done `repeat` times from the same source to consecutive
/// destinations (how a broadcast view is gathered: one run per repetition, not one op each).
/// `repeat` rows of `bytes` each, in order: row r copies src + r·srcStride to dst + r·dstStride.
/// A strided slice's pieces become one op (not one per piece); srcStride 0 is a broadcast.
/// 32 bytes: a row size, count or stride that does not fit its field is planned as several ops.
struct CopyOp {
  CopyAddress src;
  CopyAddress dst;
  std::uint32_t bytes = 0; ///< Per row.
  std::uint32_t repeat = 1;
  std::int32_t srcStride = 0;
  std::int32_t dstStride = 0;
  std::uint64_t totalBytes() const { return std::uint64_t(bytes) * repeat; }
  /// The source bytes the rows read lie in [first, second) (with gaps when strided).
  std::pair<std::uint64_t, std::uint64_t> sourceSpan() const {
    const std::int64_t last = std::int64_t(src.offset) + std::int64_t(repeat - 1) * srcStride;
    const auto lo = std::uint64_t(std::min<std::int64_t>(std::int64_t(src.offset), last));
    const auto hi = std::uint64_t(std::max<std::int64_t>(std::int64_t(src.offset), last));
    return {lo, hi + bytes};
  }
};
static_assert(sizeof(CopyOp) == 32, "CopyOp is the unit of every copy list: keep it compact");

/// Copies grouped by destination tile; groups run in parallel, each group in order, so the
/// result never depends on the number of host threads.
struct CopyList {
  std::vector<CopyOp> ops;
  std::vector<std::size_t> groupBegin; ///< Start index of each group in `ops`, plus ops.size().
  /// Bytes written by all ops (repetitions included).
  std::uint64_t totalBytes = 0;
  bool empty() const { return ops.empty(); }
  std::size_t numGroups() const { return groupBegin.empty() ? 0 : groupBegin.size() - 1; }
};

/// A run of a tensor's bytes in tile memory and where it sits in the tensor's host image.
struct TensorPiece {
  TileAddress at;
  std::uint64_t hostOffset = 0; ///< Bytes from the start of the tensor (row-major).
  std::uint64_t bytes = 0;
};

/// A tensor as seen by host-side steps (streams, host I/O, printing, predicates).
struct TensorImage {
  Type type;
  std::vector<std::size_t> shape;
  std::vector<TensorPiece> pieces; ///< In increasing hostOffset (MemoryLayout::image).
  std::uint64_t bytes = 0;
};

/// A pointer slot of a vertex object to fill at load: slot ← address of the target (and, unless
/// the field has no size, the element count after it). 16 bytes; a graph holds tens of millions.
/// Offsets are 32-bit: the compiler refuses a tile of 4 GiB or more (kMaxTileBytes).
struct PointerPatch {
  static constexpr std::uint32_t kNullTarget = ~std::uint32_t(0); ///< targetTile: stays null.
  static constexpr std::uint32_t kNoSize = ~std::uint32_t(0);     ///< size: a pointer alone.
  /// Bytes from the object's start to the slot, on the object's tile (a VectorList's table
  /// entries lie after the object, in the vertex state allocated with it).
  std::uint32_t slot = 0;
  std::uint32_t targetTile = kNullTarget;
  std::uint32_t targetOffset = 0;
  std::uint32_t size = kNoSize; ///< Elements of the field.
  bool null() const { return targetTile == kNullTarget; }
  bool hasSize() const { return size != kNoSize; }
  TileAddress target() const { return {targetTile, targetOffset}; }
};

/// A plain member value copied into a vertex object at load: `length` bytes of
/// CompiledGraph::valueBytes from `pool`, to `offset` bytes from the object's start.
struct ValuePatch {
  std::uint64_t pool = 0;
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
};

/// A vertex object to construct in tile memory at load time. Its patches are ranges of the
/// graph's flat patch arrays (CompiledGraph::pointerPatches, valuePatches) and its type an index
/// into CompiledGraph::vertexTypes: 36 bytes per vertex and nothing allocated per object.
struct VertexObject {
  std::uint32_t vertexId = 0;
  std::uint32_t computeSetPlan = 0; ///< Index into CompiledGraph::computeSets.
  std::uint32_t type = 0;           ///< Index into CompiledGraph::vertexTypes.
  std::uint32_t tile = 0;
  std::uint32_t offset = 0; ///< Of the object in its tile's memory.
  std::uint32_t pointerBegin = 0, pointerCount = 0;
  std::uint32_t valueBegin = 0, valueCount = 0;
  TileAddress at() const { return {tile, offset}; }
};

/// Offsets in tile memory are 32-bit in vertex objects and their patches.
inline constexpr std::uint64_t kMaxTileBytes = std::uint64_t(1) << 32;

struct VertexCall {
  unsigned objectIndex = 0; ///< Into CompiledGraph::vertexObjects.
  unsigned workers = 1;     ///< numWorkerContexts for a MultiVertex, else 1.
};

struct TileWork {
  unsigned tile = 0;
  std::vector<VertexCall> calls;
};

struct ComputeSetPlan {
  unsigned computeSet = 0;
  std::string name;
  /// The copies the exchange-in makes on the IPU: what costs, profiles and hazard checks see,
  /// and (less hostSkips) what the host does.
  CopyList exchangeIn;
  std::vector<TileWork> tiles;
  CopyList exchangeOut;
  std::uint64_t numVertices = 0;
  /// True when no vertex of the set writes memory that the exchange-in reads, so each tile may
  /// fetch its own inputs right before its compute (while they are hot in cache) with the same
  /// result as a separate exchange phase.
  bool exchangeInPerTile = false;
  /// With exchangeInPerTile: per op of exchangeIn, whether the host skips it because it copies
  /// an input that the vertices read where it lies (the same bytes, without the copy). One bit
  /// per op instead of a second copy list; empty when the host makes every copy.
  std::vector<bool> hostSkips;
  /// The copies the host still makes of skipped ops that merged such an input with other
  /// copies (usually few): group g goes to the tile of exchangeIn's group g. The host's
  /// exchange-in is exchangeIn less hostSkips, plus these.
  CopyList hostPartialCopies;
  /// With exchangeInPerTile: per TileWork, its group in exchangeIn (or kNoGroup).
  std::vector<std::size_t> tileExchangeInGroup;
  static constexpr std::size_t kNoGroup = ~std::size_t(0);
  /// Whether the host makes exchangeIn.ops[i].
  bool hostCopies(std::size_t i) const { return hostSkips.empty() || !hostSkips[i]; }
};

struct TensorCopyPlan {
  std::string name;
  CopyList copies;
  /// Source and destination overlap: go through a host staging buffer of `copies.totalBytes`.
  bool staged = false;
  std::vector<TensorPiece> stagedSrc;
  std::vector<TensorPiece> stagedDst;
};

struct StreamCopyPlan {
  unsigned stream = 0;
  TensorImage tensor;
};

/// A Copy between a remote buffer and a tensor (RemoteIn: buffer → tensor, RemoteOut: tensor →
/// buffer). The tensor holds whole rows: with an offset, its row i is buffer row offset[i]
/// (offset: UNSIGNED_INT, one element per row); without one, row i is buffer row i.
struct RemoteCopyPlan {
  std::string name;
  unsigned buffer = 0; ///< Into CompiledGraph::remoteBuffers.
  TensorImage tensor;
  bool hasOffset = false;
  TensorImage offset;
};

struct SwitchPlan {
  TensorImage control;
  std::vector<std::pair<std::int64_t, std::size_t>> targets; ///< value → step index
  std::size_t defaultTarget = 0;
};

enum class StepKind : std::uint8_t {
  Execute,       ///< index: computeSets; count: see Step::count
  Copy,          ///< index: copies
  StreamIn,      ///< index: streamCopies
  StreamOut,     ///< index: streamCopies
  Jump,          ///< target
  JumpIfZero,    ///< index: scalars; target
  JumpIfNonZero, ///< index: scalars; target
  LoopInit,      ///< index: loop slot; count; target = after the loop
  LoopNext,      ///< index: loop slot; target = loop body start
  Switch,        ///< index: switches
  Call,          ///< target = function start
  Return,
  Print,        ///< index: prints
  Abort,        ///< index: messages
  AbortIf,      ///< index: scalars, count: messages index
  CrossReplica, ///< index: collectives (the replicas meet here)
  /// index: cycleTensors. count: kWriteClock, kStartCount or kWriteCount (CycleCounterMode).
  CycleCounter,
  /// count: bits to clear | bits to set << 8 (core/FloatModeBits.hpp).
  SetFloatMode,
  SaveFloatMode, ///< index: floatModeTensors (every element gets the mode)
  LoadFloatMode, ///< index: floatModeTensors (the mode becomes its first element)
  RemoteIn,      ///< index: remoteCopies (remote buffer → tensor)
  RemoteOut,     ///< index: remoteCopies (tensor → remote buffer)
  End,
};

/// What a CycleCounter step does with the replica's cycle clock (the cost model's cycles of
/// every step it has run since load).
enum CycleCounterMode : std::uint64_t {
  kWriteClock = 0, ///< cycleStamp: write the clock to the tensor (low word, high word).
  kStartCount = 1, ///< cycleCount begins: remember the clock (in slot `index`).
  kWriteCount = 2, ///< cycleCount ends: write the clock minus the remembered value.
};

struct Step {
  StepKind kind;
  unsigned index = 0;
  std::size_t target = 0;
  /// LoopInit: iterations. Execute: how many consecutive Execute steps from this one (itself
  /// included) may run tile by tile — each tile doing its part of every one of them in turn on
  /// one host thread — with the same result as one superstep after another (0 or 1: alone).
  std::uint64_t count = 0;
};

/// A collective across replicas: every replica's `src` combined into every replica's `dst`.
struct CollectivePlan {
  std::string name;
  core::CrossReplicaOp op;
  TensorImage src, dst;
};

struct PrintPlan {
  std::string title;
  TensorImage tensor;
};

/// Bytes in use on one tile, by kind, and the objects that use them (for memory reports).
struct TileMemoryUse {
  std::uint64_t variables = 0;
  std::uint64_t vertexState = 0;
  std::uint64_t exchange = 0; ///< Largest exchange area of any compute set (they share it).
  std::uint64_t padding = 0;  ///< Gaps left by aligning allocations (kTileAlign).
  /// Bytes from the start of the tile to its last allocation: what the memory check compares.
  std::uint64_t total() const { return variables + vertexState + exchange + padding; }
};

struct CompiledGraph {
  unsigned numTiles = 0;
  unsigned numWorkerContexts = 6;
  std::uint64_t bytesPerTile = 0;
  std::vector<TileMemoryUse> memory;    ///< Per tile.
  std::vector<std::uint64_t> tileBytes; ///< Arena size per tile (aligned).

  /// Initial contents: constants, setInitialValue and plain vector members, as (address,
  /// `bytes` bytes of initialBytes from `pool`).
  struct InitialData {
    TileAddress at;
    std::uint64_t pool = 0;
    std::uint64_t bytes = 0;
  };
  std::vector<InitialData> initialData;
  std::vector<unsigned char> initialBytes;

  /// Vertex objects, their types, pointer patches and plain values (struct of arrays: an
  /// object's patches are the ranges [pointerBegin, +pointerCount) and [valueBegin, +valueCount)
  /// of the flat arrays, in object order).
  std::vector<VertexObject> vertexObjects;
  std::vector<std::shared_ptr<const tessera::VertexTypeInfo>> vertexTypes;
  std::vector<PointerPatch> pointerPatches;
  std::vector<ValuePatch> valuePatches;
  std::vector<unsigned char> valueBytes;
  /// Graph::setPerfEstimate of the objects that have one: (object index, cycles), by index.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> perfEstimates;

  const tessera::VertexTypeInfo &typeOf(const VertexObject &obj) const {
    return *vertexTypes[obj.type];
  }
  std::span<const PointerPatch> pointers(const VertexObject &obj) const {
    return {pointerPatches.data() + obj.pointerBegin, obj.pointerCount};
  }
  std::span<const ValuePatch> values(const VertexObject &obj) const {
    return {valuePatches.data() + obj.valueBegin, obj.valueCount};
  }
  /// The perf estimate Graph::setPerfEstimate gave vertex object `object`, if any.
  std::optional<std::uint64_t> perfEstimate(std::uint32_t object) const {
    const auto it = std::lower_bound(perfEstimates.begin(), perfEstimates.end(),
                                     std::pair<std::uint32_t, std::uint64_t>(object, 0));
    if (it == perfEstimates.end() || it->first != object)
      return std::nullopt;
    return it->second;
  }
  /// Per vertex object, the cost model's estimate from its fields' sizes (estimateVertexCycles).
  std::vector<std::uint64_t> defaultVertexCycles;
  std::vector<ComputeSetPlan> computeSets;
  std::vector<TensorCopyPlan> copies;
  std::vector<StreamCopyPlan> streamCopies;
  std::vector<TensorImage> scalars;
  std::vector<SwitchPlan> switches;
  std::vector<PrintPlan> prints;
  std::vector<CollectivePlan> collectives;
  std::vector<std::string> messages;
  unsigned numLoopSlots = 0;
  /// cycleCount / cycleStamp results: 2 × UNSIGNED_INT tensors, 8 bytes.
  std::vector<TensorImage> cycleTensors;
  /// Floating-point modes saved or restored (UNSIGNED_INT tensors, at least one element).
  std::vector<TensorImage> floatModeTensors;

  std::vector<Step> steps;
  std::vector<std::size_t> programStart; ///< Entry step of each program passed to the Engine.

  struct StreamInfo {
    std::string handle;
    Type type;
    std::uint64_t bytesPerTransfer = 0;
    bool toDevice = true;
  };
  std::vector<StreamInfo> streams;
  /// Remote buffers (Graph::addRemoteBuffer); the engine holds each one per replica, in host
  /// memory, `repeats` rows of `bytesPerRow` bytes, zero at load.
  struct RemoteBufferInfo {
    std::string handle;
    Type type;
    std::uint64_t numElements = 0;
    std::uint64_t repeats = 1;
    std::uint64_t bytesPerRow = 0; ///< numElements × the type's size.
  };
  std::vector<RemoteBufferInfo> remoteBuffers;
  std::vector<RemoteCopyPlan> remoteCopies;
  std::vector<std::pair<std::string, TensorImage>> hostWrites;
  std::vector<std::pair<std::string, TensorImage>> hostReads;

  /// Replicas the engine runs (each on numTiles tiles of its own), and the tensors that hold
  /// each replica's index (Graph::addReplicationIndexConstant).
  unsigned replicationFactor = 1;
  std::vector<TensorImage> replicationIndex;
};

} // namespace poplar::compiler
