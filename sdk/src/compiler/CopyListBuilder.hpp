// Collects memcpy operations and groups them by destination tile.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "compiler/CompiledGraph.hpp"

namespace poplar::compiler {

class CopyListBuilder {
public:
  /// Adds one copy. It extends the previous copy to the same tile when both its source and
  /// destination continue that copy's; otherwise, if it has the same size and sits one stride on
  /// from the previous copy's last row (in both source and destination), it becomes that copy's
  /// next row. The strides are set by the second row (a source stride of 0 is a broadcast).
  void add(TileAddress src, TileAddress dst, std::uint64_t bytes) {
    if (bytes == 0)
      return;
    auto &group = groups_[dst.tile];
    if (!group.empty() && group.back().src.tile == src.tile) {
      CopyOp &last = group.back();
      const auto srcStep = std::int64_t(src.offset) - std::int64_t(last.src.offset);
      const auto dstStep = std::int64_t(dst.offset) - std::int64_t(last.dst.offset);
      if (last.repeat == 1) {
        if (srcStep == std::int64_t(last.bytes) && dstStep == std::int64_t(last.bytes)) {
          last.bytes += bytes;
          return;
        }
        if (last.bytes == bytes) {
          last.srcStride = srcStep;
          last.dstStride = dstStep;
          last.repeat = 2;
          return;
        }
      } else if (last.bytes == bytes && srcStep == std::int64_t(last.repeat) * last.srcStride &&
                 dstStep == std::int64_t(last.repeat) * last.dstStride) {
        ++last.repeat;
        return;
      }
    }
    group.push_back({src, dst, bytes, 1, 0, 0});
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
    // Sized exactly, and each group freed once moved: a graph planned for a whole IPU has tens
    // of millions of copies, and growth slack or a second copy of them is gigabytes.
    std::size_t total = 0;
    for (const auto &[tile, ops] : groups_)
      total += ops.size();
    CopyList list;
    list.ops.reserve(total);
    list.groupBegin.reserve(groups_.size() + 1);
    for (auto it = groups_.begin(); it != groups_.end(); it = groups_.erase(it)) {
      list.groupBegin.push_back(list.ops.size());
      for (const auto &op : it->second) {
        list.ops.push_back(op);
        list.totalBytes += op.totalBytes();
      }
    }
    list.groupBegin.push_back(list.ops.size());
    return list;
  }

private:
  std::map<unsigned, std::vector<CopyOp>> groups_;
};

} // namespace poplar::compiler
