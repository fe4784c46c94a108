#include "engine/HostIo.hpp"

#include <algorithm>
#include <string>

#include <poplar/exceptions.hpp>

#include "core/Suggest.hpp"

namespace poplar::engine {

HostIo::HostIo(const compiler::CompiledGraph &plan, TileMemory &memory)
    : plan_(plan), memory_(memory), streams_(plan.streams.size()) {}

unsigned HostIo::streamIndex(StringRef handle) const {
  for (unsigned i = 0; i < plan_.streams.size(); ++i)
    if (plan_.streams[i].handle == handle.view())
      return i;
  std::vector<std::string> names;
  for (const auto &s : plan_.streams)
    names.push_back(s.handle);
  throw stream_connection_error("no data stream with handle '" + handle.str() + "'" +
                                core::didYouMean(handle.str(), names));
}

void HostIo::connectFixed(StringRef handle, void *p) {
  const unsigned i = streamIndex(handle);
  if (!p && plan_.streams[i].bytesPerTransfer)
    throw stream_connection_error("connectStream '" + handle.str() + "': null host buffer");
  streams_[i] = {StreamBinding::Kind::Fixed, static_cast<unsigned char *>(p), 0, 0, {}};
}

void HostIo::connectRing(StringRef handle, void *begin, void *end) {
  const unsigned i = streamIndex(handle);
  const std::uint64_t transfer = plan_.streams[i].bytesPerTransfer;
  const auto size = static_cast<unsigned char *>(end) - static_cast<unsigned char *>(begin);
  if (!begin || size < 0 || (transfer && (size == 0 || size % transfer != 0)) ||
      (!transfer && size != 0))
    throw stream_connection_error("connectStream '" + handle.str() + "': the buffer holds " +
                                  std::to_string(std::max<std::ptrdiff_t>(size, 0)) +
                                  " bytes, which is not a whole number of " +
                                  std::to_string(transfer) + "-byte transfers");
  streams_[i] = {StreamBinding::Kind::Ring,
                 static_cast<unsigned char *>(begin),
                 static_cast<std::uint64_t>(size),
                 0,
                 {}};
}

void HostIo::connectCallback(StringRef handle, std::function<void(void *)> callback) {
  const unsigned i = streamIndex(handle);
  if (!callback)
    throw stream_connection_error("connectStreamToCallback '" + handle.str() + "': empty callback");
  streams_[i] = {StreamBinding::Kind::Callback, nullptr, 0, 0, std::move(callback)};
}

HostIo::StreamBinding &HostIo::binding(unsigned stream) {
  StreamBinding &b = streams_[stream];
  if (b.kind == StreamBinding::Kind::None)
    throw stream_connection_error("stream '" + plan_.streams[stream].handle +
                                  "' is used by the program but not connected; call "
                                  "Engine::connectStream or connectStreamToCallback first");
  return b;
}

/// Where the next transfer of a fixed or circular buffer lives.
unsigned char *HostIo::nextTransfer(StreamBinding &b, std::uint64_t bytes) {
  if (b.kind == StreamBinding::Kind::Fixed)
    return b.begin;
  unsigned char *p = b.begin + b.position;
  b.position = b.size ? (b.position + bytes) % b.size : 0;
  return p;
}

void HostIo::streamIn(unsigned index) {
  const auto &sc = plan_.streamCopies[index];
  StreamBinding &b = binding(sc.stream);
  if (b.kind == StreamBinding::Kind::Callback) {
    staging_.resize(sc.tensor.bytes);
    b.callback(staging_.data());
    memory_.scatter(sc.tensor, staging_.data());
  } else {
    memory_.scatter(sc.tensor, nextTransfer(b, sc.tensor.bytes));
  }
}

void HostIo::streamOut(unsigned index) {
  const auto &sc = plan_.streamCopies[index];
  StreamBinding &b = binding(sc.stream);
  if (b.kind == StreamBinding::Kind::Callback) {
    staging_.resize(sc.tensor.bytes);
    memory_.gather(sc.tensor, staging_.data());
    b.callback(staging_.data());
  } else {
    memory_.gather(sc.tensor, nextTransfer(b, sc.tensor.bytes));
  }
}

const compiler::TensorImage &HostIo::hostTensor(bool write, StringRef handle) const {
  const auto &list = write ? plan_.hostWrites : plan_.hostReads;
  const auto &other = write ? plan_.hostReads : plan_.hostWrites;
  const char *what = write ? "writeTensor" : "readTensor";
  for (const auto &[h, img] : list)
    if (h == handle.view())
      return img;
  for (const auto &[h, img] : other)
    if (h == handle.view())
      throw stream_connection_error(
          std::string(what) + ": '" + handle.str() + "' was registered with " +
          (write ? "createHostRead" : "createHostWrite") + " only; register it with " +
          (write ? "createHostWrite" : "createHostRead") + " too to " + (write ? "write" : "read") +
          " it");
  std::vector<std::string> names;
  for (const auto &[h, img] : list)
    names.push_back(h);
  throw stream_connection_error(std::string(what) + ": no tensor has handle '" + handle.str() +
                                "'" + core::didYouMean(handle.str(), names) +
                                " (register it with " +
                                (write ? "createHostWrite" : "createHostRead") + ")");
}

void HostIo::requireHostBuffer(const char *what, StringRef handle, const void *buf,
                               const void *bufEnd, std::uint64_t need) {
  const auto have =
      static_cast<const unsigned char *>(bufEnd) - static_cast<const unsigned char *>(buf);
  if ((!buf && need) || have < 0 || static_cast<std::uint64_t>(have) < need)
    throw stream_connection_error(std::string(what) + " '" + handle.str() +
                                  "': the host buffer holds " +
                                  std::to_string(std::max<std::ptrdiff_t>(have, 0)) +
                                  " bytes but the tensor needs " + std::to_string(need));
}

void HostIo::writeTensor(StringRef handle, const void *buf, const void *bufEnd) {
  const auto &img = hostTensor(true, handle);
  memory_.requireLoaded("writeTensor");
  requireHostBuffer("writeTensor", handle, buf, bufEnd, img.bytes);
  memory_.scatter(img, static_cast<const unsigned char *>(buf));
}

void HostIo::readTensor(StringRef handle, void *buf, void *bufEnd) {
  const auto &img = hostTensor(false, handle);
  memory_.requireLoaded("readTensor");
  requireHostBuffer("readTensor", handle, buf, bufEnd, img.bytes);
  memory_.gather(img, static_cast<unsigned char *>(buf));
}

} // namespace poplar::engine
