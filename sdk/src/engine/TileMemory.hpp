// The host memory that stands in for the tiles' SRAM: one arena per tile, the vertex objects
// built in it at load, and the call table run() walks.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "compiler/CompiledGraph.hpp"

namespace poplar::engine {

/// A vertex call as `run()` sees it: the object and the function, nothing to look up.
struct RuntimeCall {
  void *object;
  bool (*compute)(void *, unsigned);
  unsigned workers;
  unsigned objectIndex; ///< Into CompiledGraph::vertexObjects (for error messages).
};

/// One compute set's calls, tile by tile in the order of ComputeSetPlan::tiles.
struct RuntimeComputeSet {
  std::vector<RuntimeCall> calls;
  std::vector<std::size_t> tileBegin; ///< Per TileWork, into calls; plus calls.size().
};

/// Tile memory for one compiled graph. `load` allocates the arenas (CompiledGraph::tileBytes,
/// zeroed, page aligned), writes the initial data and constructs every vertex object with its
/// pointer and value patches; the objects are destroyed on the next `load` or with this object.
/// `plan` is borrowed and must outlive this object.
class TileMemory {
public:
  explicit TileMemory(const compiler::CompiledGraph &plan) : plan_(plan) {}
  ~TileMemory() { destroyObjects(); }
  TileMemory(const TileMemory &) = delete;
  TileMemory &operator=(const TileMemory &) = delete;

  /// Throws runtime_error when the host cannot allocate the arenas.
  void load();
  bool loaded() const { return loaded_; }
  /// Throws tensor_io_state_error naming `what` unless loaded.
  void requireLoaded(const char *what) const;

  unsigned char *address(const compiler::TileAddress &a) const {
    return tileBase_[a.tile] + a.offset;
  }
  unsigned char *address(const compiler::CopyAddress &a) const {
    return tileBase_[a.tile] + a.offset;
  }
  /// Tensor bytes between tile memory and a host image of `img.bytes` bytes.
  void gather(const compiler::TensorImage &img, unsigned char *host) const {
    for (const auto &p : img.pieces)
      std::memcpy(host + p.hostOffset, address(p.at), p.bytes);
  }
  void scatter(const compiler::TensorImage &img, const unsigned char *host) const {
    for (const auto &p : img.pieces)
      std::memcpy(address(p.at), host + p.hostOffset, p.bytes);
  }
  void copy(const compiler::CopyOp &op) const {
    unsigned char *dst = address(op.dst);
    const unsigned char *src = address(op.src);
    if (op.repeat == 1) {
      std::memmove(dst, src, op.bytes);
      return;
    }
    // Rows in order, each as its own copy would have been.
    for (std::uint32_t r = 0; r < op.repeat; ++r, dst += op.dstStride, src += op.srcStride)
      std::memmove(dst, src, op.bytes);
  }

  /// Per compute set of the plan, its calls (valid once loaded).
  const std::vector<RuntimeComputeSet> &computeSets() const { return computeSets_; }
  /// Per vertex object, its type's cycleEstimate() evaluated at load.
  const std::vector<std::optional<std::uint64_t>> &typeCycleEstimates() const {
    return typeCycleEstimates_;
  }

private:
  /// Returns the arenas' pages to the system.
  struct Unmap {
    Unmap() : bytes(0) {} // (not a member initializer: unique_ptr needs it before ~TileMemory)
    explicit Unmap(std::size_t size) : bytes(size) {}
    std::size_t bytes;
    void operator()(unsigned char *p) const;
  };
  void destroyObjects();

  const compiler::CompiledGraph &plan_;
  std::unique_ptr<unsigned char, Unmap> memory_;
  std::vector<unsigned char *> tileBase_;
  bool loaded_ = false;
  std::vector<RuntimeComputeSet> computeSets_;
  std::vector<std::optional<std::uint64_t>> typeCycleEstimates_;
};

} // namespace poplar::engine
