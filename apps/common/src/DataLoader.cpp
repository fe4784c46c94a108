#include "tessera/apps/DataLoader.hpp"

#include "tessera/apps/Errors.hpp"
#include "tessera/apps/Random.hpp"

#include <numeric>

namespace tessera::apps {
namespace {

// Seed purposes, so the shuffle and the augmentation of the same epoch draw unrelated numbers.
constexpr std::uint64_t kShufflePurpose = 0x5348554646ULL;
constexpr std::uint64_t kAugmentPurpose = 0x4155474dULL;
constexpr std::uint64_t kSyntheticPurpose = 0x53594e54ULL;

} // namespace

ImageSet makeSyntheticImageSet(std::size_t count, std::uint64_t seed, std::size_t numClasses) {
  if (numClasses == 0 || numClasses > 256)
    throw app_error("makeSyntheticImageSet: numClasses " + std::to_string(numClasses) +
                    " must be in 1..256");
  ImageSet set;
  set.rows = kFashionMnistImageSize;
  set.cols = kFashionMnistImageSize;
  SplitMix64 rng(mixSeed({seed, kSyntheticPurpose}));
  set.pixels.resize(count * set.rows * set.cols);
  for (std::uint8_t &p : set.pixels)
    p = static_cast<std::uint8_t>(rng.next() >> 56);
  set.labels.resize(count);
  for (std::uint8_t &l : set.labels)
    l = static_cast<std::uint8_t>(rng.below(numClasses));
  return set;
}

DataLoader::DataLoader(ImageSet data, DataLoaderOptions options)
    : data_(std::move(data)), options_(options) {
  if (options_.batchSize == 0)
    throw app_error("DataLoader: batchSize is 0; it must be at least 1");
  if (data_.size() == 0)
    throw app_error("DataLoader: the image set is empty");
  if (options_.imageSize < data_.rows || options_.imageSize < data_.cols)
    throw app_error("DataLoader: imageSize " + std::to_string(options_.imageSize) +
                    " is smaller than the " + std::to_string(data_.rows) + "x" +
                    std::to_string(data_.cols) + " source images; use at least " +
                    std::to_string(std::max(data_.rows, data_.cols)));
  if (!(options_.stddev > 0.0f))
    throw app_error("DataLoader: stddev " + std::to_string(options_.stddev) + " must be > 0");
  if (options_.dropLast && data_.size() < options_.batchSize)
    throw app_error("DataLoader: batchSize " + std::to_string(options_.batchSize) +
                    " exceeds the " + std::to_string(data_.size()) +
                    " images, so dropLast leaves no batch; use a smaller batch or more images");
  queue_ = std::make_unique<PrefetchQueue<Batch>>(
      [this](LoaderPosition at) { return makeBatch(at); },
      [this](LoaderPosition at) { return advance(at); }, options_.prefetchBatches);
}

DataLoader::~DataLoader() = default;

std::size_t DataLoader::batchesPerEpoch() const {
  const std::size_t n = data_.size(), b = options_.batchSize;
  return options_.dropLast ? n / b : (n + b - 1) / b;
}

LoaderPosition DataLoader::advance(LoaderPosition p) const {
  if (++p.batch >= batchesPerEpoch()) {
    p.batch = 0;
    ++p.epoch;
  }
  return p;
}

std::shared_ptr<const std::vector<std::uint32_t>>
DataLoader::epochOrder(std::uint64_t epoch) const {
  std::lock_guard<std::mutex> lock(orderMutex_);
  if (!cachedOrder_ || cachedEpoch_ != epoch) {
    auto order = std::make_shared<std::vector<std::uint32_t>>(data_.size());
    std::iota(order->begin(), order->end(), 0u);
    if (options_.shuffle) {
      SplitMix64 rng(mixSeed({options_.seed, epoch, kShufflePurpose}));
      shuffle(*order, rng);
    }
    cachedOrder_ = std::move(order);
    cachedEpoch_ = epoch;
  }
  return cachedOrder_;
}

void DataLoader::renderImage(std::uint32_t sourceIndex, std::uint64_t epoch, float *out) const {
  const std::size_t s = options_.imageSize;
  const std::ptrdiff_t rows = static_cast<std::ptrdiff_t>(data_.rows);
  const std::ptrdiff_t cols = static_cast<std::ptrdiff_t>(data_.cols);
  // Source pixel (r, c) lands at (r + top, c + left) of the un-augmented S×S canvas.
  std::ptrdiff_t top = static_cast<std::ptrdiff_t>(s - data_.rows) / 2;
  std::ptrdiff_t left = static_cast<std::ptrdiff_t>(s - data_.cols) / 2;
  bool flip = false;
  if (options_.randomCrop || options_.horizontalFlip) {
    SplitMix64 rng(mixSeed({options_.seed, epoch, sourceIndex, kAugmentPurpose}));
    if (options_.randomCrop) {
      // A window at offset (dy, dx) of the canvas padded by p shifts the image by p − d.
      const std::uint64_t span = 2 * options_.cropPadding + 1;
      const auto p = static_cast<std::ptrdiff_t>(options_.cropPadding);
      top += p - static_cast<std::ptrdiff_t>(rng.below(span));
      left += p - static_cast<std::ptrdiff_t>(rng.below(span));
    }
    if (options_.horizontalFlip)
      flip = (rng.next() >> 63) != 0;
  }
  const float scale = 1.0f / (255.0f * options_.stddev);
  const float offset = -options_.mean / options_.stddev;
  const std::uint8_t *image = data_.pixels.data() + sourceIndex * data_.rows * data_.cols;
  for (std::size_t y = 0; y < s; ++y) {
    const std::ptrdiff_t r = static_cast<std::ptrdiff_t>(y) - top;
    for (std::size_t x = 0; x < s; ++x) {
      const std::size_t canvasX = flip ? s - 1 - x : x;
      const std::ptrdiff_t c = static_cast<std::ptrdiff_t>(canvasX) - left;
      const std::uint8_t pixel =
          (r >= 0 && r < rows && c >= 0 && c < cols) ? image[r * cols + c] : std::uint8_t{0};
      out[y * s + x] = static_cast<float>(pixel) * scale + offset;
    }
  }
}

Batch DataLoader::makeBatch(LoaderPosition position) const {
  const auto order = epochOrder(position.epoch);
  const std::size_t first = position.batch * options_.batchSize;
  const std::size_t count = std::min(options_.batchSize, data_.size() - first);
  const std::size_t s = options_.imageSize;
  Batch batch;
  batch.position = position;
  batch.validImages = count;
  batch.size = options_.padFinalBatch ? options_.batchSize : count;
  batch.imageSize = s;
  // Padding images are all background: pixel value 0 after normalisation.
  batch.images.assign(batch.size * s * s, -options_.mean / options_.stddev);
  batch.labels.assign(batch.size, 0u);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t source = (*order)[first + i];
    renderImage(source, position.epoch, batch.images.data() + i * s * s);
    batch.labels[i] = data_.labels[source];
  }
  return batch;
}

Batch DataLoader::next() { return queue_->next(); }

LoaderPosition DataLoader::position() const { return queue_->position(); }

void DataLoader::seek(LoaderPosition position) {
  if (position.batch >= batchesPerEpoch())
    throw app_error("DataLoader::seek: batch " + std::to_string(position.batch) + " is past the " +
                    std::to_string(batchesPerEpoch()) +
                    " batches of an epoch; was the checkpoint written with another batch size "
                    "or data set?");
  queue_->seek(position);
}

} // namespace tessera::apps
