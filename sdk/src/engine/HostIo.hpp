// The host's side of data movement: how each stream is connected, the stream copies the steps
// make, and Engine::writeTensor / readTensor.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include <poplar/StreamCallback.hpp>
#include <poplar/StringRef.hpp>

#include "compiler/CompiledGraph.hpp"
#include "engine/TileMemory.hpp"

namespace poplar::engine {

/// Stream bindings and host transfers for one compiled graph. Errors are
/// stream_connection_error naming the handle and what was expected (with the nearest handle
/// when one is unknown). `plan` and `memory` are borrowed and must outlive this object.
class HostIo {
public:
  /// `prefetch`: ask StreamCallbacks for data ahead of time (exchange.enablePrefetch).
  HostIo(const compiler::CompiledGraph &plan, TileMemory &memory, bool prefetch);
  /// Hands prefetched data that was never used back to its callback.
  ~HostIo();
  HostIo(const HostIo &) = delete;
  HostIo &operator=(const HostIo &) = delete;

  /// Every transfer reads or writes the same `bytesPerTransfer` bytes at `p`.
  void connectFixed(StringRef handle, void *p);
  /// Transfers go round [begin, end), a whole number of transfers.
  void connectRing(StringRef handle, void *begin, void *end);
  /// Every transfer calls `callback` with a host buffer of one transfer.
  void connectCallback(StringRef handle, std::function<void(void *)> callback);
  /// Every transfer goes through `callback` (see <poplar/StreamCallback.hpp>).
  void connectCallback(StringRef handle, std::unique_ptr<StreamCallback> callback);

  /// StreamIn / StreamOut step for CompiledGraph::streamCopies[index].
  void streamIn(unsigned index);
  void streamOut(unsigned index);

  /// Engine::writeTensor / readTensor: [buf, bufEnd) must hold the whole tensor.
  void writeTensor(StringRef handle, const void *buf, const void *bufEnd);
  void readTensor(StringRef handle, void *buf, void *bufEnd);

  /// Remote buffers (this replica's): every one zeroed, allocated on first load (the pages are
  /// only touched when used). Throws runtime_error naming a buffer the host cannot allocate.
  void resetRemoteBuffers();
  /// RemoteIn / RemoteOut step for CompiledGraph::remoteCopies[index]. Every offset is checked
  /// before any row moves: one out of range throws application_runtime_error naming the copy,
  /// the buffer, the offset and the rows there are.
  void remoteIn(unsigned index);
  void remoteOut(unsigned index);
  /// Engine::copyToRemoteBuffer / copyFromRemoteBuffer: one row between the host and buffer
  /// `handle`. An unknown handle throws stream_connection_error, a row that does not exist
  /// index_error; both name the handle.
  void writeRemoteRow(StringRef handle, std::uint64_t row, const void *src);
  void readRemoteRow(StringRef handle, std::uint64_t row, void *dst);

private:
  /// How the host side of one stream is connected.
  struct StreamBinding {
    enum class Kind { None, Fixed, Ring, Callback } kind = Kind::None;
    unsigned char *begin = nullptr;
    std::uint64_t size = 0;
    std::uint64_t position = 0;
    std::unique_ptr<StreamCallback> callback;
    /// The next transfer's data, when the callback's prefetch supplied it.
    std::vector<unsigned char> prefetched;
    bool hasPrefetched = false;
  };

  /// Replaces stream `i`'s binding, handing unused prefetched data back first.
  void bind(unsigned i, StreamBinding binding);
  /// Calls `what` of stream `stream`'s callback; an exception becomes a runtime_error naming
  /// the stream.
  template <class Fn> auto guarded(unsigned stream, const char *what, Fn &&fn);
  unsigned streamIndex(StringRef handle) const;
  StreamBinding &binding(unsigned stream);
  unsigned char *nextTransfer(StreamBinding &b, std::uint64_t bytes);
  const compiler::TensorImage &hostTensor(bool write, StringRef handle) const;
  /// The bytes [buf, bufEnd) hold, checked against what tensor `handle` needs.
  static void requireHostBuffer(const char *what, StringRef handle, const void *buf,
                                const void *bufEnd, std::uint64_t need);

  /// Row `row` of remote buffer `handle` and its size in `bytes`, checked as writeRemoteRow
  /// says (`what` names the call for the messages).
  unsigned char *remoteRow(const char *what, StringRef handle, std::uint64_t row,
                           std::uint64_t &bytes);
  /// Checks every row index a remote copy names and returns them in order.
  const std::vector<std::uint64_t> &remoteRows(const compiler::RemoteCopyPlan &copy, bool toDevice);

  struct FreeBytes {
    void operator()(unsigned char *p) const { std::free(p); }
  };

  const compiler::CompiledGraph &plan_;
  TileMemory &memory_;
  std::vector<StreamBinding> streams_;
  /// Per CompiledGraph::remoteBuffers entry: its rows (null until the first load).
  std::vector<std::unique_ptr<unsigned char, FreeBytes>> remote_;
  std::vector<std::uint64_t> rows_; ///< remoteRows' result.
  std::vector<unsigned char> staging_;
  bool prefetch_;
};

} // namespace poplar::engine
