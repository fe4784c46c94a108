#include "engine/HostIo.hpp"

#include <algorithm>
#include <string>

#include <poplar/exceptions.hpp>

#include "core/Suggest.hpp"

namespace poplar::engine {

namespace {

/// connectStreamToCallback(handle, std::function): a callback that never prefetches.
class FunctionCallback final : public StreamCallback {
public:
  explicit FunctionCallback(std::function<void(void *)> f) : f_(std::move(f)) {}
  Result prefetch(void *) override { return Result::NotAvailable; }
  void fetch(void *p) override { f_(p); }
  void complete() override {}

private:
  std::function<void(void *)> f_;
};

} // namespace

HostIo::HostIo(const compiler::CompiledGraph &plan, TileMemory &memory, bool prefetch)
    : plan_(plan), memory_(memory), streams_(plan.streams.size()), prefetch_(prefetch) {}

HostIo::~HostIo() {
  for (auto &b : streams_)
    if (b.hasPrefetched) {
      try {
        b.callback->invalidatePrefetched();
      } catch (...) { // a destructor must not throw; the engine is going away regardless
      }
    }
}

template <class Fn> auto HostIo::guarded(unsigned stream, const char *what, Fn &&fn) {
  try {
    return fn();
  } catch (const std::exception &e) {
    throw runtime_error("stream '" + plan_.streams[stream].handle + "': its callback's " + what +
                        " threw: " + e.what());
  } catch (...) {
    throw runtime_error("stream '" + plan_.streams[stream].handle + "': its callback's " + what +
                        " threw a non-standard exception");
  }
}

void HostIo::bind(unsigned i, StreamBinding binding) {
  StreamBinding &old = streams_[i];
  if (old.hasPrefetched) {
    old.hasPrefetched = false;
    guarded(i, "invalidatePrefetched", [&] { old.callback->invalidatePrefetched(); });
  }
  old = std::move(binding);
}

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
  StreamBinding b;
  b.kind = StreamBinding::Kind::Fixed;
  b.begin = static_cast<unsigned char *>(p);
  bind(i, std::move(b));
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
  StreamBinding b;
  b.kind = StreamBinding::Kind::Ring;
  b.begin = static_cast<unsigned char *>(begin);
  b.size = static_cast<std::uint64_t>(size);
  bind(i, std::move(b));
}

void HostIo::connectCallback(StringRef handle, std::function<void(void *)> callback) {
  streamIndex(handle); // an unknown handle is named before an empty callback
  if (!callback)
    throw stream_connection_error("connectStreamToCallback '" + handle.str() + "': empty callback");
  connectCallback(handle, std::make_unique<FunctionCallback>(std::move(callback)));
}

void HostIo::connectCallback(StringRef handle, std::unique_ptr<StreamCallback> callback) {
  const unsigned i = streamIndex(handle);
  if (!callback)
    throw stream_connection_error("connectStreamToCallback '" + handle.str() +
                                  "': null StreamCallback");
  StreamBinding b;
  b.kind = StreamBinding::Kind::Callback;
  b.callback = std::move(callback);
  bind(i, std::move(b));
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
  if (b.kind != StreamBinding::Kind::Callback) {
    memory_.scatter(sc.tensor, nextTransfer(b, sc.tensor.bytes));
    return;
  }
  StreamCallback &cb = *b.callback;
  if (b.hasPrefetched) {
    b.hasPrefetched = false;
    memory_.scatter(sc.tensor, b.prefetched.data());
  } else {
    staging_.resize(sc.tensor.bytes);
    guarded(sc.stream, "fetch", [&] { cb.fetch(staging_.data()); });
    memory_.scatter(sc.tensor, staging_.data());
  }
  guarded(sc.stream, "complete", [&] { cb.complete(); });
  if (!prefetch_)
    return;
  // Every transfer of a stream has the same size: ask for the next one now, so a callback that
  // can produce data ahead of time does it while the device computes.
  b.prefetched.resize(plan_.streams[sc.stream].bytesPerTransfer);
  b.hasPrefetched = guarded(sc.stream, "prefetch", [&] {
                      return cb.prefetch(b.prefetched.data());
                    }) == StreamCallback::Result::Success;
}

void HostIo::streamOut(unsigned index) {
  const auto &sc = plan_.streamCopies[index];
  StreamBinding &b = binding(sc.stream);
  if (b.kind != StreamBinding::Kind::Callback) {
    memory_.gather(sc.tensor, nextTransfer(b, sc.tensor.bytes));
    return;
  }
  staging_.resize(sc.tensor.bytes);
  memory_.gather(sc.tensor, staging_.data());
  guarded(sc.stream, "fetch", [&] { b.callback->fetch(staging_.data()); });
  guarded(sc.stream, "complete", [&] { b.callback->complete(); });
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
