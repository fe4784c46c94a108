// Executable::Impl <-> tessera.executable.pb.Executable, and the checks made when reading one.
#include <algorithm>
#include <istream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <tuple>

#include <poplar/Version.hpp>
#include <poplar/exceptions.hpp>

#include "core/FloatModeBits.hpp"
#include "executable.pb.h"
#include "executable/ExecutableData.hpp"
#include "executable/VertexTypeResolver.hpp"
#include "profile/ProfileBytes.hpp"

namespace poplar::executable {

namespace pb = tessera::executable::pb;
using namespace compiler;

namespace {

/// 1: 64-bit copy fields, and the host's exchange-in list beside the IPU's.
/// 2: copies as 32-bit fields with the destination tile per group, and one exchange-in list per
/// compute set (the host's is it less the ops marked in host_skips, plus host_partial_copies).
/// 3: as 2, with destination offsets as steps within a group and rows only for multi-row ops.
/// 4: vertex objects as a struct of arrays: per-object patch counts, 32-bit object-relative
/// pointer slots, target tiles relative to the object's, sparse perf estimates.
constexpr std::uint32_t kFormatVersion = 4;
constexpr const char *kKind = "tessera.executable";

// --- writing ---------------------------------------------------------------------------------

void put(pb::Addresses &m, const TileAddress &a) {
  m.add_tile(a.tile);
  m.add_offset(a.offset);
}

void put(pb::CopyList &m, const CopyList &l) {
  const auto n = int(l.ops.size());
  for (auto *field : {m.mutable_src_tile(), m.mutable_src_offset(), m.mutable_bytes()})
    field->Reserve(n);
  m.mutable_dst_offset_step()->Reserve(n);
  std::size_t lastRowOp = 0;
  for (std::size_t g = 0; g < l.numGroups(); ++g) {
    const std::size_t begin = l.groupBegin[g], end = l.groupBegin[g + 1];
    const unsigned tile = begin < end ? l.ops[begin].dst.tile : 0;
    std::int64_t lastDst = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const CopyOp &op = l.ops[i];
      if (op.dst.tile != tile)
        throw poplar_error("serializing an executable: a copy group has ops to tiles " +
                           std::to_string(tile) + " and " + std::to_string(op.dst.tile));
      m.add_src_tile(op.src.tile);
      m.add_src_offset(op.src.offset);
      m.add_dst_offset_step(std::int64_t(op.dst.offset) - lastDst);
      lastDst = std::int64_t(op.dst.offset);
      m.add_bytes(op.bytes);
      if (op.repeat != 1 || op.srcStride != 0 || op.dstStride != 0) {
        m.add_row_op_step(std::uint32_t(i - lastRowOp));
        lastRowOp = i;
        m.add_repeat(op.repeat);
        m.add_src_stride(op.srcStride);
        m.add_dst_stride(op.dstStride);
      }
    }
    m.add_group_tile(tile);
  }
  for (auto g : l.groupBegin)
    m.add_group_begin(g);
  m.set_total_bytes(l.totalBytes);
}

/// One bit per element, least significant bit first.
std::string packBits(const std::vector<bool> &bits) {
  std::string out((bits.size() + 7) / 8, '\0');
  for (std::size_t i = 0; i < bits.size(); ++i)
    if (bits[i])
      out[i / 8] = char(out[i / 8] | (1 << (i % 8)));
  return out;
}

void put(pb::TensorPieces &m, const std::vector<TensorPiece> &pieces) {
  for (const auto &p : pieces) {
    put(*m.mutable_at(), p.at);
    m.add_host_offset(p.hostOffset);
    m.add_bytes(p.bytes);
  }
}

void put(pb::TensorImage &m, const TensorImage &t) {
  m.set_type(static_cast<std::uint32_t>(t.type.id()));
  for (auto d : t.shape)
    m.add_shape(d);
  put(*m.mutable_pieces(), t.pieces);
  m.set_bytes(t.bytes);
}

void putVertexObjects(pb::Executable &m, const CompiledGraph &plan) {
  std::set<std::string> carriedOrigins; // a codelet object travels once, with its first type
  for (const auto &type : plan.vertexTypes) {
    auto &t = *m.add_vertex_types();
    t.set_name(type->name);
    t.set_origin(type->origin);
    t.set_fingerprint(fingerprint(*type));
    if (carriedOrigins.insert(type->origin).second)
      t.set_object(codeletObjectBytes(*type));
  }
  auto &objects = *m.mutable_vertex_objects();
  const int n = int(plan.vertexObjects.size());
  const int numPointers = int(plan.pointerPatches.size());
  const int numValues = int(plan.valuePatches.size());
  for (auto *field : {objects.mutable_vertex_id(), objects.mutable_compute_set_plan(),
                      objects.mutable_tile(), objects.mutable_offset(), objects.mutable_type(),
                      objects.mutable_pointer_count(), objects.mutable_value_count()})
    field->Reserve(n);
  for (auto *field : {objects.mutable_pointer_slot(), objects.mutable_pointer_flags(),
                      objects.mutable_pointer_target_offset(), objects.mutable_pointer_size()})
    field->Reserve(numPointers);
  objects.mutable_pointer_target_tile()->Reserve(numPointers);
  objects.mutable_value_offset()->Reserve(numValues);
  objects.mutable_value_length()->Reserve(numValues);
  std::string values;
  for (const auto &obj : plan.vertexObjects) {
    objects.add_vertex_id(obj.vertexId);
    objects.add_compute_set_plan(obj.computeSetPlan);
    objects.add_tile(obj.tile);
    objects.add_offset(obj.offset);
    objects.add_type(obj.type);
    objects.add_pointer_count(obj.pointerCount);
    objects.add_value_count(obj.valueCount);
    for (const auto &p : plan.pointers(obj)) {
      objects.add_pointer_slot(p.slot);
      objects.add_pointer_flags((p.hasSize() ? 1u : 0u) | (p.null() ? 2u : 0u));
      objects.add_pointer_target_tile(
          p.null() ? 0 : std::int32_t(std::int64_t(p.targetTile) - std::int64_t(obj.tile)));
      objects.add_pointer_target_offset(p.null() ? 0 : p.targetOffset);
      objects.add_pointer_size(p.hasSize() ? p.size : 0);
    }
    for (const auto &v : plan.values(obj)) {
      objects.add_value_offset(v.offset);
      objects.add_value_length(v.length);
      values.append(reinterpret_cast<const char *>(plan.valueBytes.data() + v.pool), v.length);
    }
  }
  objects.set_value_bytes(std::move(values));
  for (const auto &[object, cycles] : plan.perfEstimates) {
    objects.add_perf_estimate_object(object);
    objects.add_perf_estimate(cycles);
  }
}

void putComputeSet(pb::ComputeSetPlan &m, const ComputeSetPlan &cs) {
  m.set_compute_set(cs.computeSet);
  m.set_name(cs.name);
  put(*m.mutable_exchange_in(), cs.exchangeIn);
  for (const auto &w : cs.tiles) {
    m.add_work_tile(w.tile);
    m.add_work_call_begin(std::uint64_t(m.call_object_size()));
    for (const auto &c : w.calls) {
      m.add_call_object(c.objectIndex);
      m.add_call_workers(c.workers);
    }
  }
  m.add_work_call_begin(std::uint64_t(m.call_object_size()));
  put(*m.mutable_exchange_out(), cs.exchangeOut);
  m.set_num_vertices(cs.numVertices);
  m.set_exchange_in_per_tile(cs.exchangeInPerTile);
  for (auto g : cs.tileExchangeInGroup)
    m.add_tile_exchange_in_group(g);
  m.set_host_skips(packBits(cs.hostSkips));
  if (!cs.hostPartialCopies.empty())
    put(*m.mutable_host_partial_copies(), cs.hostPartialCopies);
}

pb::Executable toProto(const Executable::Impl &exe) {
  const CompiledGraph &plan = exe.plan;
  pb::Executable m;
  m.set_format_version(kFormatVersion);
  m.set_kind(kKind);
  m.set_sdk_version(versionString());
  m.set_sdk_build_id(sdkBuildId());
  m.set_target(describeTarget(exe.description.target));
  m.set_num_tiles(plan.numTiles);
  m.set_num_worker_contexts(plan.numWorkerContexts);
  m.set_bytes_per_tile(plan.bytesPerTile);
  for (const auto &u : plan.memory) {
    m.add_memory_variables(u.variables);
    m.add_memory_vertex_state(u.vertexState);
    m.add_memory_exchange(u.exchange);
    m.add_memory_padding(u.padding);
  }
  for (auto b : plan.tileBytes)
    m.add_tile_bytes(b);
  std::string initial;
  for (const auto &d : plan.initialData) {
    put(*m.mutable_initial_at(), d.at);
    m.add_initial_length(d.bytes);
    initial.append(reinterpret_cast<const char *>(plan.initialBytes.data() + d.pool), d.bytes);
  }
  m.set_initial_bytes(std::move(initial));
  putVertexObjects(m, plan);
  for (const auto &cs : plan.computeSets)
    putComputeSet(*m.add_compute_sets(), cs);
  for (const auto &c : plan.copies) {
    auto &cm = *m.add_copies();
    cm.set_name(c.name);
    put(*cm.mutable_copies(), c.copies);
    cm.set_staged(c.staged);
    put(*cm.mutable_staged_src(), c.stagedSrc);
    put(*cm.mutable_staged_dst(), c.stagedDst);
  }
  for (const auto &s : plan.streamCopies) {
    auto &sm = *m.add_stream_copies();
    sm.set_stream(s.stream);
    put(*sm.mutable_tensor(), s.tensor);
  }
  for (const auto &s : plan.scalars)
    put(*m.add_scalars(), s);
  for (const auto &s : plan.switches) {
    auto &sm = *m.add_switches();
    put(*sm.mutable_control(), s.control);
    for (const auto &[value, step] : s.targets) {
      sm.add_case_value(value);
      sm.add_case_step(step);
    }
    sm.set_default_step(s.defaultTarget);
  }
  for (const auto &p : plan.prints) {
    auto &pm = *m.add_prints();
    pm.set_title(p.title);
    put(*pm.mutable_tensor(), p.tensor);
  }
  for (const auto &msg : plan.messages)
    m.add_messages(msg);
  for (const auto &c : plan.collectives) {
    auto &cm = *m.add_collectives();
    cm.set_name(c.name);
    cm.set_kind(static_cast<std::uint32_t>(c.op.kind));
    cm.set_operator_(static_cast<std::uint32_t>(c.op.op));
    cm.set_group_size(c.op.groups.size);
    cm.set_group_stride(c.op.groups.stride);
    put(*cm.mutable_src(), c.src);
    put(*cm.mutable_dst(), c.dst);
  }
  m.set_replication_factor(plan.replicationFactor);
  for (const auto &t : plan.replicationIndex)
    put(*m.add_replication_index(), t);
  m.set_num_loop_slots(plan.numLoopSlots);
  for (const auto &t : plan.cycleTensors)
    put(*m.add_cycle_tensors(), t);
  for (const auto &t : plan.floatModeTensors)
    put(*m.add_float_mode_tensors(), t);
  for (const auto &s : plan.steps) {
    m.add_step_kind(static_cast<std::uint32_t>(s.kind));
    m.add_step_index(s.index);
    m.add_step_target(s.target);
    m.add_step_count(s.count);
  }
  for (auto p : plan.programStart)
    m.add_program_start(p);
  for (const auto &s : plan.streams) {
    auto &sm = *m.add_streams();
    sm.set_handle(s.handle);
    sm.set_type(static_cast<std::uint32_t>(s.type.id()));
    sm.set_bytes_per_transfer(s.bytesPerTransfer);
    sm.set_to_device(s.toDevice);
  }
  for (const auto &b : plan.remoteBuffers) {
    auto &bm = *m.add_remote_buffers();
    bm.set_handle(b.handle);
    bm.set_type(static_cast<std::uint32_t>(b.type.id()));
    bm.set_num_elements(b.numElements);
    bm.set_repeats(b.repeats);
    bm.set_bytes_per_row(b.bytesPerRow);
  }
  for (const auto &c : plan.remoteCopies) {
    auto &cm = *m.add_remote_copies();
    cm.set_name(c.name);
    cm.set_buffer(c.buffer);
    put(*cm.mutable_tensor(), c.tensor);
    if (c.hasOffset)
      put(*cm.mutable_offset(), c.offset);
  }
  for (const auto &[handle, image] : plan.hostWrites) {
    auto &hm = *m.add_host_writes();
    hm.set_handle(handle);
    put(*hm.mutable_tensor(), image);
  }
  for (const auto &[handle, image] : plan.hostReads) {
    auto &hm = *m.add_host_reads();
    hm.set_handle(handle);
    put(*hm.mutable_tensor(), image);
  }
  m.set_graph_profile(profile::serializeGraphProfile(exe.description));
  for (auto c : plan.defaultVertexCycles)
    m.add_default_vertex_cycles(c);
  return m;
}

// --- reading ---------------------------------------------------------------------------------
// Every index and count read back is checked, so a damaged file fails here with a message
// instead of sending the engine outside its tile memory.

[[noreturn]] void corrupt(const std::string &what) {
  throw parse_error("deserializing an executable: the stream is corrupt (" + what + ")");
}

void expect(bool ok, const char *what) {
  if (!ok)
    corrupt(what);
}

Type typeOf(std::uint32_t id) {
  expect(id < kNumTypeIds, "unknown element type");
  const Type type(static_cast<TypeId>(id));
  expect(type.isDeviceType(), "an element type no device holds");
  return type;
}

class Reader {
public:
  explicit Reader(const pb::Executable &m) : m_(m) {}

