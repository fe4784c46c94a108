// A 64-bit content hash for cache keys (FNV-1a over each piece, with lengths, so that
// ("ab","c") and ("a","bc") differ).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace poplar::codelet {

class ContentHash {
public:
  /// Adds one piece of key material (its length is hashed too).
  void add(std::string_view bytes);
  std::uint64_t value() const { return state_; }
  /// 16 lower-case hex digits.
  std::string hex() const;

private:
  void mix(unsigned char byte) {
    state_ ^= byte;
    state_ *= 0x100000001b3ull;
  }
  std::uint64_t state_ = 0xcbf29ce484222325ull;
};

} // namespace poplar::codelet
