#include <tessera/apps/DataLoader.hpp>
#include <tessera/apps/Errors.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

using namespace tessera::apps;

namespace {

// n 28×28 images; image i has pixel 0 = i % 256, pixel 1 = i / 256, the rest a pattern, so a
// batch image decodes back to its source index.
ImageSet indexedImages(std::size_t n) {
  ImageSet set;
  set.rows = set.cols = 28;
  set.pixels.resize(n * 784);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint8_t *p = set.pixels.data() + i * 784;
    for (std::size_t k = 0; k < 784; ++k)
      p[k] = static_cast<std::uint8_t>((k * 31 + i * 7) % 256);
    p[0] = static_cast<std::uint8_t>(i % 256);
    p[1] = static_cast<std::uint8_t>(i / 256);
    set.labels.push_back(static_cast<std::uint8_t>(i % 10));
  }
  return set;
}

// Raw pixel values come back exactly with mean 0 and std 1/255.
DataLoaderOptions rawOptions(std::size_t batch) {
  DataLoaderOptions o;
  o.batchSize = batch;
  o.mean = 0.0f;
  o.stddev = 1.0f / 255.0f;
  return o;
}

std::size_t sourceIndex(const Batch &b, std::size_t i) {
  const float *img = b.images.data() + i * b.imageSize * b.imageSize;
  return static_cast<std::size_t>(std::lround(img[0])) +
         256 * static_cast<std::size_t>(std::lround(img[1]));
}

bool sameBits(const Batch &a, const Batch &b) {
  return a.position == b.position && a.size == b.size && a.labels == b.labels &&
         a.images.size() == b.images.size() &&
         std::memcmp(a.images.data(), b.images.data(), a.images.size() * sizeof(float)) == 0;
}

std::vector<Batch> take(DataLoader &loader, std::size_t n) {
  std::vector<Batch> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(loader.next());
  return out;
}

template <typename F> std::string appErrorOf(F &&f) {
  try {
    f();
  } catch (const app_error &e) {
    return e.what();
  }
  ADD_FAILURE() << "no app_error thrown";
  return "";
}

// Reference: source pixel (r, c) moved by (shiftY, shiftX) on an S canvas, optionally mirrored.
std::vector<float> referenceImage(const ImageSet &set, std::size_t index, std::size_t s,
                                  long shiftY, long shiftX, bool flip, float mean, float std) {
  std::vector<float> canvas(s * s, (0.0f - mean) / std);
  const long base = static_cast<long>(s - 28) / 2;
  for (long r = 0; r < 28; ++r)
    for (long c = 0; c < 28; ++c) {
      const long y = r + base + shiftY, x = c + base + shiftX;
      if (y < 0 || x < 0 || y >= static_cast<long>(s) || x >= static_cast<long>(s))
        continue;
      const long outX = flip ? static_cast<long>(s) - 1 - x : x;
      canvas[y * s + outX] = (set.pixels[index * 784 + r * 28 + c] / 255.0f - mean) / std;
    }
  return canvas;
}

} // namespace

TEST(DataLoader, UnshuffledBatchesNormaliseEveryPixel) {
  const ImageSet set = indexedImages(10);
  DataLoaderOptions o;
  o.batchSize = 4;
  o.shuffle = false;
  DataLoader loader(set, o);
  EXPECT_EQ(loader.batchesPerEpoch(), 2u);
  const Batch b = loader.next();
  ASSERT_EQ(b.size, 4u);
  ASSERT_EQ(b.images.size(), 4u * 784u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(b.labels[i], set.labels[i]);
    for (std::size_t k = 0; k < 784; ++k) {
      const float expected =
          (set.pixels[i * 784 + k] / 255.0f - kFashionMnistMean) / kFashionMnistStd;
      ASSERT_NEAR(b.images[i * 784 + k], expected, 1e-5f) << i << "," << k;
    }
  }
}