  TileAddress address(const pb::Addresses &a, int i) const {
    const TileAddress at{a.tile(i), a.offset(i)};
    expect(at.tile < m_.num_tiles(), "tile out of range");
    expect(at.offset <= m_.tile_bytes(int(at.tile)), "address beyond its tile");
    return at;
  }
  void sized(const pb::Addresses &a, int n, const char *what) const {
    expect(a.tile_size() == n && a.offset_size() == n, what);
  }

  CopyList copies(const pb::CopyList &m) const {
    CopyList l;
    const int n = m.bytes_size();
    const int rowOps = m.row_op_step_size();
    expect(m.src_tile_size() == n && m.src_offset_size() == n && m.dst_offset_step_size() == n,
           "copy rows");
    expect(m.repeat_size() == rowOps && m.src_stride_size() == rowOps &&
               m.dst_stride_size() == rowOps && rowOps <= n,
           "copy rows");
    l.groupBegin.assign(m.group_begin().begin(), m.group_begin().end());
    expect(m.group_tile_size() == int(l.numGroups()), "copy groups");
    expect(l.groupBegin.empty() ? n == 0 : l.groupBegin.front() == 0, "copy groups");
    for (std::size_t g = 0; g < l.groupBegin.size(); ++g)
      expect(l.groupBegin[g] <= std::size_t(n) &&
                 (g == 0 || l.groupBegin[g - 1] <= l.groupBegin[g]),
             "copy groups");
    expect(l.groupBegin.empty() || l.groupBegin.back() == std::size_t(n), "copy groups");
    l.ops.resize(static_cast<std::size_t>(n));
    // The ops of more than one row, with their repeat and strides; the others keep CopyOp's.
    std::uint64_t rowOp = 0;
    for (int r = 0; r < rowOps; ++r) {
      rowOp += m.row_op_step(r);
      expect(rowOp < std::uint64_t(n) && (r == 0 || m.row_op_step(r) > 0), "copy rows");
      auto &op = l.ops[rowOp];
      op.repeat = m.repeat(r);
      op.srcStride = m.src_stride(r);
      op.dstStride = m.dst_stride(r);
    }
    std::uint64_t total = 0;
    for (std::size_t g = 0; g < l.numGroups(); ++g) {
      const unsigned dstTile = m.group_tile(int(g));
      expect(dstTile < m_.num_tiles(), "tile out of range");
      const std::uint64_t dstTileBytes = m_.tile_bytes(int(dstTile));
      std::int64_t dst = 0;
      for (std::size_t i = l.groupBegin[g]; i < l.groupBegin[g + 1]; ++i) {
        auto &op = l.ops[i];
        const int k = int(i);
        const std::int64_t step = m.dst_offset_step(k);
        expect(step >= -dst && step <= std::int64_t(kMaxCopyTileBytes) - 1 - dst,
               "copy destination beyond its tile");
        dst += step;
        op.src = {m.src_tile(k), m.src_offset(k)};
        op.dst = {dstTile, std::uint32_t(dst)};
        op.bytes = m.bytes(k);
        expect(op.src.tile < m_.num_tiles(), "tile out of range");
        expect(op.repeat >= 1, "copy repeat");
        // Every row inside its tile: the first and the last bound the rest (strides are linear).
        const auto [lo, hi] = op.sourceSpan();
        expect(lo <= hi && hi <= m_.tile_bytes(int(op.src.tile)), "copy source beyond its tile");
        const std::int64_t lastDst =
            std::int64_t(op.dst.offset) + std::int64_t(op.repeat - 1) * op.dstStride;
        expect(lastDst >= 0 && std::uint64_t(lastDst) + op.bytes <= dstTileBytes &&
                   std::uint64_t(op.dst.offset) + op.bytes <= dstTileBytes,
               "copy destination beyond its tile");
        total += op.totalBytes();
      }
    }
    l.totalBytes = m.total_bytes();
    expect(l.totalBytes == total, "copy bytes");
    return l;
  }

