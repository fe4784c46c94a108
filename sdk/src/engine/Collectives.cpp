#include "engine/Collectives.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include <poplar/exceptions.hpp>

#include "core/ElementConversion.hpp"

namespace poplar::engine {
namespace {

using core::CrossReplicaKind;
using core::CrossReplicaOperator;

/// The reduction of `values[0..R)` for one element, in replica order. Acc is the accumulation
/// type (float for FLOAT and HALF, the integer type for integers, bool for BOOL).
template <class Acc> Acc reduce(CrossReplicaOperator op, const std::vector<Acc> &values) {
  Acc acc = values[0];
  if (op == CrossReplicaOperator::SQUARE_ADD)
    acc = values[0] * values[0];
  for (std::size_t r = 1; r < values.size(); ++r) {
    const Acc v = values[r];
    switch (op) {
    case CrossReplicaOperator::ADD:
    case CrossReplicaOperator::MEAN:
      acc = acc + v;
      break;
    case CrossReplicaOperator::SQUARE_ADD:
      acc = acc + v * v;
      break;
    case CrossReplicaOperator::MUL:
      acc = acc * v;
      break;
    case CrossReplicaOperator::MIN:
      acc = std::min(acc, v);
      break;
    case CrossReplicaOperator::MAX:
      acc = std::max(acc, v);
      break;
    case CrossReplicaOperator::LOGICAL_AND:
      acc = static_cast<Acc>(acc != Acc(0) && v != Acc(0));
      break;
    case CrossReplicaOperator::LOGICAL_OR:
      acc = static_cast<Acc>(acc != Acc(0) || v != Acc(0));
      break;
    case CrossReplicaOperator::LOCAL:
      break;
    }
  }
  if (op == CrossReplicaOperator::MEAN)
    acc = static_cast<Acc>(acc / static_cast<Acc>(values.size()));
  return acc;
}

/// Element i of every replica's data, as Acc.
template <class Stored, class Acc> struct Access {
  static Acc load(const unsigned char *p, std::size_t i) {
    Stored s;
    std::memcpy(&s, p + i * sizeof(Stored), sizeof(Stored));
    return static_cast<Acc>(s);
  }
  static void store(unsigned char *p, std::size_t i, Acc v) {
    const Stored s = static_cast<Stored>(v);
    std::memcpy(p + i * sizeof(Stored), &s, sizeof(Stored));
  }
};
struct HalfAccess {
  static float load(const unsigned char *p, std::size_t i) {
    std::uint16_t h;
    std::memcpy(&h, p + i * 2, 2);
    return core::halfToFloat(h);
  }
  static void store(unsigned char *p, std::size_t i, float v) {
    const std::uint16_t h = core::floatToHalf(v);
    std::memcpy(p + i * 2, &h, 2);
  }
};

/// out[i] = reduce over replicas of in[r][i], i < n.
template <class Acc, class A>
void reduceAll(CrossReplicaOperator op, const std::vector<std::vector<unsigned char>> &in,
               std::size_t n, unsigned char *out) {
  std::vector<Acc> values(in.size());
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t r = 0; r < in.size(); ++r)
      values[r] = A::load(in[r].data(), i);
    A::store(out, i, reduce(op, values));
  }
}

void reduceElements(Type type, CrossReplicaOperator op,
                    const std::vector<std::vector<unsigned char>> &in, std::size_t n,
                    unsigned char *out) {
  if (type == FLOAT)
    reduceAll<float, Access<float, float>>(op, in, n, out);
  else if (type == HALF)
    reduceAll<float, HalfAccess>(op, in, n, out);
  else if (type == INT)
    reduceAll<std::int32_t, Access<std::int32_t, std::int32_t>>(op, in, n, out);
  else if (type == UNSIGNED_INT)
    reduceAll<std::uint32_t, Access<std::uint32_t, std::uint32_t>>(op, in, n, out);
  else if (type == SHORT)
    reduceAll<std::int32_t, Access<std::int16_t, std::int32_t>>(op, in, n, out);
  else if (type == UNSIGNED_SHORT)
    reduceAll<std::uint32_t, Access<std::uint16_t, std::uint32_t>>(op, in, n, out);
  else if (type == BOOL || type == UNSIGNED_CHAR)
    reduceAll<std::uint32_t, Access<std::uint8_t, std::uint32_t>>(op, in, n, out);
  else if (type == CHAR || type == SIGNED_CHAR)
    reduceAll<std::int32_t, Access<std::int8_t, std::int32_t>>(op, in, n, out);
  else
    throw runtime_error("cross-replica reduction of " + type.toString() + " elements");
}

} // namespace

