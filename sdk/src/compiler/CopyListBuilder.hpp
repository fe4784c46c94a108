// Collects memcpy operations and groups them by destination tile.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <poplar/exceptions.hpp>

#include "compiler/CompiledGraph.hpp"

namespace poplar::compiler {

class CopyListBuilder {
public:
  /// Adds one copy. It extends the previous copy to the same tile when both its source and
  /// destination continue that copy's; otherwise, if it has the same size and sits one stride on
  /// from the previous copy's last row (in both source and destination), it becomes that copy's
  /// next row. The strides are set by the second row (a source stride of 0 is a broadcast).
  /// Where the merged op's size, row count or strides would not fit CopyOp's 32-bit fields, the
  /// copy starts an op of its own instead. Marks are kept per op (see build); they never change
  /// how copies merge. Throws graph_memory_allocation_error when the copy reaches beyond the
  /// 4 GiB of a tile that copies can address.
  void add(TileAddress src, TileAddress dst, std::uint64_t bytes, bool marked = false) {
    if (bytes == 0)
      return;
    checkAddressable(src, bytes);
    checkAddressable(dst, bytes);
    // Only a copy of a whole 4 GiB tile has a row too long for 32 bits: halves of it.
    constexpr std::uint64_t kMaxRow = std::numeric_limits<std::uint32_t>::max();
    while (bytes > kMaxRow) {
      constexpr std::uint64_t kPart = std::uint64_t(1) << 31;
      addRow(src, dst, kPart, marked);
      src.offset += kPart;
      dst.offset += kPart;
      bytes -= kPart;
    }
    addRow(src, dst, bytes, marked);
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

  /// The list, groups in increasing destination tile. With `marked`, it receives one bit per op
  /// of the list: whether any copy merged into that op was added marked. With `unmarkedParts`:
  /// the copies added unmarked that lie in marked ops (an op that merged marked and unmarked
  /// copies), group g to the same tile as the list's group g. So the list less its marked ops,
  /// plus `unmarkedParts`, makes exactly the unmarked copies.
  CopyList build(std::vector<bool> *marked = nullptr, CopyList *unmarkedParts = nullptr) {
    // Sized exactly, and each group freed once moved: a graph planned for a whole IPU has tens
    // of millions of copies, and growth slack or a second copy of them is gigabytes.
    std::size_t total = 0, totalParts = 0;
    for (const auto &[tile, group] : groups_) {
      total += group.ops.size();
      totalParts += group.unmarkedParts.size();
    }
    CopyList list;
    list.ops.reserve(total);
    list.groupBegin.reserve(groups_.size() + 1);
    if (marked) {
      marked->clear();
      marked->reserve(total);
    }
    if (unmarkedParts) {
      *unmarkedParts = {};
      unmarkedParts->ops.reserve(totalParts);
      unmarkedParts->groupBegin.reserve(groups_.size() + 1);
    }
    for (auto it = groups_.begin(); it != groups_.end(); it = groups_.erase(it)) {
      const Group &group = it->second;
      list.groupBegin.push_back(list.ops.size());
      for (const auto &op : group.ops) {
        list.ops.push_back(op);
        list.totalBytes += op.totalBytes();
      }
      if (marked)
        for (const auto mark : group.marks)
          marked->push_back(mark != Mark::None);
      if (unmarkedParts) {
        unmarkedParts->groupBegin.push_back(unmarkedParts->ops.size());
        for (const auto &op : group.unmarkedParts) {
          unmarkedParts->ops.push_back(op);
          unmarkedParts->totalBytes += op.totalBytes();
        }
      }
    }
    list.groupBegin.push_back(list.ops.size());
    if (unmarkedParts)
      unmarkedParts->groupBegin.push_back(unmarkedParts->ops.size());
    return list;
  }

private:
  /// Which of the copies merged into an op were added marked.
  enum class Mark : std::uint8_t { None, All, Some };

  struct Group {
    std::vector<CopyOp> ops;
    std::vector<Mark> marks; ///< Per op.
    /// The unmarked copies inside ops marked Some, as their own ops.
    std::vector<CopyOp> unmarkedParts;
  };

  static void checkAddressable(TileAddress at, std::uint64_t bytes) {
    if (at.offset > kMaxCopyTileBytes || bytes > kMaxCopyTileBytes - at.offset)
      throw graph_memory_allocation_error(
          "tile " + std::to_string(at.tile) + ": a copy reaches byte " +
          std::to_string(at.offset + bytes) + " of the tile's memory, but copies address at most " +
          std::to_string(kMaxCopyTileBytes) +
          " bytes (4 GiB) per tile; spread the tensors over more tiles");
  }

  static bool fitsStride(std::int64_t step) {
    return step >= std::numeric_limits<std::int32_t>::min() &&
           step <= std::numeric_limits<std::int32_t>::max();
  }

  /// Makes copy (src, dst, bytes) part of `last` if it continues it (see add).
  static bool merge(CopyOp &last, TileAddress src, TileAddress dst, std::uint64_t bytes) {
    if (last.src.tile != src.tile)
      return false;
    const auto srcStep = std::int64_t(src.offset) - std::int64_t(last.src.offset);
    const auto dstStep = std::int64_t(dst.offset) - std::int64_t(last.dst.offset);
    if (last.repeat == 1) {
      if (srcStep == std::int64_t(last.bytes) && dstStep == std::int64_t(last.bytes) &&
          last.bytes + bytes <= std::numeric_limits<std::uint32_t>::max()) {
        last.bytes += std::uint32_t(bytes);
        return true;
      }
      if (last.bytes == bytes && fitsStride(srcStep) && fitsStride(dstStep)) {
        last.srcStride = std::int32_t(srcStep);
        last.dstStride = std::int32_t(dstStep);
        last.repeat = 2;
        return true;
      }
      return false;
    }
    if (last.bytes == bytes && srcStep == std::int64_t(last.repeat) * last.srcStride &&
        dstStep == std::int64_t(last.repeat) * last.dstStride &&
        last.repeat < std::numeric_limits<std::uint32_t>::max()) {
      ++last.repeat;
      return true;
    }
    return false;
  }

  static CopyOp op(TileAddress src, TileAddress dst, std::uint64_t bytes) {
    return {{std::uint32_t(src.tile), std::uint32_t(src.offset)},
            {std::uint32_t(dst.tile), std::uint32_t(dst.offset)},
            std::uint32_t(bytes),
            1,
            0,
            0};
  }

  static void append(std::vector<CopyOp> &ops, TileAddress src, TileAddress dst,
                     std::uint64_t bytes) {
    if (ops.empty() || !merge(ops.back(), src, dst, bytes))
      ops.push_back(op(src, dst, bytes));
  }

  void addRow(TileAddress src, TileAddress dst, std::uint64_t bytes, bool marked) {
    auto &group = groups_[unsigned(dst.tile)];
    if (group.ops.empty()) {
      group.ops.push_back(op(src, dst, bytes));
      group.marks.push_back(marked ? Mark::All : Mark::None);
      return;
    }
    const CopyOp before = group.ops.back();
    if (!merge(group.ops.back(), src, dst, bytes)) {
      group.ops.push_back(op(src, dst, bytes));
      group.marks.push_back(marked ? Mark::All : Mark::None);
      return;
    }
    Mark &mark = group.marks.back();
    if (marked && mark == Mark::None) {
      group.unmarkedParts.push_back(before); // what the op held so far was all unmarked
      mark = Mark::Some;
    } else if (!marked && mark != Mark::None) {
      mark = Mark::Some;
      append(group.unmarkedParts, src, dst, bytes);
    }
  }

  std::map<unsigned, Group> groups_;
};

} // namespace poplar::compiler