  std::vector<TensorPiece> pieces(const pb::TensorPieces &m) const {
    const int n = m.bytes_size();
    sized(m.at(), n, "tensor pieces");
    expect(m.host_offset_size() == n, "tensor pieces");
    std::vector<TensorPiece> out(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      out[std::size_t(i)] = {address(m.at(), i), m.host_offset(i), m.bytes(i)};
      const auto &p = out[std::size_t(i)];
      expect(p.at.offset + p.bytes <= m_.tile_bytes(int(p.at.tile)), "tensor piece beyond tile");
    }
    return out;
  }

  TensorImage image(const pb::TensorImage &m) const {
    TensorImage t;
    t.type = typeOf(m.type());
    t.shape.assign(m.shape().begin(), m.shape().end());
    t.pieces = pieces(m.pieces());
    t.bytes = m.bytes();
    for (const auto &p : t.pieces)
      expect(p.hostOffset + p.bytes <= t.bytes, "tensor piece beyond its tensor");
    return t;
  }

  std::vector<std::shared_ptr<const tessera::VertexTypeInfo>> vertexTypes() const {
    std::map<std::string, const std::string *> objectOfOrigin;
    for (const auto &t : m_.vertex_types())
      if (!t.object().empty())
        objectOfOrigin[t.origin()] = &t.object();
    std::vector<std::shared_ptr<const tessera::VertexTypeInfo>> types;
    for (const auto &t : m_.vertex_types()) {
      const auto it = objectOfOrigin.find(t.origin());
      types.push_back(resolveVertexType(t.name(), t.origin(), t.fingerprint(),
                                        it == objectOfOrigin.end() ? std::string() : *it->second));
    }
    return types;
  }

