#include "engine/Collectives.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

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

void runCollective(const compiler::CollectivePlan &c,
                   const std::vector<const TileMemory *> &replicas) {
  const std::size_t R = replicas.size();
  const std::size_t elemBytes = c.src.type.size();
  const std::size_t n = elemBytes ? c.src.bytes / elemBytes : 0;
  std::vector<std::vector<unsigned char>> in(R, std::vector<unsigned char>(c.src.bytes));
  for (std::size_t r = 0; r < R; ++r)
    replicas[r]->gather(c.src, in[r].data());
  std::vector<unsigned char> out(c.dst.bytes);
  switch (c.op.kind) {
  case CrossReplicaKind::AllReduce:
    if (c.op.op == CrossReplicaOperator::LOCAL) { // each replica keeps its own
      for (std::size_t r = 0; r < R; ++r)
        replicas[r]->scatter(c.dst, in[r].data());
      return;
    }
    reduceElements(c.src.type, c.op.op, in, n, out.data());
    break;
  case CrossReplicaKind::ReduceScatter: {
    if (c.op.op == CrossReplicaOperator::LOCAL) { // each replica its own slice, unreduced
      for (std::size_t r = 0; r < R; ++r) {
        std::vector<unsigned char> mine(c.dst.bytes, 0);
        const std::size_t from = std::min(c.src.bytes, r * c.dst.bytes);
        std::memcpy(mine.data(), in[r].data() + from, std::min(c.dst.bytes, c.src.bytes - from));
        replicas[r]->scatter(c.dst, mine.data());
      }
      return;
    }
    // Replica r gets elements [r·chunk, (r+1)·chunk) of the reduction, zero past the end.
    std::vector<unsigned char> all(R * c.dst.bytes, 0);
    reduceElements(c.src.type, c.op.op, in, n, all.data());
    for (std::size_t r = 0; r < R; ++r)
      replicas[r]->scatter(c.dst, all.data() + r * c.dst.bytes);
    return;
  }
  case CrossReplicaKind::AllGather:
    for (std::size_t r = 0; r < R; ++r)
      std::memcpy(out.data() + r * c.src.bytes, in[r].data(), c.src.bytes);
    break;
  }
  for (std::size_t r = 0; r < R; ++r)
    replicas[r]->scatter(c.dst, out.data());
}

} // namespace poplar::engine
