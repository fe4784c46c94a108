// Reference for popops/CircBuf.hpp: a circular buffer of row-major entries.
#pragma once

#include <cstddef>
#include <vector>

namespace reference {

/// `size` entries; the index starts at 0. add() first advances the index modulo size, then
/// stores the entry there; prev(i) is the entry at (index - i) mod size, the one added i adds
/// before the latest. Entries never written read as zeros.
class CircBuf {
public:
  CircBuf(std::size_t size, std::size_t elements)
      : entries_(size, std::vector<double>(elements, 0.0)) {}

  void add(const std::vector<double> &entry) {
    index_ = (index_ + 1) % entries_.size();
    entries_[index_] = entry;
  }
  std::vector<double> prev(std::size_t i) const {
    return entries_[(index_ + entries_.size() - i) % entries_.size()];
  }
  std::size_t index() const { return index_; }

private:
  std::vector<std::vector<double>> entries_;
  std::size_t index_ = 0;
};

} // namespace reference
