// The poprand generator, in plain scalar C++: Philox-4x32-10 plus the maps from its 32-bit words
// to each distribution. The vertices use these maps on every element (the Highway kernel only
// computes Philox blocks), and the tests use the whole file as the host reference, so device and
// host results agree bit for bit.
//
// Every element is a pure function of (key, seedModifier, stream, attempt, row-major index):
//   counter = { index low 32 bits, index high 32 bits, seedModifier, stream << 24 | attempt }
//   key     = { seed[0], seed[1] }
// so results do not depend on the tile mapping, the vertex split or the host thread count.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tessera::codelets::poprand {

/// Four 32-bit words of Philox output.
using PhiloxBlock = std::array<std::uint32_t, 4>;

inline constexpr std::uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
inline constexpr std::uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;

/// Philox-4x32 with 10 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
constexpr PhiloxBlock philox4x32_10(PhiloxBlock c, std::uint32_t k0, std::uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t{kPhiloxM0} * c[0];
    const std::uint64_t p1 = std::uint64_t{kPhiloxM1} * c[2];
    c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<std::uint32_t>(p1),
         static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<std::uint32_t>(p0)};
    k0 += kPhiloxW0;
    k1 += kPhiloxW1;
  }
  return c;
}

/// Which generator function a stream of numbers belongs to: different functions given the same
/// seed and seedModifier still produce unrelated numbers.
enum class Stream : std::uint32_t {
  Uniform = 1,
  Bernoulli = 2,
  Normal = 3,
  TruncatedNormal = 4,
  Dropout = 5,
  LogUniform = 6,
  SeedState = 0xFF,
};

/// Everything but the element index that selects a stream of blocks.
struct StreamKey {
  std::uint32_t seed0 = 0, seed1 = 0, seedModifier = 0;
  Stream stream = Stream::Uniform;
};

/// The top counter word: the stream in bits 24..31, the attempt (truncated normal) below.
constexpr std::uint32_t streamWord(Stream s, std::uint32_t attempt) {
  return (static_cast<std::uint32_t>(s) << 24) | (attempt & 0xFFFFFFu);
}

/// The block for element `index` (attempt 0 is what every distribution uses first).
constexpr PhiloxBlock elementBlock(const StreamKey &key, std::uint64_t index,
                                   std::uint32_t attempt = 0) {
  return philox4x32_10({static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32),
                        key.seedModifier, streamWord(key.stream, attempt)},
                       key.seed0, key.seed1);
}

/// Scalar reference of the Highway kernel: blocks for indices first, first+1, …, first+n-1,
/// word w of block i stored at words[w][i].
inline void philoxBlocksReference(const StreamKey &key, std::uint64_t first, std::size_t n,
                                  std::uint32_t *w0, std::uint32_t *w1, std::uint32_t *w2,
                                  std::uint32_t *w3) {
  for (std::size_t i = 0; i < n; ++i) {
    const PhiloxBlock b = elementBlock(key, first + i);
    w0[i] = b[0];
    w1[i] = b[1];
    w2[i] = b[2];
    w3[i] = b[3];
  }
}

// ---- from words to distributions -----------------------------------------------------------

/// A float in [0, 1) with 24 random bits.
inline float unitInterval(std::uint32_t w) { return static_cast<float>(w >> 8) * 0x1p-24f; }
/// A float in (0, 1] with 24 random bits (safe to take the log of).
inline float unitIntervalOpenAtZero(std::uint32_t w) {
  return static_cast<float>((w >> 8) + 1) * 0x1p-24f;
}

/// Uniform float: minVal + range * u, u in [0, 1).
inline float uniformFloat(std::uint32_t w, float minVal, float range) {
  return minVal + range * unitInterval(w);
}

/// Uniform integer in [minVal, minVal + range - 1] by multiply-shift; range in [1, 2^32]. Exactly
/// uniform when range is a power of two; otherwise biased by at most range / 2^32.
inline int uniformInt(std::uint32_t w, int minVal, unsigned long long range) {
  const long long offset =
      static_cast<long long>((static_cast<unsigned long long>(w) * range) >> 32);
  return static_cast<int>(static_cast<long long>(minVal) + offset);
}