  /// Bytes of tile memory the load writes vertex state to (objects and VectorList tables), as
  /// (tile, begin, end), sorted.
  using Regions = std::vector<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>>;

  /// Object `obj`'s pointer patches against its type's fields: a slot inside the object must be
  /// a pointer field's (a scalar's without a size, the others' with one); a slot after it, an
  /// entry of one of the object's VectorList tables. What each pointer reaches (its elements at
  /// the field's element size, a table's entries at two words each) lies within the target's
  /// tile. Without `state`, adds the object and its tables to `regions`; with it (every object's
  /// and table's bytes, sorted), checks that no field but a list's reaches into vertex state, so
  /// no vertex reads or writes beyond tile memory or another vertex's pointers.
  void checkPointersAgainstFields(const CompiledGraph &plan, const VertexObject &obj,
                                  Regions *regions, const Regions *state) const {
    using tessera::FieldKind;
    constexpr std::uint64_t kSpanBytes = 2 * sizeof(void *);
    const auto &type = plan.typeOf(obj);
    const auto fits = [&](const PointerPatch &p, std::uint64_t bytes) {
      expect(p.null() || bytes <= m_.tile_bytes(int(p.targetTile)) - p.targetOffset,
             "field size beyond its tile");
      if (!state || p.null() || bytes == 0)
        return;
      // The first region ending after the target's start must begin at or after its end.
      const std::uint64_t begin = p.targetOffset, end = begin + bytes;
      const auto next = std::upper_bound(state->begin(), state->end(),
                                         std::make_tuple(p.targetTile, begin, ~std::uint64_t(0)));
      if (next != state->begin()) {
        const auto &[tile, b, e] = *std::prev(next);
        expect(tile != p.targetTile || e <= begin, "field pointing into vertex state");
      }
      if (next != state->end()) {
        const auto &[tile, b, e] = *next;
        expect(tile != p.targetTile || b >= end, "field pointing into vertex state");
      }
    };
    struct Table {
      std::uint64_t begin, entries, elementBytes;
    };
    std::vector<Table> tables;
    if (regions)
      regions->emplace_back(obj.tile, obj.offset, std::uint64_t(obj.offset) + type.size);
    for (const auto &p : plan.pointers(obj)) {
      if (p.slot >= type.size)
        continue; // a table entry: below, once the tables are known
      const auto field = std::find_if(type.fields.begin(), type.fields.end(), [&](const auto &f) {
        return f.offset == p.slot && f.kind != FieldKind::Plain;
      });
      expect(field != type.fields.end(), "pointer slot that is no field of its vertex");
      const std::uint64_t elementBytes = std::max<std::uint64_t>(field->elementType.size(), 1);
      if (field->kind == FieldKind::Scalar) {
        expect(!p.hasSize(), "scalar field with a size");
        fits(p, elementBytes);
        continue;
      }
      expect(p.hasSize(), "vector field without a size");
      if (field->kind != FieldKind::VectorList) {
        fits(p, p.size * elementBytes);
        continue;
      }
      expect(p.null() || (p.targetTile == obj.tile &&
                          p.size <= (m_.tile_bytes(int(obj.tile)) - p.targetOffset) / kSpanBytes),
             "vector list table beyond its tile");
      if (p.null())
        continue;
      tables.push_back({p.targetOffset, p.size, elementBytes});
      if (regions)
        regions->emplace_back(obj.tile, p.targetOffset, p.targetOffset + p.size * kSpanBytes);
    }
    for (const auto &p : plan.pointers(obj)) {
      if (p.slot < type.size)
        continue;
      const std::uint64_t at = std::uint64_t(obj.offset) + p.slot;
      const auto table = std::find_if(tables.begin(), tables.end(), [&](const Table &t) {
        return at >= t.begin && (at - t.begin) % kSpanBytes == 0 &&
               (at - t.begin) / kSpanBytes < t.entries;
      });
      expect(table != tables.end(), "pointer slot that is no entry of its vertex's lists");
      expect(p.hasSize(), "vector list entry without a size");
      fits(p, p.size * table->elementBytes);
    }
  }

