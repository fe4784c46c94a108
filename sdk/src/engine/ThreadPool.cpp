#include "engine/ThreadPool.hpp"

#include "engine/TileFloatMode.hpp"

#include <algorithm>

namespace poplar::engine {

namespace {
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
} // namespace

ThreadPool::ThreadPool(unsigned numThreads) {
  for (unsigned i = 1; i < numThreads; ++i)
    workers_.emplace_back([this] {
      // The workers only ever run tile code.
      enterTileFloatMode();
      workerLoop();
    });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  generation_.fetch_add(1);
  generation_.notify_all();
  for (auto &t : workers_)
    t.join();
}

void ThreadPool::drain() {
  for (;;) {
    const std::size_t begin = next_.fetch_add(chunk_, std::memory_order_relaxed);
    if (begin >= count_)
      return;
    const std::size_t end = std::min(count_, begin + chunk_);
    for (std::size_t i = begin; i < end; ++i)
      call_(fn_, i);
  }
}

void ThreadPool::run(std::size_t n, void *fn, Call call) {
  fn_ = fn;
  call_ = call;
  count_ = n;
  // Claim items in chunks (about 8 per thread) so threads rarely contend on the counter, while
  // uneven tiles still balance out.
  chunk_ = std::max<std::size_t>(1, n / (8 * numThreads()));
  next_.store(0, std::memory_order_relaxed);
  busy_.store(static_cast<unsigned>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  drain();
  // Wait for the workers to finish their last items.
  for (int spin = 0; busy_.load(std::memory_order_acquire) != 0; ++spin) {
    if (spin < 4096) {
      cpuRelax();
    } else {
      unsigned b = busy_.load(std::memory_order_acquire);
      if (b != 0)
        busy_.wait(b, std::memory_order_acquire);
    }
  }
}

void ThreadPool::workerLoop() {
  std::uint64_t seen = 0;
  for (;;) {
    // Spin briefly (phases follow each other quickly), then sleep until the next phase.
    std::uint64_t g;
    for (int spin = 0;; ++spin) {
      g = generation_.load(std::memory_order_acquire);
      if (g != seen)
        break;
      if (spin < 4096)
        cpuRelax();
      else
        generation_.wait(seen, std::memory_order_acquire);
    }
    seen = g;
    if (stop_.load())
      return;
    drain();
    if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      busy_.notify_one();
  }
}

} // namespace poplar::engine