/// Log-uniform: exp(minLog + rangeLog * u) (natural logs of the bounds), rounded to T (to nearest
/// for integers) and clamped to [lower, upper], the bounds squeezed to values T represents.
template <class T>
T logUniform(std::uint32_t w, float minLog, float rangeLog, float lower, float upper) {
  const float x = std::exp(minLog + rangeLog * unitInterval(w));
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::fmin(std::fmax(std::nearbyint(x), lower), upper));
  } else {
    const T t = T(x);
    const float f = static_cast<float>(t);
    return f < lower ? T(lower) : f > upper ? T(upper) : t;
  }
}

/// The 64-bit threshold a word is compared with for an event of probability p in [0, 1]:
/// P(w < threshold) == threshold / 2^32, so p == 1 always fires and p == 0 never does.
inline unsigned long long probabilityThreshold(double p) {
  const double scaled = std::nearbyint(p * 4294967296.0);
  if (!(scaled > 0.0))
    return 0;
  if (scaled >= 4294967296.0)
    return 4294967296ull;
  return static_cast<unsigned long long>(scaled);
}
inline bool fires(std::uint32_t w, unsigned long long threshold) { return w < threshold; }

/// Dropout's word for element `index`: a keep/drop decision needs one 32-bit word, so four
/// consecutive elements share a block — word index % 4 of block index / 4 (a quarter of the
/// Philox work of one block per element).
inline std::uint32_t dropoutWord(const StreamKey &key, std::uint64_t index) {
  return elementBlock(key, index / 4)[index % 4];
}

/// Box-Muller: two independent standard normals from two words.
inline void standardNormalPair(std::uint32_t wa, std::uint32_t wb, float &z0, float &z1) {
  const float r = std::sqrt(-2.0f * std::log(unitIntervalOpenAtZero(wa)));
  const float theta = 6.28318530717958647692f * unitInterval(wb);
  z0 = r * std::cos(theta);
  z1 = r * std::sin(theta);
}

/// mean + stdDev * z, z standard normal from words 0 and 1 of the element's block (the first
/// Box-Muller output; the second is not needed, so its sine is not computed).
inline float normalSample(const PhiloxBlock &b, float mean, float stdDev) {
  const float r = std::sqrt(-2.0f * std::log(unitIntervalOpenAtZero(b[0])));
  const float theta = 6.28318530717958647692f * unitInterval(b[1]);
  return mean + stdDev * (r * std::cos(theta));
}

/// Attempts (blocks) the truncated normal tries before its fallback; each gives 4 candidates.
inline constexpr std::uint32_t kTruncatedNormalAttempts = 8;

/// A standard normal conditioned on |z| <= alpha, by rejection: the candidates are the four
/// Box-Muller normals of the blocks for attempts 0, 1, …, in order; the first inside the bounds
/// wins. If all 4 * kTruncatedNormalAttempts are outside (probability < 1e-6 for alpha >= 0.5),
/// the result is uniform in [-alpha, alpha] from word 0 of attempt 0. `first` is attempt 0's
/// block (already computed by the caller); later attempts are computed here.
inline float truncatedStandardNormal(const StreamKey &key, std::uint64_t index,
                                     const PhiloxBlock &first, float alpha) {
  PhiloxBlock b = first;
  for (std::uint32_t attempt = 0; attempt < kTruncatedNormalAttempts; ++attempt) {
    if (attempt != 0)
      b = elementBlock(key, index, attempt);
    float z[4];
    standardNormalPair(b[0], b[1], z[0], z[1]);
    standardNormalPair(b[2], b[3], z[2], z[3]);
    for (float candidate : z)
      if (std::fabs(candidate) <= alpha)
        return candidate;
  }
  return uniformFloat(first[0], -alpha, 2.0f * alpha);
}

/// The new seed state setSeed derives from a master seed and a seed modifier.
inline std::array<std::uint32_t, 2>
seedStateFromMaster(std::uint32_t master0, std::uint32_t master1, std::uint32_t seedModifier) {
  const PhiloxBlock b =
      philox4x32_10({0, 0, seedModifier, streamWord(Stream::SeedState, 0)}, master0, master1);
  return {b[0], b[1]};
}

/// The seed state after one seedless generator call: a 64-bit increment.
inline std::array<std::uint32_t, 2> advancedSeedState(std::uint32_t s0, std::uint32_t s1) {
  return {s0 + 1, s0 == 0xFFFFFFFFu ? s1 + 1 : s1};
}

} // namespace tessera::codelets::poprand