  /// The vertex objects, their types and patches: every object within its tile, every patch's
  /// slot within the object (or wholly after it, in its tables) and within the tile, every
  /// pointer's target and the elements after it within the target's tile, every value within
  /// its object.
  void vertexObjects(CompiledGraph &plan) const {
    plan.vertexTypes = vertexTypes();
    const auto &o = m_.vertex_objects();
    const int n = o.vertex_id_size();
    expect(o.compute_set_plan_size() == n && o.tile_size() == n && o.offset_size() == n &&
               o.type_size() == n && o.pointer_count_size() == n && o.value_count_size() == n,
           "vertex objects");
    const int numPointers = o.pointer_slot_size();
    expect(o.pointer_flags_size() == numPointers && o.pointer_target_tile_size() == numPointers &&
               o.pointer_target_offset_size() == numPointers &&
               o.pointer_size_size() == numPointers,
           "pointer patches");
    const int numValues = o.value_offset_size();
    expect(o.value_length_size() == numValues, "value patches");
    plan.vertexObjects.resize(std::size_t(n));
    plan.pointerPatches.resize(std::size_t(numPointers));
    plan.valuePatches.resize(std::size_t(numValues));
    plan.valueBytes.assign(o.value_bytes().begin(), o.value_bytes().end());
    std::uint64_t pointerAt = 0, valueAt = 0, valuePool = 0;
    Regions regions;
    regions.reserve(std::size_t(n));
    for (int i = 0; i < n; ++i) {
      VertexObject &obj = plan.vertexObjects[std::size_t(i)];
      obj.vertexId = o.vertex_id(i);
      obj.computeSetPlan = o.compute_set_plan(i);
      expect(obj.computeSetPlan < std::uint32_t(m_.compute_sets_size()), "vertex compute set");
      obj.tile = o.tile(i);
      obj.offset = o.offset(i);
      expect(obj.tile < m_.num_tiles(), "vertex object's tile");
      const std::uint64_t tileBytes = m_.tile_bytes(int(obj.tile));
      expect(o.type(i) < plan.vertexTypes.size(), "vertex type index");
      obj.type = o.type(i);
      const std::uint64_t objectBytes = plan.vertexTypes[obj.type]->size;
      expect(obj.offset + objectBytes <= tileBytes, "vertex object beyond its tile");
      obj.pointerBegin = std::uint32_t(pointerAt);
      obj.pointerCount = o.pointer_count(i);
      expect(pointerAt + obj.pointerCount <= std::uint64_t(numPointers), "pointer patch range");
      for (auto k = int(pointerAt); k < int(pointerAt + obj.pointerCount); ++k) {
        PointerPatch &p = plan.pointerPatches[std::size_t(k)];
        const std::uint32_t flags = o.pointer_flags(k);
        expect(flags <= 3, "pointer patch flags");
        const bool hasSize = (flags & 1u) != 0, null = (flags & 2u) != 0;
        p.slot = o.pointer_slot(k);
        const std::uint64_t slotBytes = sizeof(void *) + (hasSize ? sizeof(std::size_t) : 0);
        expect(obj.offset + std::uint64_t(p.slot) + slotBytes <= tileBytes,
               "pointer slot beyond its tile");
        expect(p.slot >= objectBytes || p.slot + slotBytes <= objectBytes,
               "pointer slot across its object's end");
        if (null) {
          expect(o.pointer_target_tile(k) == 0 && o.pointer_target_offset(k) == 0,
                 "null pointer patch");
          p.targetTile = PointerPatch::kNullTarget;
          p.targetOffset = 0;
        } else {
          const std::int64_t target = std::int64_t(obj.tile) + o.pointer_target_tile(k);
          expect(target >= 0 && target < std::int64_t(m_.num_tiles()), "pointer target's tile");
          p.targetTile = std::uint32_t(target);
          p.targetOffset = o.pointer_target_offset(k);
          expect(p.targetOffset <= m_.tile_bytes(int(p.targetTile)),
                 "pointer target beyond its tile");
        }
        p.size = hasSize ? o.pointer_size(k) : PointerPatch::kNoSize;
        expect(hasSize || o.pointer_size(k) == 0, "pointer patch size");
        expect(!hasSize || !null || p.size == 0, "null pointer patch");
      }
      pointerAt += obj.pointerCount;
      checkPointersAgainstFields(plan, obj, &regions, nullptr);
      obj.valueBegin = std::uint32_t(valueAt);
      obj.valueCount = o.value_count(i);
      expect(valueAt + obj.valueCount <= std::uint64_t(numValues), "value patch range");
      for (auto k = int(valueAt); k < int(valueAt + obj.valueCount); ++k) {
        ValuePatch &v = plan.valuePatches[std::size_t(k)];
        v.pool = valuePool;
        v.offset = o.value_offset(k);
        v.length = o.value_length(k);
        expect(valuePool + v.length <= plan.valueBytes.size(), "value bytes");
        expect(std::uint64_t(v.offset) + v.length <= objectBytes, "value beyond its object");
        valuePool += v.length;
      }
      valueAt += obj.valueCount;
    }
    expect(pointerAt == std::uint64_t(numPointers), "pointer patch range");
    // No two objects or tables share a byte, and no field but a list's points into them.
    std::sort(regions.begin(), regions.end());
    for (std::size_t r = 1; r < regions.size(); ++r)
      expect(std::get<0>(regions[r - 1]) != std::get<0>(regions[r]) ||
                 std::get<2>(regions[r - 1]) <= std::get<1>(regions[r]),
             "vertex objects overlapping");
    for (const auto &obj : plan.vertexObjects)
      checkPointersAgainstFields(plan, obj, nullptr, &regions);
    expect(valueAt == std::uint64_t(numValues) && valuePool == plan.valueBytes.size(),
           "value patch range");
    expect(o.perf_estimate_object_size() == o.perf_estimate_size(), "perf estimates");
    for (int i = 0; i < o.perf_estimate_object_size(); ++i) {
      const std::uint32_t object = o.perf_estimate_object(i);
      expect(object < std::uint32_t(n) &&
                 (plan.perfEstimates.empty() || plan.perfEstimates.back().first < object),
             "perf estimates");
      plan.perfEstimates.emplace_back(object, o.perf_estimate(i));
    }
  }

