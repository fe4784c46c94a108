#include "executable/GraphFingerprint.hpp"

#include <cstring>
#include <map>

#include "core/ProgramNode.hpp"
#include "core/TensorData.hpp"
#include "executable/ExecutableData.hpp"
#include "executable/VertexTypeResolver.hpp"

namespace poplar::executable {

namespace {

/// Four independent 64-bit lanes, taking words in turn: the multiplications of consecutive words
/// do not wait for each other, so hashing a graph with millions of regions costs little next to
/// compiling it. 128 bits out, wide enough that unrelated graphs never share a key. Not for
/// adversaries.
class KeyHasher {
public:
  void bytes(const void *data, std::size_t n) {
    word(n);
    const auto *p = static_cast<const unsigned char *>(data);
    for (; n >= 8; n -= 8, p += 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      word(w);
    }
    std::uint64_t tail = 0;
    if (n != 0) // an empty vector's data() may be null, which memcpy may not be given
      std::memcpy(&tail, p, n);
    word(tail);
  }
  void word(std::uint64_t w) {
    std::uint64_t &lane = lanes_[next_++ & 3];
    lane = (lane ^ w) * 0x9e3779b97f4a7c15ull;
    lane ^= lane >> 32;
  }
  void text(const std::string &s) { bytes(s.data(), s.size()); }
  std::string hex() const {
    // Fold the lanes into two, each depending on all four and on how many words went in.
    std::uint64_t a = lanes_[0] ^ (lanes_[2] * 0xff51afd7ed558ccdull) ^ next_;
    std::uint64_t b = lanes_[1] ^ (lanes_[3] * 0xc4ceb9fe1a85ec53ull) ^ (a * 0x100000001b3ull);
    a ^= b >> 29;
    a *= 0xff51afd7ed558ccdull;
    a ^= a >> 33;
    b ^= a >> 31;
    b *= 0xc4ceb9fe1a85ec53ull;
    b ^= b >> 33;
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (std::uint64_t lane : {a, b})
      for (int i = 15; i >= 0; --i)
        out += digits[(lane >> (4 * i)) & 15];
    return out;
  }

private:
  std::uint64_t lanes_[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x9e3779b97f4a7c15ull,
                             0x2545f4914f6cdd1dull};
  std::uint64_t next_ = 0;
};

class GraphHasher {
public:
  explicit GraphHasher(KeyHasher &h) : h_(h) {}

  void tensor(const Tensor &t) {
    if (!t.valid()) {
      h_.word(0);
      return;
    }
    const core::TensorData &d = t.data();
    h_.word(1 + static_cast<std::uint64_t>(d.type.id()));
    h_.bytes(d.shape.vec().data(), d.shape.size() * sizeof(std::size_t));
    h_.word(d.regions.size());
    // The runs as stored: a view's runs depend only on its element sequence (appendRegion).
    for (const auto &r : d.regions) {
      h_.word(r.var);
      h_.word(static_cast<std::uint64_t>(static_cast<std::int64_t>(r.stride)));
      h_.word(r.begin);
      h_.word(r.count);
    }
  }

