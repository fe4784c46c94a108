#include "tessera/apps/TrainingData.hpp"

namespace tessera::apps {
namespace {

constexpr std::size_t kSyntheticTrainImages = 60000;
constexpr std::size_t kSyntheticValidationImages = 10000;
// Keeps synthetic validation images distinct from the training ones of the same seed.
constexpr std::uint64_t kValidationSeedOffset = 0x9e3779b9ULL;

} // namespace

ImageSet loadTrainingImages(const TrainingOptions &options) {
  if (options.syntheticData)
    return makeSyntheticImageSet(options.trainSubset ? options.trainSubset : kSyntheticTrainImages,
                                 options.seed);
  return selectSubset(
      loadFashionMnist(FashionMnistSplit::Train, fashionMnistDirectory(options.datasetDir)),
      options.trainSubset);
}

ImageSet loadValidationImages(const TrainingOptions &options) {
  if (options.syntheticData)
    return makeSyntheticImageSet(kSyntheticValidationImages, options.seed + kValidationSeedOffset);
  return loadFashionMnist(FashionMnistSplit::Test, fashionMnistDirectory(options.datasetDir));
}

DataLoaderOptions trainingLoaderOptions(const TrainingOptions &options, std::size_t imageSize) {
  DataLoaderOptions loader;
  loader.batchSize = options.batchSize;
  loader.imageSize = imageSize;
  loader.seed = options.seed;
  loader.shuffle = true;
  loader.dropLast = true;
  return loader;
}

DataLoaderOptions validationLoaderOptions(const TrainingOptions &options, std::size_t imageSize) {
  DataLoaderOptions loader = trainingLoaderOptions(options, imageSize);
  loader.shuffle = false;
  loader.dropLast = false;
  loader.padFinalBatch = true;
  return loader;
}

} // namespace tessera::apps
