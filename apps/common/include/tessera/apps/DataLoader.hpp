// Turns an ImageSet into training batches: float images [B][1][S][S] normalised by the training
// set's mean and standard deviation, and uint32 labels. Every batch is a pure function of
// (seed, epoch, batch index): the epoch's shuffle and each image's augmentation are seeded from
// those counters, never from thread timing, so a run resumed from a saved position sees exactly
// the batches the original run would have. A host thread builds the next batches while the
// device runs, through a bounded queue.
#pragma once

#include "tessera/apps/FashionMnist.hpp"
#include "tessera/apps/PrefetchQueue.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace tessera::apps {

/// Mean and standard deviation of the Fashion-MNIST training pixels, scaled to [0, 1].
inline constexpr float kFashionMnistMean = 0.2860f;
inline constexpr float kFashionMnistStd = 0.3530f;

struct DataLoaderOptions {
  std::size_t batchSize = 32;
  /// Side S of the square output images; at least the source size. Larger images are zero-padded
  /// (black, Fashion-MNIST's background) with the source centred.
  std::size_t imageSize = kFashionMnistImageSize;
  /// Reshuffle the images every epoch (seeded by seed and epoch).
  bool shuffle = true;
  std::uint64_t seed = 0;
  /// Random crop: pad by `cropPadding` zero pixels on every side, then cut an S×S window.
  bool randomCrop = false;
  std::size_t cropPadding = 4;
  /// Mirror left-right with probability ½.
  bool horizontalFlip = false;
  /// Normalisation: pixel / 255 → (x − mean) / std.
  float mean = kFashionMnistMean;
  float stddev = kFashionMnistStd;
  /// Batches built ahead on the host thread; 0 builds each batch in next() on the caller's thread.
  std::size_t prefetchBatches = 2;
  /// Drop the final partial batch of an epoch (the graph has a fixed batch size); when false the
  /// last batch of an epoch is smaller.
  bool dropLast = true;
  /// With dropLast false: fill the final partial batch up to batchSize with blank images
  /// (label 0) so a fixed-size graph can run it; Batch::validImages says how many are real.
  bool padFinalBatch = false;
};

struct Batch {
  LoaderPosition position;
  std::size_t size = 0;        // images in this batch (B), padding included
  std::size_t validImages = 0; // real images: the first validImages of the batch
  std::size_t imageSize = 0;   // S
  std::vector<float> images;   // [B][1][S][S]
  std::vector<std::uint32_t> labels;
};

/// `count` deterministic random 28×28 images with labels below `numClasses`: data for pure
/// throughput runs without any files.
ImageSet makeSyntheticImageSet(std::size_t count, std::uint64_t seed,
                               std::size_t numClasses = kFashionMnistClasses);

class DataLoader {
public:
  /// Validates the options against the data (batch size, image size) and starts prefetching at
  /// epoch 0, batch 0. Throws app_error naming the bad option.
  DataLoader(ImageSet data, DataLoaderOptions options);
  ~DataLoader();
  DataLoader(const DataLoader &) = delete;
  DataLoader &operator=(const DataLoader &) = delete;

  std::size_t batchesPerEpoch() const;
  const DataLoaderOptions &options() const { return options_; }
  std::size_t numImages() const { return data_.size(); }

  /// The batch at position(), then advances (rolling over to the next epoch). Blocks until the
  /// prefetch thread has it; rethrows anything the thread threw.
  Batch next();
  /// The position of the batch next() returns.
  LoaderPosition position() const;
  /// Continue from `position` (e.g. restored from a checkpoint); discards prefetched batches.
  void seek(LoaderPosition position);

  /// Builds the batch at `position` directly, on the caller's thread; what next() returns there.
  Batch makeBatch(LoaderPosition position) const;

private:
  LoaderPosition advance(LoaderPosition p) const;
  // The epoch's image order; the last one is cached because consecutive batches share it.
  std::shared_ptr<const std::vector<std::uint32_t>> epochOrder(std::uint64_t epoch) const;
  void renderImage(std::uint32_t sourceIndex, std::uint64_t epoch, float *out) const;

  ImageSet data_;
  DataLoaderOptions options_;

  mutable std::mutex orderMutex_;
  mutable std::uint64_t cachedEpoch_ = ~std::uint64_t{0};
  mutable std::shared_ptr<const std::vector<std::uint32_t>> cachedOrder_;

  // Last: its thread calls makeBatch, so it starts after and stops before everything above.
  std::unique_ptr<PrefetchQueue<Batch>> queue_;
};

} // namespace tessera::apps
