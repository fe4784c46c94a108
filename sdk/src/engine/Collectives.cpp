#include "engine/Collectives.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>

#include <poplar/exceptions.hpp>

#include "core/ElementConversion.hpp"

namespace poplar::engine {
namespace {

using core::CrossReplicaKind;
using core::CrossReplicaOperator;

/// Elements as the accumulation type Acc (float for FLOAT and HALF, a 32-bit integer for the
/// integer types and BOOL); HalfStored tags IEEE half bits.
struct HalfStored {};
template <class Stored, class Acc> Acc loadOne(const unsigned char *bytes, std::size_t i) {
  if constexpr (std::is_same_v<Stored, HalfStored>) {
    std::uint16_t h;
    std::memcpy(&h, bytes + 2 * i, 2);
    return core::halfToFloat(h);
  } else {
    Stored v;
    std::memcpy(&v, bytes + i * sizeof(Stored), sizeof(Stored));
    return static_cast<Acc>(v);
  }
}
template <class Stored, class Acc> void storeOne(unsigned char *bytes, std::size_t i, Acc v) {
  if constexpr (std::is_same_v<Stored, HalfStored>) {
    const std::uint16_t h = core::floatToHalf(v);
    std::memcpy(bytes + 2 * i, &h, 2);
  } else {
    const Stored s = static_cast<Stored>(v);
    std::memcpy(bytes + i * sizeof(Stored), &s, sizeof(Stored));
  }
}

template <class Stored> constexpr std::size_t storedBytes() {
  if constexpr (std::is_same_v<Stored, HalfStored>)
    return 2;
  else
    return sizeof(Stored);
}

/// out = the reduction over in[0], in[1], … (replica order) of `n` elements each, a tile of
/// elements at a time: every element combines its replicas in order, the tile stays in L1 and
/// the inner loops vectorise.
template <class Stored, class Acc>
void reduceTyped(CrossReplicaOperator op, const std::vector<const unsigned char *> &in,
                 std::size_t n, unsigned char *out) {
  constexpr std::size_t kTile = 1024;
  Acc acc[kTile], next[kTile];
  std::vector<const unsigned char *> tileIn(in.size());
  for (std::size_t begin = 0; begin < n; begin += kTile) {
    const std::size_t len = std::min(kTile, n - begin);
    for (std::size_t r = 0; r < in.size(); ++r)
      tileIn[r] = in[r] + begin * storedBytes<Stored>();
    for (std::size_t i = 0; i < len; ++i)
      acc[i] = loadOne<Stored, Acc>(tileIn[0], i);
    if (op == CrossReplicaOperator::SQUARE_ADD)
      for (std::size_t i = 0; i < len; ++i)
        acc[i] = static_cast<Acc>(acc[i] * acc[i]);
    const auto run = [&](auto f) {
      for (std::size_t r = 1; r < tileIn.size(); ++r) {
        for (std::size_t i = 0; i < len; ++i)
          next[i] = loadOne<Stored, Acc>(tileIn[r], i);
        for (std::size_t i = 0; i < len; ++i)
          acc[i] = f(acc[i], next[i]);
      }
    };
    switch (op) {
    case CrossReplicaOperator::ADD:
    case CrossReplicaOperator::MEAN:
      run([](Acc a, Acc b) { return static_cast<Acc>(a + b); });
      break;
    case CrossReplicaOperator::SQUARE_ADD:
      run([](Acc a, Acc b) { return static_cast<Acc>(a + b * b); });
      break;
    case CrossReplicaOperator::MUL:
      run([](Acc a, Acc b) { return static_cast<Acc>(a * b); });
      break;
    case CrossReplicaOperator::MIN:
      run([](Acc a, Acc b) { return std::min(a, b); });
      break;
    case CrossReplicaOperator::MAX:
      run([](Acc a, Acc b) { return std::max(a, b); });
      break;
    case CrossReplicaOperator::LOGICAL_AND:
      run([](Acc a, Acc b) { return static_cast<Acc>(a != Acc(0) && b != Acc(0)); });
      break;
    case CrossReplicaOperator::LOGICAL_OR:
      run([](Acc a, Acc b) { return static_cast<Acc>(a != Acc(0) || b != Acc(0)); });
      break;
    case CrossReplicaOperator::LOCAL:
      break;
    }
    if (op == CrossReplicaOperator::MEAN) {
      const Acc count = static_cast<Acc>(in.size());
      for (std::size_t i = 0; i < len; ++i)
        acc[i] = static_cast<Acc>(acc[i] / count);
    }
    for (std::size_t i = 0; i < len; ++i)
      storeOne<Stored, Acc>(out + begin * storedBytes<Stored>(), i, acc[i]);
  }
}

void reduceElements(Type type, CrossReplicaOperator op,
                    const std::vector<const unsigned char *> &in, std::size_t n,
                    unsigned char *out) {
  if (type == FLOAT)
    reduceTyped<float, float>(op, in, n, out);
  else if (type == HALF)
    reduceTyped<HalfStored, float>(op, in, n, out);
  else if (type == INT)
    reduceTyped<std::int32_t, std::int32_t>(op, in, n, out);
  else if (type == UNSIGNED_INT)
    reduceTyped<std::uint32_t, std::uint32_t>(op, in, n, out);
  else if (type == SHORT)
    reduceTyped<std::int16_t, std::int32_t>(op, in, n, out);
  else if (type == UNSIGNED_SHORT)
    reduceTyped<std::uint16_t, std::uint32_t>(op, in, n, out);
  else if (type == BOOL || type == UNSIGNED_CHAR)
    reduceTyped<std::uint8_t, std::uint32_t>(op, in, n, out);
  else if (type == CHAR || type == SIGNED_CHAR)
    reduceTyped<std::int8_t, std::int32_t>(op, in, n, out);
  else
    throw runtime_error("cross-replica reduction of " + type.toString() + " elements");
}

/// A buffer that grows and is never zeroed or freed between collectives: fresh large
/// allocations page-fault on every touch (measured: most of an all-reduce's time).
class Scratch {
public:
  unsigned char *get(std::size_t bytes) {
    if (bytes > size_) {
      data_.reset(new unsigned char[bytes]);
      size_ = bytes;
    }
    return data_.get();
  }

private:
  std::unique_ptr<unsigned char[]> data_;
  std::size_t size_ = 0;
};
struct Buffers {
  Scratch in, send, recv, mine, full;
};
Buffers &buffers() { // per thread: engines on different threads never share one
  thread_local Buffers b;
  return b;
}

/// Every replica's source in global replica order, reduced element by element into `full`
/// (n elements, then zeros up to `fullBytes`) — across instances, each instance reduces its
/// share of the elements over every replica and the shares are gathered: the same bits.
void reduceAcross(const compiler::CollectivePlan &c, const ReplicaGroup &g, std::size_t n,
                  unsigned char *full, std::size_t fullBytes) {
  const std::size_t e = c.src.type.size(), L = g.local.size();
  Buffers &buf = buffers();
  if (!g.across) {
    unsigned char *in = buf.in.get(L * c.src.bytes);
    std::vector<const unsigned char *> parts;
    for (std::size_t r = 0; r < L; ++r) {
      g.local[r]->gather(c.src, in + r * c.src.bytes);
      parts.push_back(in + r * c.src.bytes);
    }
    reduceElements(c.src.type, c.op.op, parts, n, full);
    std::memset(full + n * e, 0, fullBytes - n * e);
    return;
  }
  const std::size_t I = g.across->numInstances();
  const std::size_t chunk = (n + I - 1) / I; // elements each instance reduces
  const std::size_t block = L * chunk * e;   // what one instance sends another
  unsigned char *send = buf.send.get(I * block);
  if (L == 1) { // the tensor itself is the send buffer: block k is chunk k
    g.local[0]->gather(c.src, send);
    std::memset(send + n * e, 0, I * block - n * e);
  } else {
    unsigned char *in = buf.in.get(c.src.bytes);
    for (std::size_t l = 0; l < L; ++l) {
      g.local[l]->gather(c.src, in);
      for (std::size_t k = 0; k < I; ++k) {
        const std::size_t from = std::min(n, k * chunk), to = std::min(n, (k + 1) * chunk);
        unsigned char *at = send + k * block + l * chunk * e;
        std::memcpy(at, in + from * e, (to - from) * e);
        std::memset(at + (to - from) * e, 0, (chunk - (to - from)) * e);
      }
    }
  }
  unsigned char *recv = buf.recv.get(I * block);
  g.across->allToAll(send, block, recv);
  // recv block j holds instance j's replicas' parts of this instance's chunk: global order.
  std::vector<const unsigned char *> parts;
  for (std::size_t j = 0; j < I; ++j)
    for (std::size_t l = 0; l < L; ++l)
      parts.push_back(recv + j * block + l * chunk * e);
  const std::size_t me = g.across->instanceIndex();
  const std::size_t valid = std::min(n, (me + 1) * chunk) - std::min(n, me * chunk);
  unsigned char *mine = buf.mine.get(chunk * e);
  reduceElements(c.src.type, c.op.op, parts, valid, mine);
  std::memset(mine + valid * e, 0, (chunk - valid) * e);
  if (fullBytes >= I * chunk * e) {
    g.across->allGather(mine, chunk * e, full);
    std::memset(full + I * chunk * e, 0, fullBytes - I * chunk * e);
  } else {
    unsigned char *all = buf.send.get(I * chunk * e); // send is free again
    g.across->allGather(mine, chunk * e, all);
    std::memcpy(full, all, fullBytes);
  }
}

/// The runs of tile memory holding bytes [lo, hi) of a tensor image's `pieces` (which come in
/// increasing host offset).
CrossInstance::Spans spansOf(const TileMemory &tiles,
                             const std::vector<compiler::TensorPiece> &pieces, std::size_t lo,
                             std::size_t hi) {
  CrossInstance::Spans spans;
  auto it = std::upper_bound(
      pieces.begin(), pieces.end(), lo,
      [](std::size_t at, const compiler::TensorPiece &p) { return at < p.hostOffset; });
  if (it != pieces.begin())
    --it;
  for (; it != pieces.end() && it->hostOffset < hi; ++it) {
    const std::size_t from = std::max<std::size_t>(lo, it->hostOffset);
    const std::size_t to = std::min<std::size_t>(hi, it->hostOffset + it->bytes);
    if (from < to)
      spans.push_back({tiles.address(it->at) + (from - it->hostOffset), to - from});
  }
  return spans;
}

/// An all-reduce over instances with one replica each, straight from and into tile memory:
/// instance k is sent its chunk of every instance's tensor, reduces them in instance (= global
/// replica) order, and sends the result to every instance's destination — the same bits as
/// reduceAcross, without packing the tensor into a buffer and unpacking the result.
void allReduceOneReplicaEach(const compiler::CollectivePlan &c, const ReplicaGroup &g,
                             std::size_t n) {
  const std::size_t e = c.src.type.size(), I = g.across->numInstances();
  const std::size_t me = g.across->instanceIndex();
  const std::size_t chunk = (n + I - 1) / I;
  auto range = [&](std::size_t k) {
    return std::pair{std::min(n, k * chunk) * e, std::min(n, (k + 1) * chunk) * e};
  };
  const TileMemory &tiles = *g.local[0];
  const auto [myLo, myHi] = range(me);
  const std::size_t valid = (myHi - myLo) / e;
  Buffers &buf = buffers();
  unsigned char *recv = buf.recv.get(std::max<std::size_t>(1, I * chunk * e));
  std::vector<CrossInstance::Spans> send(I), into(I);
  for (std::size_t k = 0; k < I; ++k) {
    const auto [lo, hi] = range(k);
    send[k] = spansOf(tiles, c.src.pieces, lo, hi);
    if (valid)
      into[k] = {{recv + k * chunk * e, valid * e}};
  }
  g.across->allToAllScattered(send, into);
  std::vector<const unsigned char *> parts;
  for (std::size_t j = 0; j < I; ++j)
    parts.push_back(recv + j * chunk * e);
  unsigned char *mine = buf.mine.get(std::max<std::size_t>(1, chunk * e));
  reduceElements(c.src.type, c.op.op, parts, valid, mine);
  for (std::size_t k = 0; k < I; ++k) {
    const auto [lo, hi] = range(k);
    send[k] = valid ? CrossInstance::Spans{{mine, valid * e}} : CrossInstance::Spans{};
    into[k] = spansOf(tiles, c.dst.pieces, lo, hi);
  }
  g.across->allToAllScattered(send, into);
}

/// True when every group lies within one instance's replicas (the layout is the same on every
/// instance, so every instance decides alike).
bool groupsStayInInstances(const core::GroupLayout &layout, std::size_t total, std::size_t L) {
  for (std::size_t r = 0; r < total; ++r)
    if (layout.member(r, 0) / L != layout.member(r, layout.size - 1) / L)
      return false;
  return true;
}

/// A collective over sub-groups of the replicas (or an all-to-all): every member's source is
/// brought to the host — from the other instances too when a group spans them — and each local
/// replica's result is made from its group's members in ascending replica order.
void runGrouped(const compiler::CollectivePlan &c, const ReplicaGroup &g) {
  const core::GroupLayout layout(c.op.groups, g.total);
  const std::size_t L = g.local.size(), G = layout.size, bytes = c.src.bytes;
  const std::size_t e = c.src.type.size(), n = e ? bytes / e : 0;
  Buffers &buf = buffers();
  std::vector<const unsigned char *> source(g.total, nullptr);
  unsigned char *mine = buf.in.get(std::max<std::size_t>(1, L * bytes));
  for (std::size_t l = 0; l < L; ++l) {
    g.local[l]->gather(c.src, mine + l * bytes);
    source[g.offset + l] = mine + l * bytes;
  }
  if (g.across && !groupsStayInInstances(layout, g.total, L)) {
    unsigned char *all = buf.full.get(std::max<std::size_t>(1, g.total * bytes));
    g.across->allGather(mine, L * bytes, all);
    for (std::size_t r = 0; r < g.total; ++r)
      source[r] = all + r * bytes;
  }
  const bool local = c.op.op == CrossReplicaOperator::LOCAL;
  const std::size_t slice = c.dst.bytes; // reduce-scatter: one member's share
  const std::size_t outBytes =
      c.op.kind == CrossReplicaKind::ReduceScatter ? std::max(bytes, G * slice) : c.dst.bytes;
  unsigned char *out = buf.send.get(std::max<std::size_t>(1, outBytes));
  std::vector<const unsigned char *> parts(G);
  std::size_t reducedFor = g.total; // the group (by first member) whose reduction `out` holds
  const auto reduceGroup = [&](std::size_t r) {
    if (local) {
      std::memcpy(out, source[r], bytes);
    } else if (reducedFor != layout.member(r, 0)) { // neighbours often share a group
      reduceElements(c.src.type, c.op.op, parts, n, out);
      reducedFor = layout.member(r, 0);
    }
  };
  for (std::size_t l = 0; l < L; ++l) {
    const std::size_t r = g.offset + l, rank = layout.rank(r);
    for (std::size_t j = 0; j < G; ++j)
      parts[j] = source[layout.member(r, j)];
    switch (c.op.kind) {
    case CrossReplicaKind::AllReduce:
      reduceGroup(r);
      g.local[l]->scatter(c.dst, out);
      break;
    case CrossReplicaKind::ReduceScatter:
      reduceGroup(r);
      std::memset(out + bytes, 0, outBytes - bytes);
      g.local[l]->scatter(c.dst, out + rank * slice);
      break;
    case CrossReplicaKind::AllGather:
      for (std::size_t j = 0; j < G; ++j)
        std::memcpy(out + j * bytes, parts[j], bytes);
      g.local[l]->scatter(c.dst, out);
      break;
    case CrossReplicaKind::AllToAll: {
      const std::size_t block = bytes / G; // member j's block `rank` lands at position j
      for (std::size_t j = 0; j < G; ++j)
        std::memcpy(out + j * block, parts[j] + rank * block, block);
      g.local[l]->scatter(c.dst, out);
      break;
    }
    }
  }
}

/// "all-reduce ADD over groups of 2, 1 apart", for messages.
std::string describeOp(const core::CrossReplicaOp &o) {
  static const char *const kinds[] = {"all-reduce", "reduce-scatter", "all-gather", "all-to-all"};
  static const char *const ops[] = {"ADD",         "MEAN",       "MUL",        "MIN",  "MAX",
                                    "LOGICAL_AND", "LOGICAL_OR", "SQUARE_ADD", "LOCAL"};
  static_assert(std::size(kinds) == std::size_t(CrossReplicaKind::AllToAll) + 1 &&
                std::size(ops) == std::size_t(CrossReplicaOperator::LOCAL) + 1);
  std::string text = kinds[std::size_t(o.kind) & 3];
  if (o.kind == CrossReplicaKind::AllReduce || o.kind == CrossReplicaKind::ReduceScatter)
    text += std::string(" ") + (std::size_t(o.op) < std::size(ops) ? ops[std::size_t(o.op)] : "?");
  if (o.groups.size)
    text += " over groups of " + std::to_string(o.groups.size) + ", " +
            std::to_string(o.groups.stride) + " apart";
  else
    text += " over every replica";
  return text;
}

} // namespace

void runCollective(const compiler::CollectivePlan &c, const ReplicaGroup &g) {
  const auto &replicas = g.local;
  const std::size_t L = replicas.size();
  const std::size_t elemBytes = c.src.type.size();
  const std::size_t n = elemBytes ? c.src.bytes / elemBytes : 0;
  const bool local = c.op.op == CrossReplicaOperator::LOCAL;
  if (core::GroupLayout(c.op.groups, g.total).size != g.total ||
      c.op.kind == CrossReplicaKind::AllToAll) {
    runGrouped(c, g);
    return;
  }
  Buffers &buf = buffers();
  switch (c.op.kind) {
  case CrossReplicaKind::AllReduce: {
    if (local) { // each replica keeps its own
      unsigned char *own = buf.in.get(c.src.bytes);
      for (std::size_t r = 0; r < L; ++r) {
        replicas[r]->gather(c.src, own);
        replicas[r]->scatter(c.dst, own);
      }
      return;
    }
    if (g.across && L == 1 && c.dst.bytes == c.src.bytes) {
      allReduceOneReplicaEach(c, g, n);
      return;
    }
    unsigned char *full = buf.full.get(c.src.bytes);
    reduceAcross(c, g, n, full, c.src.bytes);
    for (std::size_t r = 0; r < L; ++r)
      replicas[r]->scatter(c.dst, full);
    return;
  }
  case CrossReplicaKind::ReduceScatter: {
    // Global replica k gets elements [k·slice, (k+1)·slice) of the reduction, zero past the end
    // (LOCAL: of its own data).
    const std::size_t slice = c.dst.bytes;
    const std::size_t fullBytes = std::max<std::size_t>(c.src.bytes, g.total * slice);
    unsigned char *full = buf.full.get(fullBytes);
    if (!local)
      reduceAcross(c, g, n, full, fullBytes);
    for (std::size_t r = 0; r < L; ++r) {
      if (local) {
        replicas[r]->gather(c.src, full);
        std::memset(full + c.src.bytes, 0, fullBytes - c.src.bytes);
      }
      replicas[r]->scatter(c.dst, full + (g.offset + r) * slice);
    }
    return;
  }
  case CrossReplicaKind::AllGather: {
    unsigned char *mine = buf.in.get(L * c.src.bytes);
    for (std::size_t r = 0; r < L; ++r)
      replicas[r]->gather(c.src, mine + r * c.src.bytes);
    unsigned char *all = mine;
    if (g.across) {
      all = buf.full.get(g.across->numInstances() * L * c.src.bytes);
      g.across->allGather(mine, L * c.src.bytes, all);
    }
    for (std::size_t r = 0; r < L; ++r)
      replicas[r]->scatter(c.dst, all);
    return;
  }
  case CrossReplicaKind::AllToAll: // handled by runGrouped
    return;
  }
}

void agreeAcrossInstances(CrossInstance &across, const compiler::CompiledGraph &plan,
                          std::optional<std::size_t> step) {
  // What each instance is about to do: the step (or "end of the run") and the sizes involved.
  struct Point {
    std::uint64_t step;
    std::uint64_t srcBytes, dstBytes;
    std::uint64_t op; ///< kind, operator and groups (core::encode)
    char name[48];
  };
  Point me{};
  me.step = step ? *step : ~std::uint64_t(0);
  std::string name = "the end of the program";
  if (step) {
    const auto &c = plan.collectives[plan.steps[*step].index];
    me.srcBytes = c.src.bytes;
    me.dstBytes = c.dst.bytes;
    me.op = core::encode(c.op);
    name = "collective '" + c.name + "'";
  }
  std::snprintf(me.name, sizeof(me.name), "%s", name.c_str());
  std::vector<Point> all(across.numInstances());
  across.allGather(&me, sizeof(Point), all.data());
  for (std::size_t j = 0; j < all.size(); ++j) {
    const Point &p = all[j];
    if (p.step == me.step && p.srcBytes == me.srcBytes && p.dstBytes == me.dstBytes &&
        p.op == me.op)
      continue;
    const auto describe = [](const Point &q) {
      std::string text(q.name, strnlen(q.name, sizeof(q.name)));
      if (q.step != ~std::uint64_t(0))
        text += " (" + std::to_string(q.srcBytes) + " bytes in, " + std::to_string(q.dstBytes) +
                " out, " + describeOp(core::decodeCrossReplicaOp(q.op)) + ")";
      return text;
    };
    throw runtime_error("Engine::run: instances disagree: instance " +
                        std::to_string(across.instanceIndex()) + " reached " + describe(me) +
                        " while instance " + std::to_string(j) + " reached " + describe(p) +
                        " (every instance must build the same graph and follow the same path)");
  }
}

} // namespace poplar::engine