TEST(DataLoader, LargerImagesAreZeroPaddedAndCentred) {
  const ImageSet set = indexedImages(2);
  DataLoaderOptions o;
  o.batchSize = 2;
  o.shuffle = false;
  o.imageSize = 32;
  DataLoader loader(set, o);
  const Batch b = loader.next();
  ASSERT_EQ(b.imageSize, 32u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto expected = referenceImage(set, i, 32, 0, 0, false, o.mean, o.stddev);
    for (std::size_t k = 0; k < 32 * 32; ++k)
      ASSERT_NEAR(b.images[i * 1024 + k], expected[k], 1e-5f) << k;
  }
}

TEST(DataLoader, EveryEpochIsAPermutationAndEpochsDiffer) {
  DataLoader loader(indexedImages(64), rawOptions(8));
  std::vector<std::size_t> order[2];
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::set<std::size_t> seen;
    for (std::size_t b = 0; b < loader.batchesPerEpoch(); ++b) {
      const Batch batch = loader.next();
      EXPECT_EQ(batch.position.epoch, static_cast<std::uint64_t>(epoch));
      for (std::size_t i = 0; i < batch.size; ++i) {
        const std::size_t source = sourceIndex(batch, i);
        EXPECT_EQ(batch.labels[i], source % 10);
        seen.insert(source);
        order[epoch].push_back(source);
      }
    }
    EXPECT_EQ(seen.size(), 64u);
  }
  EXPECT_NE(order[0], order[1]);
}

TEST(DataLoader, SameSeedSameBatchesWhateverThePrefetchDepth) {
  const ImageSet set = indexedImages(50);
  DataLoaderOptions o = rawOptions(7);
  o.randomCrop = o.horizontalFlip = true;
  o.seed = 123;
  o.prefetchBatches = 0;
  DataLoader synchronous(set, o);
  o.prefetchBatches = 5;
  DataLoader prefetching(set, o);
  const auto a = take(synchronous, 20), b = take(prefetching, 20);
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(sameBits(a[i], b[i])) << "batch " << i;
}

TEST(DataLoader, DifferentSeedsShuffleDifferently) {
  const ImageSet set = indexedImages(50);
  DataLoaderOptions o = rawOptions(10);
  o.seed = 1;
  DataLoader first(set, o);
  o.seed = 2;
  DataLoader second(set, o);
  EXPECT_NE(first.next().labels.size(), 0u);
  bool differs = false;
  for (int i = 0; i < 4; ++i)
    differs |= !sameBits(first.next(), second.next());
  EXPECT_TRUE(differs);
}

TEST(DataLoader, ResumingFromASavedPositionReplaysTheSameBatches) {
  const ImageSet set = indexedImages(45);
  DataLoaderOptions o = rawOptions(8); // 5 batches per epoch, 5 images dropped
  o.randomCrop = o.horizontalFlip = true;
  o.seed = 99;
  DataLoader original(set, o);
  take(original, 7); // into epoch 1
  const LoaderPosition saved = original.position();
  EXPECT_EQ(saved, (LoaderPosition{1, 2}));
  const auto expected = take(original, 9);

  DataLoader resumed(set, o);
  resumed.next(); // a fresh run has already moved; seek must discard prefetched batches
  resumed.seek(saved);
  EXPECT_EQ(resumed.position(), saved);
  const auto replay = take(resumed, 9);
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(sameBits(expected[i], replay[i])) << "batch " << i;
  EXPECT_TRUE(sameBits(expected[0], original.makeBatch(saved)));
}

TEST(DataLoader, AugmentationStaysWithinCropAndFlipBounds) {
  const ImageSet set = indexedImages(40);
  DataLoaderOptions o;
  o.batchSize = 40;
  o.shuffle = false;
  o.randomCrop = o.horizontalFlip = true;
  o.cropPadding = 2;
  o.seed = 5;
  DataLoader loader(set, o);
  std::set<std::pair<long, long>> shifts;
  std::set<bool> flips;
  for (int epoch = 0; epoch < 2; ++epoch) {
    const Batch b = loader.next();
    for (std::size_t i = 0; i < b.size; ++i) {
      // Exactly one of the allowed transforms must reproduce the image.
      int matches = 0;
      for (long dy = -2; dy <= 2; ++dy)
        for (long dx = -2; dx <= 2; ++dx)
          for (bool flip : {false, true}) {
            const auto ref = referenceImage(set, i, 28, dy, dx, flip, o.mean, o.stddev);
            bool equal = true;
            for (std::size_t k = 0; k < ref.size() && equal; ++k)
              equal = std::abs(ref[k] - b.images[i * 784 + k]) < 1e-5f;
            if (equal) {
              ++matches;
              shifts.insert({dy, dx});
              flips.insert(flip);
            }
          }
      EXPECT_EQ(matches, 1) << "epoch " << epoch << " image " << i;
    }
  }
  EXPECT_GT(shifts.size(), 5u); // the crops really vary
  EXPECT_EQ(flips.size(), 2u);
}