  ComputeSetPlan computeSet(const pb::ComputeSetPlan &m, std::size_t numObjects) const {
    ComputeSetPlan cs;
    cs.computeSet = m.compute_set();
    cs.name = m.name();
    cs.exchangeIn = copies(m.exchange_in());
    const int numWork = m.work_tile_size();
    expect(m.work_call_begin_size() == numWork + 1 && m.call_workers_size() == m.call_object_size(),
           "compute set tiles");
    for (int w = 0; w < numWork; ++w) {
      TileWork work;
      work.tile = m.work_tile(w);
      expect(work.tile < m_.num_tiles(), "compute set tile");
      const auto b = m.work_call_begin(w), e = m.work_call_begin(w + 1);
      expect(b <= e && e <= std::uint64_t(m.call_object_size()), "compute set calls");
      for (auto c = int(b); c < int(e); ++c) {
        expect(m.call_object(c) < numObjects, "vertex call");
        work.calls.push_back({m.call_object(c), m.call_workers(c)});
      }
      cs.tiles.push_back(std::move(work));
    }
    cs.exchangeOut = copies(m.exchange_out());
    cs.numVertices = m.num_vertices();
    cs.exchangeInPerTile = m.exchange_in_per_tile();
    cs.tileExchangeInGroup.assign(m.tile_exchange_in_group().begin(),
                                  m.tile_exchange_in_group().end());
    if (cs.exchangeInPerTile) {
      expect(cs.tileExchangeInGroup.size() == cs.tiles.size(), "per-tile exchange");
      for (auto g : cs.tileExchangeInGroup)
        expect(g == cs.kNoGroup || g < cs.exchangeIn.numGroups(), "per-tile exchange");
    }
    const std::string &skips = m.host_skips();
    if (!skips.empty()) {
      const std::size_t n = cs.exchangeIn.ops.size();
      expect(cs.exchangeInPerTile && skips.size() == (n + 7) / 8, "host exchange marks");
      cs.hostSkips.resize(n);
      for (std::size_t i = 0; i < n; ++i)
        cs.hostSkips[i] = (static_cast<unsigned char>(skips[i / 8]) >> (i % 8)) & 1;
    }
    if (m.has_host_partial_copies()) {
      cs.hostPartialCopies = copies(m.host_partial_copies());
      const CopyList &in = cs.exchangeIn, &partial = cs.hostPartialCopies;
      expect(!cs.hostSkips.empty() && partial.numGroups() == in.numGroups(),
             "host exchange copies");
      for (std::size_t g = 0; g < partial.numGroups(); ++g)
        for (std::size_t i = partial.groupBegin[g]; i < partial.groupBegin[g + 1]; ++i)
          expect(in.groupBegin[g] < in.groupBegin[g + 1] &&
                     partial.ops[i].dst.tile == in.ops[in.groupBegin[g]].dst.tile,
                 "host exchange copies");
    }
    return cs;
  }

