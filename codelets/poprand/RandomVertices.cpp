// poprand's generator vertices: one per tile, filling every run of the output mapped to that tile
// (run r, runLength[r] elements, starts at row-major index baseIndex[r]; the runs lie back to
// back in the regions of `out`) with the numbers of its elements' indices. The
// tile's elements are split evenly over its worker contexts. Philox blocks come from the Highway
// kernel; the maps to distributions are RandomReference.hpp's.
#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <poplar/Vertex.hpp>

#include "poprand/PoprandCodelets.hpp"
#include "poprand/kernels/PhiloxKernels.hpp"
#include "poprand/kernels/RandomReference.hpp"

namespace tessera::codelets::poprand {
namespace {

/// The kernel pointer is taken once, when the types register (never looked up per call).
PhiloxBlocksFn gPhiloxBlocks = nullptr;
DropoutFloatFn gDropoutFloat = nullptr;

/// Worker `workerId`'s contiguous share [begin, end) of n elements.
std::pair<std::size_t, std::size_t> workerRange(std::size_t n, unsigned workerId,
                                                unsigned workers) {
  return {n * workerId / workers, n * (workerId + 1) / workers};
}

/// Calls chunk(first, n, w) for the Philox blocks of counters [begin, end), a chunk at a time:
/// blocks first … first + n − 1, word k of block first + j in w[k][j]. A chunk never crosses a
/// wrap of the counter's low word (the kernel takes the high word as fixed).
constexpr std::size_t kBlocksPerChunk = 64;
template <class F>
void forEachBlockChunk(const StreamKey &key, std::uint64_t begin, std::uint64_t end, F &&chunk) {
  std::uint32_t w[4][kBlocksPerChunk];
  for (std::uint64_t first = begin; first < end;) {
    const std::uint64_t untilLowWraps = (std::uint64_t{1} << 32) - (first & 0xFFFFFFFFu);
    const std::size_t n = static_cast<std::size_t>(
        std::min<std::uint64_t>({kBlocksPerChunk, end - first, untilLowWraps}));
    gPhiloxBlocks(key, first, n, w[0], w[1], w[2], w[3]);
    chunk(first, n, w);
    first += n;
  }
}

/// Calls f(i, block) for each i in [begin, end), block being element (base + i)'s attempt-0 block.
template <class F>
void forEachBlock(const StreamKey &key, unsigned long long base, std::size_t begin, std::size_t end,
                  F &&f) {
  forEachBlockChunk(key, base + begin, base + end,
                    [&](std::uint64_t first, std::size_t n, const auto &w) {
                      for (std::size_t j = 0; j < n; ++j)
                        f(static_cast<std::size_t>(first - base) + j,
                          PhiloxBlock{w[0][j], w[1][j], w[2][j], w[3][j]});
                    });
}

/// Calls f(i, n) once for the whole segment [begin, end) of a run: for kernels that make their
/// own numbers from the elements' indices.
template <class F>
void wholeSegment(const StreamKey &, unsigned long long, std::size_t begin, std::size_t end,
                  F &&f) {
  f(begin, end - begin);
}

/// Consecutive elements' dropout words: words[k] belongs to element i + k of the walk.
struct DropoutWords {
  const std::uint32_t *words;
  std::size_t count;
};

/// Calls f(i, DropoutWords) over [begin, end) in chunks, word k of a chunk starting at i being
/// dropoutWord(key, base + i + k): blocks (base + i) / 4 are made a chunk at a time, each
/// block's four words serving four elements.
template <class F>
void forEachDropoutWord(const StreamKey &key, unsigned long long base, std::size_t begin,
                        std::size_t end, F &&f) {
  std::uint32_t words[4 * kBlocksPerChunk];
  const std::uint64_t start = base + begin, stop = base + end;
  forEachBlockChunk(key, start / 4, (stop - 1) / 4 + 1,
                    [&](std::uint64_t first, std::size_t n, const auto &w) {
                      const std::uint64_t index = std::max(start, first * 4);
                      const std::uint64_t chunkEnd = std::min(stop, (first + n) * 4);
                      const std::size_t count = static_cast<std::size_t>(chunkEnd - index);
                      for (std::size_t k = 0; k < count; ++k)
                        words[k] = w[(index + k) % 4][(index + k) / 4 - first];
                      f(static_cast<std::size_t>(index - base), DropoutWords{words, count});
                    });
}

StreamKey streamKey(const poplar::Input<poplar::Vector<unsigned>> &seed, unsigned seedModifier,
                    Stream stream) {
  return {seed[0], seed[1], seedModifier, stream};
}

/// Worker `workerId`'s share of all the elements of `groups`: regions of tile memory holding
/// runs of the output back to back, run r (`lengths[r]` elements, the runs in order through the
/// groups) beginning at row-major index bases[r]. Calls f(g, j, index, numbers) for element j of
/// group g, whose row-major index is `index`, with what `walk` (forEachBlock, forEachDropoutWord,
/// wholeSegment) makes for it; a walk may cover several consecutive elements of one run per call.
template <class Groups, class F, class Walk>
void forEachElement(const Groups &groups, const poplar::Vector<unsigned> &lengths,
                    const poplar::Vector<unsigned long long> &bases, const StreamKey &key,
                    unsigned workerId, unsigned workers, F &&f, Walk &&walk) {
  std::size_t total = 0;
  for (const auto &group : groups)
    total += group.size();
  const auto [begin, end] = workerRange(total, workerId, workers);
  std::size_t offset = 0, g = 0, inGroup = 0;
  for (std::size_t r = 0; r < lengths.size() && offset < end; ++r) {
    while (g < groups.size() && inGroup == groups[g].size()) {
      ++g;
      inGroup = 0;
    }
    const std::size_t n = lengths[r];
    const std::size_t lo = std::max(begin, offset), hi = std::min(end, offset + n);
    if (lo < hi)
      walk(key, bases[r], lo - offset, hi - offset,
           [&](std::size_t i, const auto &numbers) { f(g, inGroup + i, bases[r] + i, numbers); });
    offset += n;
    inGroup += n;
  }
}

/// Fields every generator vertex has (written out in each class: registration takes member
/// pointers of the class itself), and the loop over the worker's elements.
#define TESSERA_POPRAND_COMMON_FIELDS(T)                                                           \
  poplar::Output<poplar::VectorList<T>> out;                                                       \
  poplar::Input<poplar::Vector<unsigned>> seed;                                                    \
  poplar::Vector<unsigned> runLength;                                                              \
  poplar::Vector<unsigned long long> baseIndex;                                                    \
  unsigned seedModifier;                                                                           \
  std::uint64_t cycleEstimate() const {                                                            \
    std::uint64_t n = 0;                                                                           \
    for (const auto &run : out)                                                                    \
      n += run.size();                                                                             \
    return 40 + 10 * runLength.size() + 6 * n;                                                     \
  }                                                                                                \
  template <class F> void forMyElements(unsigned workerId, Stream stream, F &&f) {                 \
    forEachElement(out, runLength, baseIndex, streamKey(seed, seedModifier, stream), workerId,     \
                   numWorkers(), f, [](auto &&...a) { forEachBlock(a...); });                      \
  }

/// Uniform in [minVal, minVal + range) for float and half.
template <class T> class Uniform : public poplar::MultiVertex {
public:
  TESSERA_POPRAND_COMMON_FIELDS(T)
  float minVal;
  float range;

  void compute(unsigned workerId) {
    forMyElements(workerId, Stream::Uniform,
                  [&](std::size_t g, std::size_t j, [[maybe_unused]] unsigned long long index,
                      const PhiloxBlock &b) { out[g][j] = T(uniformFloat(b[0], minVal, range)); });
  }
};

/// Uniform integers in [minVal, minVal + range - 1], range in [1, 2^32].
class UniformInt : public poplar::MultiVertex {
public:
  TESSERA_POPRAND_COMMON_FIELDS(int)
  int minVal;
  unsigned long long range;

