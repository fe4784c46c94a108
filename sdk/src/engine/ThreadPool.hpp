// A fork-join pool for running the tiles of one BSP phase in parallel.
#pragma once

#include <atomic>
#include <cstddef>
#include <thread>
#include <type_traits>
#include <vector>

namespace poplar::engine {

/// `parallelFor(n, fn)` calls fn(i) once for every i in [0, n), spread over the pool's threads
/// and the caller, and returns when all calls are done. Work is claimed in small chunks, so
/// which thread runs an item varies; callers keep results independent of that.
class ThreadPool {
public:
  /// `numThreads` counts the calling thread: 1 means everything runs on the caller.
  explicit ThreadPool(unsigned numThreads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  unsigned numThreads() const { return static_cast<unsigned>(workers_.size()) + 1; }

  template <class Fn> void parallelFor(std::size_t n, Fn &&fn) {
    if (n == 0)
      return;
    if (n == 1 || workers_.empty()) {
      for (std::size_t i = 0; i < n; ++i)
        fn(i);
      return;
    }
    using F = std::remove_reference_t<Fn>;
    run(n, const_cast<void *>(static_cast<const void *>(&fn)),
        [](void *f, std::size_t i) { (*static_cast<F *>(f))(i); });
  }

private:
  using Call = void (*)(void *, std::size_t);
  void run(std::size_t n, void *fn, Call call);
  void workerLoop();
  void drain();

  std::vector<std::thread> workers_;
  // Each counter the threads hammer gets its own cache line, away from the read-mostly job.
  alignas(64) std::atomic<std::uint64_t> generation_{0};
  alignas(64) std::atomic<unsigned> busy_{0};
  alignas(64) std::atomic<std::size_t> next_{0};
  alignas(64) std::size_t count_ = 0;
  std::size_t chunk_ = 1;
  void *fn_ = nullptr;
  Call call_ = nullptr;
  std::atomic<bool> stop_{false};
};

} // namespace poplar::engine
