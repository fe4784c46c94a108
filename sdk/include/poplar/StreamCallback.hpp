// Host-side objects that produce or consume the data of a stream, one transfer at a time.
#pragma once

namespace poplar {

/// Connected with `Engine::connectStreamToCallback(handle, std::unique_ptr<StreamCallback>)`.
///
/// Host-to-device stream: when a transfer needs data the engine uses what an earlier
/// `prefetch` provided, or else calls `fetch` to fill the buffer there and then; either way
/// `complete` follows once the data has been copied to the device. With the engine option
/// `exchange.enablePrefetch` (the default), the engine asks for the next transfer's data with
/// `prefetch` as soon as a transfer completes; `prefetch` may decline with
/// `Result::NotAvailable`. Data prefetched but never used (the stream is connected to another
/// callback, or the engine goes away) is handed back with `invalidatePrefetched`.
///
/// Device-to-host stream: `fetch` receives each transfer's data (valid during the call), then
/// `complete` is called. `prefetch` is never called.
///
/// An exception thrown by any of these stops the run with a `poplar::runtime_error` naming the
/// stream.
class StreamCallback {
public:
  enum class Result { Success, NotAvailable };

  virtual ~StreamCallback() = default;
  /// Fill `p` (one transfer) ahead of time, or return NotAvailable to be asked with fetch later.
  virtual Result prefetch(void *p) = 0;
  /// Fill `p` now (host-to-device), or read it (device-to-host).
  virtual void fetch(void *p) = 0;
  /// The transfer whose data came from the last prefetch or fetch has finished.
  virtual void complete() = 0;
  /// The data of the last successful prefetch will not be used.
  virtual void invalidatePrefetched() {}
};

/// A StreamCallback for code written as one function per transfer: never prefetches, and
/// `fetch` calls `operator()`.
class LegacyStreamCallback : public StreamCallback {
public:
  Result prefetch(void *) final { return Result::NotAvailable; }
  void fetch(void *p) final { (*this)(p); }
  void complete() final {}
  virtual void operator()(void *p) = 0;
};

} // namespace poplar