namespace {

/// Every replica's source, in global replica order, reduced element by element into `out`
/// (`count` elements) — or, across instances, each instance reduces its share of the elements
/// over every replica and the shares are then gathered, which gives the same bits.
void reduceAcross(const compiler::CollectivePlan &c, const ReplicaGroup &g,
                  const std::vector<std::vector<unsigned char>> &local, std::size_t n,
                  std::vector<unsigned char> &full) {
  const std::size_t e = c.src.type.size();
  if (!g.across) {
    reduceElements(c.src.type, c.op.op, local, n, full.data());
    return;
  }
  const std::size_t I = g.across->numInstances(), L = local.size();
  const std::size_t chunk = (n + I - 1) / I; // elements each instance reduces
  const std::size_t block = L * chunk * e;   // what one instance sends another
  std::vector<unsigned char> send(I * block, 0), recv(I * block);
  for (std::size_t k = 0; k < I; ++k)
    for (std::size_t l = 0; l < L; ++l) {
      const std::size_t from = std::min(n, k * chunk), to = std::min(n, (k + 1) * chunk);
      std::memcpy(send.data() + k * block + l * chunk * e, local[l].data() + from * e,
                  (to - from) * e);
    }
  g.across->allToAll(send.data(), block, recv.data());
  // recv block j holds instance j's replicas' parts of this instance's chunk: global order.
  std::vector<std::vector<unsigned char>> parts(I * L, std::vector<unsigned char>(chunk * e));
  for (std::size_t j = 0; j < I; ++j)
    for (std::size_t l = 0; l < L; ++l)
      std::memcpy(parts[j * L + l].data(), recv.data() + j * block + l * chunk * e, chunk * e);
  const std::size_t me = g.across->instanceIndex();
  const std::size_t valid = std::min(n, (me + 1) * chunk) - std::min(n, me * chunk);
  std::vector<unsigned char> mine(chunk * e, 0);
  reduceElements(c.src.type, c.op.op, parts, valid, mine.data());
  std::vector<unsigned char> all(I * chunk * e);
  g.across->allGather(mine.data(), chunk * e, all.data());
  std::memcpy(full.data(), all.data(), std::min(full.size(), all.size()));
}

} // namespace

void runCollective(const compiler::CollectivePlan &c, const ReplicaGroup &g) {
  const auto &replicas = g.local;
  const std::size_t L = replicas.size();
  const std::size_t elemBytes = c.src.type.size();
  const std::size_t n = elemBytes ? c.src.bytes / elemBytes : 0;
  std::vector<std::vector<unsigned char>> in(L, std::vector<unsigned char>(c.src.bytes));
  for (std::size_t r = 0; r < L; ++r)
    replicas[r]->gather(c.src, in[r].data());
  const bool local = c.op.op == CrossReplicaOperator::LOCAL;
  switch (c.op.kind) {
  case CrossReplicaKind::AllReduce: {
    if (local) { // each replica keeps its own
      for (std::size_t r = 0; r < L; ++r)
        replicas[r]->scatter(c.dst, in[r].data());
      return;
    }
    std::vector<unsigned char> full(c.src.bytes);
    reduceAcross(c, g, in, n, full);
    for (std::size_t r = 0; r < L; ++r)
      replicas[r]->scatter(c.dst, full.data());
    return;
  }
  case CrossReplicaKind::ReduceScatter: {
    // Global replica k gets elements [k·slice, (k+1)·slice) of the reduction, zero past the end
    // (LOCAL: of its own data).
    const std::size_t slice = c.dst.bytes;
    std::vector<unsigned char> full(std::max<std::size_t>(c.src.bytes, g.total * slice), 0);
    if (!local)
      reduceAcross(c, g, in, n, full);
    for (std::size_t r = 0; r < L; ++r) {
      const std::size_t k = g.offset + r;
      std::vector<unsigned char> mine(slice, 0);
      const unsigned char *from = local ? in[r].data() : full.data();
      const std::size_t begin = std::min(c.src.bytes, k * slice);
      std::memcpy(mine.data(), from + begin, std::min(slice, c.src.bytes - begin));
      replicas[r]->scatter(c.dst, mine.data());
    }
    return;
  }
  case CrossReplicaKind::AllGather: {
    std::vector<unsigned char> mine(L * c.src.bytes);
    for (std::size_t r = 0; r < L; ++r)
      std::memcpy(mine.data() + r * c.src.bytes, in[r].data(), c.src.bytes);
    std::vector<unsigned char> all = mine;
    if (g.across) {
      all.resize(g.across->numInstances() * mine.size());
      g.across->allGather(mine.data(), mine.size(), all.data());
    }
    for (std::size_t r = 0; r < L; ++r)
      replicas[r]->scatter(c.dst, all.data());
    return;
  }
  }
}

void agreeAcrossInstances(CrossInstance &across, const compiler::CompiledGraph &plan,
                          std::optional<std::size_t> step) {
  // What each instance is about to do: the step (or "end of the run") and the sizes involved.
  struct Point {
    std::uint64_t step;
    std::uint64_t srcBytes, dstBytes;
    char name[48];
  };
  Point me{};
  me.step = step ? *step : ~std::uint64_t(0);
  std::string name = "the end of the program";
  if (step) {
    const auto &c = plan.collectives[plan.steps[*step].index];
    me.srcBytes = c.src.bytes;
    me.dstBytes = c.dst.bytes;
    name = "collective '" + c.name + "'";
  }
  std::snprintf(me.name, sizeof(me.name), "%s", name.c_str());
  std::vector<Point> all(across.numInstances());
  across.allGather(&me, sizeof(Point), all.data());
  for (std::size_t j = 0; j < all.size(); ++j) {
    const Point &p = all[j];
    if (p.step == me.step && p.srcBytes == me.srcBytes && p.dstBytes == me.dstBytes)
      continue;
    const auto describe = [](const Point &q) {
      std::string text(q.name, strnlen(q.name, sizeof(q.name)));
      if (q.step != ~std::uint64_t(0))
        text += " (" + std::to_string(q.srcBytes) + " bytes in, " + std::to_string(q.dstBytes) +
                " out)";
      return text;
    };
    throw runtime_error("Engine::run: instances disagree: instance " +
                        std::to_string(across.instanceIndex()) + " reached " + describe(me) +
                        " while instance " + std::to_string(j) + " reached " + describe(p) +
                        " (every instance must build the same graph and follow the same path)");
  }
}

} // namespace poplar::engine
