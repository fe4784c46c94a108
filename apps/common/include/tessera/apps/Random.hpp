// Host-side random numbers for data pipelines. The standard library's distributions are
// implementation-defined, so shuffles and augmentations built on them could differ between
// compilers; these helpers are fully specified, so a (seed, epoch, index) always gives the same
// numbers everywhere, whatever thread computes them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>

namespace tessera::apps {

/// SplitMix64 (Steele, Lea, Flood 2014): 64 bits of state, good enough statistics for shuffling
/// and augmentation, and trivially seedable from a hash of several counters.
class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  /// The next 64 random bits.
  std::uint64_t next();
  /// A uniform integer in [0, bound); bound must be > 0. Unbiased (rejection sampling).
  std::uint64_t below(std::uint64_t bound);
  /// A uniform float in [0, 1) with 24 random bits.
  float unitFloat();

  std::uint64_t state() const { return state_; }

private:
  std::uint64_t state_;
};

/// Hashes several counters (seed, epoch, index, purpose…) into one well-mixed seed.
std::uint64_t mixSeed(std::initializer_list<std::uint64_t> words);

/// Fisher–Yates shuffle of `values` driven by `rng`.
void shuffle(std::span<std::uint32_t> values, SplitMix64 &rng);

} // namespace tessera::apps