  Executable::Impl read() const {
    Executable::Impl exe;
    CompiledGraph &plan = exe.plan;
    plan.numTiles = m_.num_tiles();
    plan.numWorkerContexts = m_.num_worker_contexts();
    plan.bytesPerTile = m_.bytes_per_tile();
    const int tiles = int(plan.numTiles);
    expect(m_.tile_bytes_size() == tiles && m_.memory_variables_size() == tiles &&
               m_.memory_vertex_state_size() == tiles && m_.memory_exchange_size() == tiles &&
               m_.memory_padding_size() == tiles,
           "tile memory sizes");
    for (int t = 0; t < tiles; ++t) {
      plan.memory.push_back({m_.memory_variables(t), m_.memory_vertex_state(t),
                             m_.memory_exchange(t), m_.memory_padding(t)});
      plan.tileBytes.push_back(m_.tile_bytes(t));
      // The engine allocates the arenas from these sizes: they must agree with the memory
      // report (as the compiler made them) and stay far from overflowing when added up.
      const auto &use = plan.memory.back();
      constexpr std::uint64_t kLimit = std::uint64_t(1) << 40;
      expect(use.variables < kLimit && use.vertexState < kLimit && use.exchange < kLimit &&
                 use.padding < kLimit && plan.tileBytes.back() <= (use.total() + 63) / 64 * 64 &&
                 plan.tileBytes.back() % 64 == 0, // vertex objects rely on aligned arenas
             "tile memory sizes");
    }
    const int numInitial = m_.initial_length_size();
    sized(m_.initial_at(), numInitial, "initial data");
    plan.initialBytes.assign(m_.initial_bytes().begin(), m_.initial_bytes().end());
    std::uint64_t at = 0;
    for (int i = 0; i < numInitial; ++i) {
      const std::uint64_t length = m_.initial_length(i);
      const TileAddress where = address(m_.initial_at(), i);
      expect(length <= plan.initialBytes.size() - at &&
                 length <= m_.tile_bytes(int(where.tile)) - where.offset,
             "initial data");
      plan.initialData.push_back({where, at, length});
      at += length;
    }
    vertexObjects(plan);
    for (const auto &cs : m_.compute_sets())
      plan.computeSets.push_back(computeSet(cs, plan.vertexObjects.size()));
    for (const auto &c : m_.copies())
      plan.copies.push_back({c.name(), copies(c.copies()), c.staged(), pieces(c.staged_src()),
                             pieces(c.staged_dst())});
    for (const auto &s : m_.stream_copies()) {
      expect(s.stream() < std::uint32_t(m_.streams_size()), "stream index");
      plan.streamCopies.push_back({s.stream(), image(s.tensor())});
    }
    for (const auto &s : m_.scalars())
      plan.scalars.push_back(image(s));
    const std::size_t numSteps = std::size_t(m_.step_kind_size());
    for (const auto &s : m_.switches()) {
      SwitchPlan sp;
      sp.control = image(s.control());
      expect(s.case_value_size() == s.case_step_size(), "switch cases");
      for (int i = 0; i < s.case_value_size(); ++i) {
        expect(s.case_step(i) < numSteps, "switch target");
        sp.targets.emplace_back(s.case_value(i), s.case_step(i));
      }
      expect(s.default_step() < numSteps, "switch target");
      sp.defaultTarget = s.default_step();
      plan.switches.push_back(std::move(sp));
    }
    for (const auto &p : m_.prints())
      plan.prints.push_back({p.title(), image(p.tensor())});
    plan.messages.assign(m_.messages().begin(), m_.messages().end());
    for (const auto &c : m_.collectives()) {
      expect(c.kind() <= std::uint32_t(core::CrossReplicaKind::AllToAll) &&
                 c.operator_() <= std::uint32_t(core::CrossReplicaOperator::LOCAL) &&
                 c.group_size() <= core::kMaxGroupField && c.group_stride() <= core::kMaxGroupField,
             "collective");
      plan.collectives.push_back({c.name(),
                                  {static_cast<core::CrossReplicaKind>(c.kind()),
                                   static_cast<core::CrossReplicaOperator>(c.operator_()),
                                   {static_cast<std::uint16_t>(c.group_size()),
                                    static_cast<std::uint16_t>(c.group_stride())}},
                                  image(c.src()),
                                  image(c.dst())});
    }
    expect(m_.replication_factor() >= 1, "replication factor");
    plan.replicationFactor = m_.replication_factor();
    for (const auto &t : m_.replication_index())
      plan.replicationIndex.push_back(image(t));
    plan.numLoopSlots = m_.num_loop_slots();
    for (const auto &t : m_.cycle_tensors()) {
      plan.cycleTensors.push_back(image(t));
      expect(plan.cycleTensors.back().bytes == 8, "cycle counter tensor");
    }
    for (const auto &t : m_.float_mode_tensors()) {
      plan.floatModeTensors.push_back(image(t));
      expect(plan.floatModeTensors.back().bytes >= 4, "floating-point mode tensor");
    }
    remoteBuffers(plan);
    expect(m_.step_index_size() == int(numSteps) && m_.step_target_size() == int(numSteps) &&
               m_.step_count_size() == int(numSteps) && numSteps > 0,
           "steps");
    for (std::size_t i = 0; i < numSteps; ++i)
      plan.steps.push_back(step(int(i), plan));
    // The engine runs a tile-by-tile run by tile index: its compute sets share one tile list.
    for (std::size_t i = 0; i < numSteps; ++i) {
      const Step &first = plan.steps[i];
      if (first.kind != StepKind::Execute || first.count <= 1)
        continue;
      const auto &tiles = plan.computeSets[first.index].tiles;
      for (std::size_t p = 1; p < first.count; ++p) {
        const Step &next = plan.steps[i + p];
        expect(next.kind == StepKind::Execute, "tile-by-tile run");
        const auto &other = plan.computeSets[next.index].tiles;
        expect(std::equal(tiles.begin(), tiles.end(), other.begin(), other.end(),
                          [](const TileWork &a, const TileWork &b) { return a.tile == b.tile; }),
               "tile-by-tile run");
      }
    }
    for (auto p : m_.program_start()) {
      expect(p < numSteps, "program entry");
      plan.programStart.push_back(p);
    }
    for (const auto &s : m_.streams())
      plan.streams.push_back({s.handle(), typeOf(s.type()), s.bytes_per_transfer(), s.to_device()});
    for (const auto &h : m_.host_writes())
      plan.hostWrites.emplace_back(h.handle(), image(h.tensor()));
    for (const auto &h : m_.host_reads())
      plan.hostReads.emplace_back(h.handle(), image(h.tensor()));
    exe.description = profile::parseGraphProfile(m_.graph_profile());
    // The profile is priced by plan index (compute sets and steps), at load when the programs
    // read cycle counters, so it must describe the same plan.
    expect(exe.description.computeSets.size() == plan.computeSets.size() &&
               exe.description.steps.size() == plan.steps.size(),
           "graph profile");
    plan.defaultVertexCycles.assign(m_.default_vertex_cycles().begin(),
                                    m_.default_vertex_cycles().end());
    expect(plan.defaultVertexCycles.size() == plan.vertexObjects.size(), "default cycle estimates");
    return exe;
  }

private:
  /// Remote buffers and the copies between them and tensors: sizes agree with the types, a
  /// buffer fits in host memory's address range, a copy moves whole rows, an offset holds one
  /// UNSIGNED_INT per row.
  void remoteBuffers(CompiledGraph &plan) const {
    constexpr std::uint64_t kMaxBufferBytes = std::uint64_t(1) << 48;
    for (const auto &b : m_.remote_buffers()) {
      const Type type = typeOf(b.type());
      expect(b.num_elements() >= 1 && b.repeats() >= 1 &&
                 b.num_elements() <= kMaxBufferBytes / type.size() &&
                 b.bytes_per_row() == b.num_elements() * type.size() &&
                 b.repeats() <= kMaxBufferBytes / b.bytes_per_row(),
             "remote buffer size");
      plan.remoteBuffers.push_back(
          {b.handle(), type, b.num_elements(), b.repeats(), b.bytes_per_row()});
    }
    for (const auto &c : m_.remote_copies()) {
      expect(c.buffer() < plan.remoteBuffers.size(), "remote buffer index");
      const auto &buffer = plan.remoteBuffers[c.buffer()];
      RemoteCopyPlan copy;
      copy.name = c.name();
      copy.buffer = c.buffer();
      copy.tensor = image(c.tensor());
      copy.hasOffset = c.has_offset();
      expect(copy.tensor.type == buffer.type && copy.tensor.bytes % buffer.bytesPerRow == 0 &&
                 copy.tensor.bytes > 0,
             "remote copy size");
      const std::uint64_t rows = copy.tensor.bytes / buffer.bytesPerRow;
      if (copy.hasOffset) {
        copy.offset = image(c.offset());
        expect(copy.offset.type == UNSIGNED_INT && copy.offset.bytes == rows * 4,
               "remote copy offset");
      } else {
        expect(rows == buffer.repeats, "remote copy size");
      }
      plan.remoteCopies.push_back(std::move(copy));
    }
  }

private:
  Step step(int i, const CompiledGraph &plan) const {
    expect(m_.step_kind(i) <= std::uint32_t(StepKind::End), "step kind");
    Step s{static_cast<StepKind>(m_.step_kind(i)), unsigned(m_.step_index(i)),
           std::size_t(m_.step_target(i)), m_.step_count(i)};
    const std::size_t numSteps = std::size_t(m_.step_kind_size());
    const auto within = [&](std::size_t n) { expect(s.index < n, "step operand"); };
    switch (s.kind) {
    case StepKind::Execute:
      within(plan.computeSets.size());
      expect(s.count <= numSteps - std::size_t(i), "tile-by-tile run");
      break;
    case StepKind::Copy:
      within(plan.copies.size());
      break;
    case StepKind::StreamIn:
    case StepKind::StreamOut:
      within(plan.streamCopies.size());
      break;
    case StepKind::JumpIfZero:
    case StepKind::JumpIfNonZero:
      within(plan.scalars.size());
      break;
    case StepKind::AbortIf:
      within(plan.scalars.size());
      expect(s.count < plan.messages.size(), "abort message");
      break;
    case StepKind::LoopInit:
    case StepKind::LoopNext:
      within(plan.numLoopSlots);
      break;
    case StepKind::Switch:
      within(plan.switches.size());
      break;
    case StepKind::Print:
      within(plan.prints.size());
      break;
    case StepKind::CrossReplica:
      within(plan.collectives.size());
      break;
    case StepKind::RemoteIn:
    case StepKind::RemoteOut:
      within(plan.remoteCopies.size());
      break;
    case StepKind::Abort:
      within(plan.messages.size());
      break;
    case StepKind::CycleCounter:
      within(plan.cycleTensors.size());
      expect(s.count <= compiler::kWriteCount, "cycle counter mode");
      break;
    case StepKind::SetFloatMode:
      expect(s.count < (std::uint64_t(1) << 16) && (s.count & 0xff) <= core::kFloatAll &&
                 (s.count >> 8) <= core::kFloatAll,
             "floating-point mode");
      break;
    case StepKind::SaveFloatMode:
    case StepKind::LoadFloatMode:
      within(plan.floatModeTensors.size());
      break;
    default:
      break;
    }
    expect(s.target <= numSteps, "step target");
    return s;
  }

