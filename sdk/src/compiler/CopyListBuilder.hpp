// Collects memcpy operations and groups them by destination tile.
#pragma once

#include <map>
#include <vector>

#include "compiler/CompiledGraph.hpp"

namespace poplar::compiler {

class CopyListBuilder {
public:
  /// Adds one copy, merging it into the previous copy to the same tile when both continue, or
  /// when it repeats the previous copy's source right after its destination (a broadcast).
  void add(TileAddress src, TileAddress dst, std::uint64_t bytes) {
    if (bytes == 0)
      return;
    auto &group = groups_[dst.tile];
    if (!group.empty()) {
      CopyOp &last = group.back();
      const bool sameSourceTile = last.src.tile == src.tile;
      const bool dstFollows = last.dst.offset + last.totalBytes() == dst.offset;
      if (sameSourceTile && dstFollows && last.repeat == 1 &&
          last.src.offset + last.bytes == src.offset) {
        last.bytes += bytes;
        return;
      }
      if (sameSourceTile && dstFollows && last.src.offset == src.offset && last.bytes == bytes) {
        ++last.repeat;
        return;
      }
    }
    group.push_back({src, dst, bytes, 1});
  }

  /// Adds the copies that move tensor image `from` onto `to` (same byte size).
  void addTensorCopy(const TensorImage &from, const TensorImage &to) {
    std::size_t i = 0, j = 0;
    std::uint64_t offI = 0, offJ = 0; // bytes consumed within the current pieces
    while (i < from.pieces.size() && j < to.pieces.size()) {
      const auto &a = from.pieces[i];
      const auto &b = to.pieces[j];
      const std::uint64_t n = std::min(a.bytes - offI, b.bytes - offJ);
      add({a.at.tile, a.at.offset + offI}, {b.at.tile, b.at.offset + offJ}, n);
      offI += n;
      offJ += n;
      if (offI == a.bytes) {
        ++i;
        offI = 0;
      }
      if (offJ == b.bytes) {
        ++j;
        offJ = 0;
      }
    }
  }

  CopyList build() {
    CopyList list;
    for (auto &[tile, ops] : groups_) {
      list.groupBegin.push_back(list.ops.size());
      for (const auto &op : ops) {
        list.ops.push_back(op);
        list.totalBytes += op.totalBytes();
      }
    }
    list.groupBegin.push_back(list.ops.size());
    groups_.clear();
    return list;
  }

private:
  std::map<unsigned, std::vector<CopyOp>> groups_;
};

} // namespace poplar::compiler
