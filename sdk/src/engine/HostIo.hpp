// The host's side of data movement: how each stream is connected, the stream copies the steps
// make, and Engine::writeTensor / readTensor.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <poplar/StringRef.hpp>

#include "compiler/CompiledGraph.hpp"
#include "engine/TileMemory.hpp"

namespace poplar::engine {

/// Stream bindings and host transfers for one compiled graph. Errors are
/// stream_connection_error naming the handle and what was expected (with the nearest handle
/// when one is unknown). `plan` and `memory` are borrowed and must outlive this object.
class HostIo {
public:
  HostIo(const compiler::CompiledGraph &plan, TileMemory &memory);

  /// Every transfer reads or writes the same `bytesPerTransfer` bytes at `p`.
  void connectFixed(StringRef handle, void *p);
  /// Transfers go round [begin, end), a whole number of transfers.
  void connectRing(StringRef handle, void *begin, void *end);
  /// Every transfer calls `callback` with a host buffer of one transfer.
  void connectCallback(StringRef handle, std::function<void(void *)> callback);

  /// StreamIn / StreamOut step for CompiledGraph::streamCopies[index].
  void streamIn(unsigned index);
  void streamOut(unsigned index);

  /// Engine::writeTensor / readTensor: [buf, bufEnd) must hold the whole tensor.
  void writeTensor(StringRef handle, const void *buf, const void *bufEnd);
  void readTensor(StringRef handle, void *buf, void *bufEnd);

private:
  /// How the host side of one stream is connected.
  struct StreamBinding {
    enum class Kind { None, Fixed, Ring, Callback } kind = Kind::None;
    unsigned char *begin = nullptr;
    std::uint64_t size = 0;
    std::uint64_t position = 0;
    std::function<void(void *)> callback;
  };

  unsigned streamIndex(StringRef handle) const;
  StreamBinding &binding(unsigned stream);
  unsigned char *nextTransfer(StreamBinding &b, std::uint64_t bytes);
  const compiler::TensorImage &hostTensor(bool write, StringRef handle) const;
  /// The bytes [buf, bufEnd) hold, checked against what tensor `handle` needs.
  static void requireHostBuffer(const char *what, StringRef handle, const void *buf,
                                const void *bufEnd, std::uint64_t need);

  const compiler::CompiledGraph &plan_;
  TileMemory &memory_;
  std::vector<StreamBinding> streams_;
  std::vector<unsigned char> staging_;
};

} // namespace poplar::engine