  void compute(unsigned workerId) {
    forMyElements(workerId, Stream::Uniform,
                  [&](std::size_t g, std::size_t j, [[maybe_unused]] unsigned long long index,
                      const PhiloxBlock &b) { out[g][j] = uniformInt(b[0], minVal, range); });
  }
};

/// Log-uniform in [lower, upper]; see logUniform in RandomReference.hpp.
template <class T> class LogUniform : public poplar::MultiVertex {
public:
  TESSERA_POPRAND_COMMON_FIELDS(T)
  float minLog;
  float rangeLog;
  float lower;
  float upper;

  void compute(unsigned workerId) {
    forMyElements(workerId, Stream::LogUniform,
                  [&](std::size_t g, std::size_t j, [[maybe_unused]] unsigned long long index,
                      const PhiloxBlock &b) {
                    out[g][j] = logUniform<T>(b[0], minLog, rangeLog, lower, upper);
                  });
  }
};

/// 1 with probability threshold / 2^32, else 0.
template <class T> class Bernoulli : public poplar::MultiVertex {
public:
  TESSERA_POPRAND_COMMON_FIELDS(T)
  unsigned long long threshold;

  void compute(unsigned workerId) {
    forMyElements(
        workerId, Stream::Bernoulli,
        [&](std::size_t g, std::size_t j, [[maybe_unused]] unsigned long long index,
            const PhiloxBlock &b) { out[g][j] = T(fires(b[0], threshold) ? 1.0f : 0.0f); });
  }
};

template <class T> class Normal : public poplar::MultiVertex {
public:
  TESSERA_POPRAND_COMMON_FIELDS(T)
  float mean;
  float stdDev;

  void compute(unsigned workerId) {
    forMyElements(workerId, Stream::Normal,
                  [&](std::size_t g, std::size_t j, [[maybe_unused]] unsigned long long index,
                      const PhiloxBlock &b) { out[g][j] = T(normalSample(b, mean, stdDev)); });
  }
};

template <class T> class TruncatedNormal : public poplar::MultiVertex {
public:
  TESSERA_POPRAND_COMMON_FIELDS(T)
  float mean;
  float stdDev;
  float alpha;

  void compute(unsigned workerId) {
    const StreamKey key = streamKey(seed, seedModifier, Stream::TruncatedNormal);
    forMyElements(workerId, Stream::TruncatedNormal,
                  [&](std::size_t g, std::size_t j, [[maybe_unused]] unsigned long long index,
                      const PhiloxBlock &b) {
                    const float z = truncatedStandardNormal(key, index, b, alpha);
                    out[g][j] = T(mean + stdDev * z);
                  });
  }
};

/// out = keep ? in * scale : 0, keep with probability threshold / 2^32 (dropoutWord's word).
template <class T> class Dropout : public poplar::MultiVertex {
public:
  TESSERA_POPRAND_COMMON_FIELDS(T)
  poplar::Input<poplar::VectorList<T>> in; ///< The same run sizes as out.
  unsigned long long threshold;
  float scale;

  void compute(unsigned workerId) {
    const StreamKey key = streamKey(seed, seedModifier, Stream::Dropout);
    if constexpr (std::is_same_v<T, float>) {
      // Float has a kernel that makes the words and applies them in vectors. A segment lies
      // inside one run, so its elements are consecutive in the group.
      forEachElement(
          out, runLength, baseIndex, key, workerId, numWorkers(),
          [&](std::size_t g, std::size_t j, unsigned long long index, std::size_t n) {
            gDropoutFloat(key, index, n, &in[g][j], &out[g][j], threshold, scale);
          },
          [](auto &&...a) { wholeSegment(a...); });
    } else {
      // A chunk of words lies inside one run, so its elements are consecutive in the group.
      forEachElement(
          out, runLength, baseIndex, key, workerId, numWorkers(),
          [&](std::size_t g, std::size_t j, unsigned long long, const DropoutWords &w) {
            T *o = &out[g][j];
            const T *x = &in[g][j];
            for (std::size_t k = 0; k < w.count; ++k)
              o[k] = fires(w.words[k], threshold) ? T(float(x[k]) * scale) : T(0.0f);
          },
          [](auto &&...a) { forEachDropoutWord(a...); });
    }
  }
};

#undef TESSERA_POPRAND_COMMON_FIELDS

template <class V> tessera::VertexTypeBuilder<V> common(const char *name) {
  tessera::VertexTypeBuilder<V> b(name);
  b.field("out", &V::out)
      .field("seed", &V::seed)
      .field("runLength", &V::runLength)
      .field("baseIndex", &V::baseIndex)
      .field("seedModifier", &V::seedModifier);
  return b;
}

template <class T> void registerLogUniform(const std::string &name) {
  common<LogUniform<T>>(name.c_str())
      .field("minLog", &LogUniform<T>::minLog)
      .field("rangeLog", &LogUniform<T>::rangeLog)
      .field("lower", &LogUniform<T>::lower)
      .field("upper", &LogUniform<T>::upper)
      .add();
}

template <class T> void registerFloatingPoint(const std::string &typeName) {
  auto name = [&](const char *base) { return std::string(base) + "<" + typeName + ">"; };
  common<Uniform<T>>(name("poprand::Uniform").c_str())
      .field("minVal", &Uniform<T>::minVal)
      .field("range", &Uniform<T>::range)
      .add();
  registerLogUniform<T>(name("poprand::LogUniform"));
  common<Bernoulli<T>>(name("poprand::Bernoulli").c_str())
      .field("threshold", &Bernoulli<T>::threshold)
      .add();
  common<Normal<T>>(name("poprand::Normal").c_str())
      .field("mean", &Normal<T>::mean)
      .field("stdDev", &Normal<T>::stdDev)
      .add();
  common<TruncatedNormal<T>>(name("poprand::TruncatedNormal").c_str())
      .field("mean", &TruncatedNormal<T>::mean)
      .field("stdDev", &TruncatedNormal<T>::stdDev)
      .field("alpha", &TruncatedNormal<T>::alpha)
      .add();
  common<Dropout<T>>(name("poprand::Dropout").c_str())
      .field("in", &Dropout<T>::in)
      .field("threshold", &Dropout<T>::threshold)
      .field("scale", &Dropout<T>::scale)
      .add();
}

} // namespace

void registerRandomVertices() {
  gPhiloxBlocks = philoxBlocksKernel();
  gDropoutFloat = dropoutFloatKernel();
  registerFloatingPoint<float>("float");
  registerFloatingPoint<poplar::half>("half");
  common<UniformInt>("poprand::Uniform<int>")
      .field("minVal", &UniformInt::minVal)
      .field("range", &UniformInt::range)
      .add();
  registerLogUniform<int>("poprand::LogUniform<int>");
  common<Bernoulli<int>>("poprand::Bernoulli<int>")
      .field("threshold", &Bernoulli<int>::threshold)
      .add();
}

} // namespace tessera::codelets::poprand