  void program(const program::Program &p) {
    const core::ProgramNode *n = p.node().get();
    if (!n) {
      h_.word(0);
      return;
    }
    // A node seen before is hashed by its first-visit number: shared bodies stay shared and a
    // deeply shared program tree costs its size, not its unfolded size.
    const auto [it, first] = seen_.try_emplace(n, seen_.size() + 1);
    h_.word(it->second);
    if (!first)
      return;
    h_.word(static_cast<std::uint64_t>(n->kind));
    h_.text(n->name);
    h_.word(n->children.size());
    for (const auto &c : n->children)
      program(c);
    h_.bytes(n->caseValues.data(), n->caseValues.size() * sizeof(std::int32_t));
    tensor(n->src);
    tensor(n->dst);
    h_.word(n->computeSet.valid() ? n->computeSet.getId() : ~0ull);
    h_.word(n->stream.getId());
    h_.word(n->remoteBuffer.getId());
    tensor(n->offset);
    h_.word(n->function.getId());
    h_.word(n->count);
    h_.word(n->whileTrue);
    h_.text(n->message);
  }

private:
  KeyHasher &h_;
  std::map<const core::ProgramNode *, std::uint64_t> seen_;
};

} // namespace

std::string graphFingerprint(const core::GraphData &g,
                             const std::vector<program::Program> &programs,
                             const std::string &compileSettings) {
  KeyHasher h;
  GraphHasher gh(h);
  h.text(sdkBuildId());
  h.text(compileSettings);
  const Target &t = g.target;
  h.text(t.getTargetArchString());
  for (std::uint64_t v :
       {std::uint64_t(t.getNumIPUs()), std::uint64_t(t.getTilesPerIPU()),
        std::uint64_t(t.getNumWorkerContexts()), t.getBytesPerTile(),
        std::uint64_t(t.getDataPathWidth()), std::uint64_t(t.getExchangeBytesPerCycle()),
        std::uint64_t(t.getMemcpyBytesPerCycle()), std::uint64_t(t.getSyncCycles()),
        std::uint64_t(g.replicationFactor)})
    h.word(v);
  const double clock = t.getTileClockFrequency();
  h.bytes(&clock, sizeof clock);

  h.word(g.variables.size());
  for (const auto &v : g.variables) {
    h.word(static_cast<std::uint64_t>(v.type.id()));
    h.word(v.numElements);
    h.bytes(v.shape.data(), v.shape.size() * sizeof(std::size_t));
    h.text(v.name);
    h.word(v.isConstant);
    h.word(v.mapping.entries().size());
    for (const auto &e : v.mapping.entries()) {
      h.word(e.begin);
      h.word(e.end);
      h.word(e.tile);
    }
    h.bytes(v.initialValue.data(), v.initialValue.size());
  }
  h.word(g.computeSets.size());
  for (const auto &cs : g.computeSets) {
    h.text(cs.name);
    h.bytes(cs.vertices.data(), cs.vertices.size() * sizeof(unsigned));
  }
  h.word(g.vertices.size());
  std::map<const tessera::VertexTypeInfo *, std::string> typeKeys; // a few types, many vertices
  for (const auto &v : g.vertices) {
    auto [typeKey, added] = typeKeys.try_emplace(v.type.get());
    if (added)
      typeKey->second = v.type->origin + "\n" + fingerprint(*v.type);
    h.text(typeKey->second);
    h.word(v.computeSet);
    h.word(v.tile);
    h.word(v.perfEstimate.has_value());
    h.word(v.perfEstimate.value_or(0));
    h.word(v.flops);
    h.word(v.fields.size());
    for (const auto &f : v.fields) {
      h.word(f.tensors.size());
      for (const auto &tensor : f.tensors)
        gh.tensor(tensor);
      h.word(f.size.has_value());
      h.word(f.size.value_or(0));
      h.bytes(f.value.data(), f.value.size());
      h.word(f.connected);
    }
  }
  h.word(g.streams.size());
  for (const auto &s : g.streams) {
    h.text(s.handle);
    h.word(static_cast<std::uint64_t>(s.type.id()));
    h.word(s.numElements);
    h.word(s.toDevice);
  }
  h.word(g.remoteBuffers.size());
  for (const auto &b : g.remoteBuffers) {
    h.text(b.handle);
    h.word(static_cast<std::uint64_t>(b.type.id()));
    h.word(b.numElements);
    h.word(b.repeats);
    h.word(b.rearrangeOnHost);
    h.word(b.optimiseMemory);
  }
  for (const auto *list : {&g.hostWrites, &g.hostReads}) {
    h.word(list->size());
    for (const auto &[handle, tensor] : *list) {
      h.text(handle);
      gh.tensor(tensor);
    }
  }
  h.word(g.functions.size());
  for (const auto &f : g.functions)
    gh.program(f);
  h.word(programs.size());
  for (const auto &p : programs)
    gh.program(p);
  return h.hex();
}

} // namespace poplar::executable