TEST(DataLoader, KeepingTheLastPartialBatch) {
  DataLoaderOptions o = rawOptions(4);
  o.dropLast = false;
  o.shuffle = false;
  DataLoader loader(indexedImages(10), o);
  EXPECT_EQ(loader.batchesPerEpoch(), 3u);
  const auto batches = take(loader, 4);
  EXPECT_EQ(batches[2].size, 2u);
  EXPECT_EQ(batches[2].validImages, 2u);
  EXPECT_EQ(batches[2].labels.size(), 2u);
  EXPECT_EQ(sourceIndex(batches[2], 1), 9u);
  EXPECT_EQ(batches[3].position, (LoaderPosition{1, 0}));
}

TEST(DataLoader, PaddedFinalBatchHasTheFullSizeAndSaysHowManyAreReal) {
  DataLoaderOptions o;
  o.batchSize = 4;
  o.dropLast = false;
  o.padFinalBatch = true;
  o.shuffle = false;
  const ImageSet set = indexedImages(10);
  DataLoader loader(set, o);
  const auto batches = take(loader, 3);
  EXPECT_EQ(batches[0].validImages, 4u);
  const Batch &last = batches[2];
  ASSERT_EQ(last.size, 4u);
  EXPECT_EQ(last.validImages, 2u);
  ASSERT_EQ(last.images.size(), 4u * 784u);
  EXPECT_EQ(last.labels, (std::vector<std::uint32_t>{8, 9, 0, 0}));
  const float background = (0.0f - o.mean) / o.stddev;
  for (std::size_t k = 2 * 784; k < 4 * 784; ++k)
    ASSERT_FLOAT_EQ(last.images[k], background) << k;
  EXPECT_NEAR(last.images[784 + 5], (set.pixels[9 * 784 + 5] / 255.0f - o.mean) / o.stddev, 1e-5f);
}

TEST(DataLoader, SyntheticImagesAreDeterministic) {
  const ImageSet a = makeSyntheticImageSet(100, 3), b = makeSyntheticImageSet(100, 3),
                 c = makeSyntheticImageSet(100, 4);
  EXPECT_EQ(a.pixels, b.pixels);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_NE(a.pixels, c.pixels);
  ASSERT_EQ(a.pixels.size(), 100u * 784u);
  std::set<int> labels(a.labels.begin(), a.labels.end());
  EXPECT_EQ(labels.size(), 10u);
  EXPECT_LT(*labels.rbegin(), 10);
  DataLoaderOptions o;
  o.batchSize = 25;
  DataLoader loader(a, o);
  EXPECT_EQ(loader.next().size, 25u);
}

TEST(DataLoader, BadOptionsNameTheOption) {
  const ImageSet set = indexedImages(10);
  DataLoaderOptions o;
  o.batchSize = 0;
  EXPECT_NE(appErrorOf([&] { DataLoader(set, o); }).find("batchSize"), std::string::npos);
  o.batchSize = 11;
  EXPECT_NE(appErrorOf([&] { DataLoader(set, o); }).find("batchSize 11"), std::string::npos);
  o.batchSize = 2;
  o.imageSize = 20;
  EXPECT_NE(appErrorOf([&] { DataLoader(set, o); }).find("imageSize 20"), std::string::npos);
  o.imageSize = 28;
  DataLoader loader(set, o);
  EXPECT_NE(appErrorOf([&] { loader.seek({0, 5}); }).find("batch 5"), std::string::npos);
  EXPECT_NE(appErrorOf([] { makeSyntheticImageSet(1, 0, 0); }).find("numClasses"),
            std::string::npos);
}
