#include "codelet/ContentHash.hpp"

namespace poplar::codelet {

void ContentHash::add(std::string_view bytes) {
  std::uint64_t n = bytes.size();
  for (int i = 0; i < 8; ++i)
    mix(static_cast<unsigned char>(n >> (8 * i)));
  for (char c : bytes)
    mix(static_cast<unsigned char>(c));
}

std::string ContentHash::hex() const {
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 0; i < 16; ++i)
    s[15 - i] = digits[(state_ >> (4 * i)) & 0xf];
  return s;
}

} // namespace poplar::codelet
