#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingData.hpp>

#include <gtest/gtest.h>

using namespace tessera::apps;

TEST(TrainingData, SyntheticImagesFollowTheOptions) {
  TrainingOptions o;
  o.syntheticData = true;
  o.trainSubset = 96;
  o.seed = 3;
  const ImageSet train = loadTrainingImages(o);
  EXPECT_EQ(train.size(), 96u);
  EXPECT_EQ(train.pixels, makeSyntheticImageSet(96, 3).pixels);
  const ImageSet validation = loadValidationImages(o);
  EXPECT_EQ(validation.size(), 10000u);
  EXPECT_NE(std::vector<std::uint8_t>(validation.pixels.begin(), validation.pixels.begin() + 784),
            std::vector<std::uint8_t>(train.pixels.begin(), train.pixels.begin() + 784));
}

TEST(TrainingData, MissingDataSetDirectoryIsADatasetError) {
  TrainingOptions o;
  o.datasetDir = "/nonexistent/fashion";
  try {
    loadTrainingImages(o);
    FAIL() << "no dataset_error";
  } catch (const dataset_error &e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/fashion/train-images-idx3-ubyte.gz"),
              std::string::npos)
        << e.what();
  }
}

TEST(TrainingData, RealSubsetIsTheFirstImages) {
  if (!std::filesystem::exists(std::filesystem::path(kDebianFashionMnistDir) /
                               "train-labels-idx1-ubyte.gz"))
    GTEST_SKIP() << "dataset-fashion-mnist is not installed (run scripts/bootstrap)";
  TrainingOptions o;
  o.datasetDir = kDebianFashionMnistDir;
  o.trainSubset = 100;
  const ImageSet subset = loadTrainingImages(o);
  ASSERT_EQ(subset.size(), 100u);
  const ImageSet all = loadFashionMnist(FashionMnistSplit::Train, kDebianFashionMnistDir);
  EXPECT_EQ(subset.labels, std::vector<std::uint8_t>(all.labels.begin(), all.labels.begin() + 100));
}

TEST(TrainingData, LoaderOptionsCarryBatchSeedAndImageSize) {
  TrainingOptions o;
  o.batchSize = 48;
  o.seed = 11;
  const DataLoaderOptions train = trainingLoaderOptions(o, 32);
  EXPECT_EQ(train.batchSize, 48u);
  EXPECT_EQ(train.seed, 11u);
  EXPECT_EQ(train.imageSize, 32u);
  EXPECT_TRUE(train.shuffle);
  EXPECT_TRUE(train.dropLast);
  const DataLoaderOptions validation = validationLoaderOptions(o, 32);
  EXPECT_FALSE(validation.shuffle);
  EXPECT_FALSE(validation.dropLast);
  EXPECT_TRUE(validation.padFinalBatch);
  EXPECT_FALSE(validation.randomCrop || validation.horizontalFlip);
}
