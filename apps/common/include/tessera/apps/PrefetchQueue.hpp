// Batches built ahead on a host thread while the device runs, for any loader whose batches are a
// pure function of their position (epoch, batch): the queue only decides *when* a batch is
// built, never *which*, so a run sees the same batches whatever the thread timing, and seeking
// (to a checkpoint's position) restarts the thread there.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace tessera::apps {

/// The position of the next batch a loader hands out; saved in checkpoints.
struct LoaderPosition {
  std::uint64_t epoch = 0;
  std::uint64_t batch = 0;
  bool operator==(const LoaderPosition &) const = default;
};

template <class Batch> class PrefetchQueue {
public:
  using Make = std::function<Batch(LoaderPosition)>;
  using Advance = std::function<LoaderPosition(LoaderPosition)>;

  /// `make` builds the batch at a position (on the prefetch thread, so it must be safe to call
  /// concurrently with the owner's const members); `advance` gives the position after one.
  /// `depth` batches are built ahead; 0 builds each in next() on the caller's thread.
  PrefetchQueue(Make make, Advance advance, std::size_t depth)
      : make_(std::move(make)), advance_(std::move(advance)), depth_(depth) {
    start();
  }
  ~PrefetchQueue() { stop(); }
  PrefetchQueue(const PrefetchQueue &) = delete;
  PrefetchQueue &operator=(const PrefetchQueue &) = delete;

  /// The batch at position(), then advances. Blocks until the thread has it; rethrows anything
  /// the thread threw building it.
  Batch next() {
    Batch batch;
    if (depth_ == 0) {
      batch = make_(consumer_);
    } else {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return !queue_.empty() || failure_; });
      if (queue_.empty())
        std::rethrow_exception(failure_);
      batch = std::move(queue_.front());
      queue_.pop_front();
    }
    changed_.notify_all();
    consumer_ = advance_(consumer_);
    return batch;
  }

  /// The position of the batch next() returns.
  LoaderPosition position() const { return consumer_; }

  /// Continues from `position`, discarding what was built ahead.
  void seek(LoaderPosition position) {
    stop();
    consumer_ = position;
    start();
  }

private:
  void start() {
    producer_ = consumer_;
    stopping_ = false;
    failure_ = nullptr;
    queue_.clear();
    if (depth_ > 0)
      worker_ = std::thread([this] { work(); });
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (worker_.joinable())
      worker_.join();
  }

  void work() {
    for (;;) {
      LoaderPosition position;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || queue_.size() < depth_; });
        if (stopping_)
          return;
        position = producer_;
      }
      try {
        Batch batch = make_(position);
        const LoaderPosition following = advance_(position);
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(std::move(batch));
        producer_ = following;
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        failure_ = std::current_exception();
        changed_.notify_all();
        return;
      }
      changed_.notify_all();
    }
  }

  Make make_;
  Advance advance_;
  std::size_t depth_;
  LoaderPosition consumer_;

  // Shared with the thread, guarded by mutex_.
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> queue_;
  LoaderPosition producer_;
  bool stopping_ = false;
  std::exception_ptr failure_;
  std::thread worker_;
};

} // namespace tessera::apps
