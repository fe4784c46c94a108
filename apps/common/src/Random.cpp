#include "tessera/apps/Random.hpp"

#include <utility>

namespace tessera::apps {

std::uint64_t SplitMix64::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t SplitMix64::below(std::uint64_t bound) {
  // Reject the top partial range so every residue is equally likely.
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % bound);
  std::uint64_t x = next();
  while (x >= limit)
    x = next();
  return x % bound;
}

float SplitMix64::unitFloat() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }

std::uint64_t mixSeed(std::initializer_list<std::uint64_t> words) {
  // Feed each word through one SplitMix64 round so nearby counters land far apart.
  std::uint64_t h = 0x6a09e667f3bcc909ULL;
  for (std::uint64_t w : words) {
    SplitMix64 round(h ^ w);
    h = round.next();
  }
  return h;
}

void shuffle(std::span<std::uint32_t> values, SplitMix64 &rng) {
  for (std::size_t i = values.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng.below(i));
    std::swap(values[i - 1], values[j]);
  }
}

} // namespace tessera::apps