  const pb::Executable &m_;
};

} // namespace

std::string describeTarget(const tessera::profile::TargetInfo &t) {
  std::ostringstream s;
  s << t.arch << ": " << t.numIPUs << " IPU" << (t.numIPUs == 1 ? "" : "s") << " x "
    << t.tilesPerIPU << " tiles, " << t.workerContexts << " workers, " << t.bytesPerTile
    << " bytes per tile";
  return s.str();
}

struct Encoded::Message {
  pb::Executable m;
};
Encoded::Encoded(const Executable::Impl &exe) : message_(std::make_unique<Message>()) {
  message_->m = toProto(exe);
}
Encoded::Encoded(Encoded &&) noexcept = default;
Encoded::~Encoded() = default;
std::string Encoded::bytes() const { return message_->m.SerializeAsString(); }

namespace {

/// format_version as it starts a serialized executable (protobuf writes fields in number order,
/// and it is field 1), or 0 when the bytes do not start with it.
std::uint32_t leadingFormatVersion(const std::string &bytes) {
  if (bytes.size() < 2 || bytes[0] != 0x08) // field 1, varint
    return 0;
  std::uint64_t value = 0;
  for (std::size_t i = 1; i < bytes.size() && i <= 5; ++i) {
    value |= std::uint64_t(static_cast<unsigned char>(bytes[i]) & 0x7f) << (7 * (i - 1));
    if (!(static_cast<unsigned char>(bytes[i]) & 0x80))
      return value <= 0xffffffffu ? std::uint32_t(value) : 0;
  }
  return 0;
}

[[noreturn]] void refuseFormatVersion(std::uint32_t version) {
  throw parse_error("deserializing an executable: its format version " + std::to_string(version) +
                    " is " + (version < kFormatVersion ? "older" : "newer") + " than this SDK's (" +
                    std::to_string(kFormatVersion) +
                    "); recompile the graph with this SDK to get an executable it reads");
}

} // namespace

void write(const Executable::Impl &exe, std::ostream &out) {
  const pb::Executable m = toProto(exe);
  if (!m.SerializeToOstream(&out) || !out)
    throw runtime_error("Executable::serialize: writing to the stream failed");
}

Executable::Impl read(std::istream &in) {
  // Executables are large: read a seekable stream in one piece rather than through a copy.
  std::string bytes;
  const auto begin = in.tellg();
  if (begin != std::istream::pos_type(-1) && in.seekg(0, std::ios::end)) {
    const auto end = in.tellg();
    in.seekg(begin);
    bytes.resize(static_cast<std::size_t>(end - begin));
    in.read(bytes.data(), std::streamsize(bytes.size()));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
  } else {
    in.clear();
    std::ostringstream buffer;
    buffer << in.rdbuf();
    bytes = buffer.str();
  }
  if (bytes.empty())
    throw parse_error("deserializing an executable: the stream is empty");
  pb::Executable m;
  if (!m.ParseFromString(bytes)) {
    // Another format's fields need not parse as this one's: name the version if it differs.
    if (const std::uint32_t version = leadingFormatVersion(bytes);
        version != 0 && version != kFormatVersion)
      refuseFormatVersion(version);
    throw parse_error("deserializing an executable: the stream is truncated or corrupt (" +
                      std::to_string(bytes.size()) + " bytes that are not a whole executable)");
  }
  if (m.format_version() == 0 || m.kind() != kKind)
    throw parse_error("deserializing an executable: the stream is not a Tessera executable");
  if (m.format_version() != kFormatVersion)
    refuseFormatVersion(m.format_version());
  if (m.sdk_build_id() != sdkBuildId())
    throw parse_error("deserializing an executable: it was compiled by SDK build " +
                      m.sdk_build_id() + " (" + m.sdk_version() + ") but this is SDK build " +
                      sdkBuildId() + " (" + versionString() +
                      "); compile the graph again with this SDK");
  return Reader(m).read();
}

} // namespace poplar::executable
