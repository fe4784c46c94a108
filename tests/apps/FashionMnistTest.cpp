#include "TempDir.hpp"

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/FashionMnist.hpp>

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>

using namespace tessera::apps;
using tessera::apps::testing::TempDir;

namespace {

void putBigEndian(std::vector<std::uint8_t> &out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// IDX bytes: magic, dimensions, payload.
std::vector<std::uint8_t> idx(std::uint32_t magic, std::vector<std::uint32_t> dims,
                              const std::vector<std::uint8_t> &payload) {
  std::vector<std::uint8_t> bytes;
  putBigEndian(bytes, magic);
  for (auto d : dims)
    putBigEndian(bytes, d);
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  return bytes;
}

void writePlain(const std::filesystem::path &file, const std::vector<std::uint8_t> &bytes) {
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

void writeGzip(const std::filesystem::path &file, const std::vector<std::uint8_t> &bytes) {
  gzFile out = gzopen(file.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(out);
}

// Three 2×3 images whose pixels encode (image, position), labels 0, 1, 2.
std::vector<std::uint8_t> samplePixels(std::size_t n = 3) {
  std::vector<std::uint8_t> p;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < 6; ++k)
      p.push_back(static_cast<std::uint8_t>(10 * i + k));
  return p;
}

std::vector<std::uint8_t> readGzipDirectly(const std::filesystem::path &file) {
  // An independent decoder: raw zlib inflate with gzip header detection (windowBits 15 + 16).
  std::ifstream in(file, std::ios::binary);
  std::vector<unsigned char> compressed((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  stream.next_in = compressed.data();
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::vector<std::uint8_t> out;
  std::vector<unsigned char> chunk(1 << 20);
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    stream.next_out = chunk.data();
    stream.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&stream, Z_NO_FLUSH);
    EXPECT_TRUE(rc == Z_OK || rc == Z_STREAM_END) << rc;
    if (rc != Z_OK && rc != Z_STREAM_END)
      break;
    out.insert(out.end(), chunk.data(), chunk.data() + (chunk.size() - stream.avail_out));
  }
  inflateEnd(&stream);
  return out;
}

template <typename F> std::string errorOf(F &&f) {
  try {
    f();
  } catch (const dataset_error &e) {
    return e.what();
  }
  ADD_FAILURE() << "no dataset_error thrown";
  return "";
}

} // namespace

TEST(FashionMnist, ReadsGzippedAndPlainIdx) {
  TempDir dir;
  writeGzip(dir / "i.gz", idx(0x803, {3, 2, 3}, samplePixels()));
  writePlain(dir / "l", idx(0x801, {3}, {0, 1, 2}));
  const ImageSet set = readIdxImageSet(dir / "i.gz", dir / "l", 10);
  ASSERT_EQ(set.size(), 3u);
  EXPECT_EQ(set.rows, 2u);
  EXPECT_EQ(set.cols, 3u);
  EXPECT_EQ(set.pixels, samplePixels());
  EXPECT_EQ(set.labels, (std::vector<std::uint8_t>{0, 1, 2}));
  EXPECT_EQ(set.image(2)[4], 24);
}

TEST(FashionMnist, BadMagicNamesTheFile) {
  TempDir dir;
  writePlain(dir / "i", idx(0x801, {3, 2, 3}, samplePixels()));
  writePlain(dir / "l", idx(0x801, {3}, {0, 1, 2}));
  const std::string message = errorOf([&] { readIdxImageSet(dir / "i", dir / "l", 10); });
  EXPECT_NE(message.find((dir / "i").string()), std::string::npos) << message;
  EXPECT_NE(message.find("magic"), std::string::npos) << message;
}

TEST(FashionMnist, TruncatedPayloadNamesTheFile) {
  TempDir dir;
  auto pixels = samplePixels();
  pixels.pop_back();
  writePlain(dir / "i", idx(0x803, {3, 2, 3}, pixels));
  writePlain(dir / "l", idx(0x801, {3}, {0, 1, 2}));
  const std::string message = errorOf([&] { readIdxImageSet(dir / "i", dir / "l", 10); });
  EXPECT_NE(message.find((dir / "i").string()), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
  EXPECT_NE(message.find("dataset-fashion-mnist"), std::string::npos) << message;
}

TEST(FashionMnist, TruncatedHeaderNamesTheFile) {
  TempDir dir;
  writePlain(dir / "i", idx(0x803, {3, 2, 3}, samplePixels()));
  writePlain(dir / "l", {0, 0, 8});
  const std::string message = errorOf([&] { readIdxImageSet(dir / "i", dir / "l", 10); });
  EXPECT_NE(message.find((dir / "l").string()), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
}

TEST(FashionMnist, TruncatedGzipStreamNamesTheFile) {
  TempDir dir;
  std::vector<std::uint8_t> big(5000 * 6);
  for (std::size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<std::uint8_t>((i * 7919) >> 3);
  writeGzip(dir / "full.gz", idx(0x803, {5000, 2, 3}, big));
  std::ifstream in(dir / "full.gz", std::ios::binary);
  std::vector<std::uint8_t> gz((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
  gz.resize(gz.size() / 2);
  writePlain(dir / "cut.gz", gz);
  writePlain(dir / "l", idx(0x801, {5000}, std::vector<std::uint8_t>(5000, 1)));
  const std::string message = errorOf([&] { readIdxImageSet(dir / "cut.gz", dir / "l", 10); });
  EXPECT_NE(message.find((dir / "cut.gz").string()), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
}

TEST(FashionMnist, TrailingBytesAreCorruption) {
  TempDir dir;
  writePlain(dir / "i", idx(0x803, {3, 2, 3}, samplePixels()));
  writePlain(dir / "l", idx(0x801, {3}, {0, 1, 2, 3}));
  const std::string message = errorOf([&] { readIdxImageSet(dir / "i", dir / "l", 10); });
  EXPECT_NE(message.find((dir / "l").string()), std::string::npos) << message;
}

TEST(FashionMnist, CountMismatchNamesBothFiles) {
  TempDir dir;
  writePlain(dir / "i", idx(0x803, {3, 2, 3}, samplePixels()));
  writePlain(dir / "l", idx(0x801, {2}, {0, 1}));
  const std::string message = errorOf([&] { readIdxImageSet(dir / "i", dir / "l", 10); });
  EXPECT_NE(message.find((dir / "i").string()), std::string::npos) << message;
  EXPECT_NE(message.find((dir / "l").string()), std::string::npos) << message;
  EXPECT_NE(message.find("3 images"), std::string::npos) << message;
  EXPECT_NE(message.find("2 labels"), std::string::npos) << message;
}

TEST(FashionMnist, LabelOutOfRangeNamesItem) {
  TempDir dir;
  writePlain(dir / "i", idx(0x803, {3, 2, 3}, samplePixels()));
  writePlain(dir / "l", idx(0x801, {3}, {0, 12, 2}));
  const std::string message = errorOf([&] { readIdxImageSet(dir / "i", dir / "l", 10); });
  EXPECT_NE(message.find("label 12 of item 1"), std::string::npos) << message;
}

TEST(FashionMnist, MissingFileNamesItAndTheInstallHint) {
  TempDir dir;
  const std::string message =
      errorOf([&] { loadFashionMnist(FashionMnistSplit::Test, dir.path()); });
  EXPECT_NE(message.find((dir / "t10k-images-idx3-ubyte.gz").string()), std::string::npos)
      << message;
  EXPECT_NE(message.find("dataset-fashion-mnist"), std::string::npos) << message;
  EXPECT_NE(message.find("scripts/bootstrap"), std::string::npos) << message;
}

TEST(FashionMnist, LoadsPlainFilesFromADirectory) {
  TempDir dir;
  std::vector<std::uint8_t> pixels(2 * 28 * 28);
  for (std::size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = static_cast<std::uint8_t>(i % 251);
  writePlain(dir / "t10k-images-idx3-ubyte", idx(0x803, {2, 28, 28}, pixels));
  writePlain(dir / "t10k-labels-idx1-ubyte", idx(0x801, {2}, {9, 4}));
  const ImageSet set = loadFashionMnist(FashionMnistSplit::Test, dir.path());
  EXPECT_EQ(set.pixels, pixels);
  EXPECT_EQ(set.labels, (std::vector<std::uint8_t>{9, 4}));
}

TEST(FashionMnist, WrongImageSizeIsRejected) {
  TempDir dir;
  writePlain(dir / "t10k-images-idx3-ubyte", idx(0x803, {3, 2, 3}, samplePixels()));
  writePlain(dir / "t10k-labels-idx1-ubyte", idx(0x801, {3}, {0, 1, 2}));
  const std::string message =
      errorOf([&] { loadFashionMnist(FashionMnistSplit::Test, dir.path()); });
  EXPECT_NE(message.find("2x3"), std::string::npos) << message;
}

TEST(FashionMnist, DirectoryPrecedenceIsFlagThenEnvironmentThenDebian) {
  const char *saved = std::getenv(kFashionMnistDirEnv);
  const std::string savedValue = saved ? saved : "";
  ::unsetenv(kFashionMnistDirEnv);
  EXPECT_EQ(fashionMnistDirectory(""), std::filesystem::path(kDebianFashionMnistDir));
  ::setenv(kFashionMnistDirEnv, "/from/env", 1);
  EXPECT_EQ(fashionMnistDirectory(""), std::filesystem::path("/from/env"));
  EXPECT_EQ(fashionMnistDirectory("/from/flag"), std::filesystem::path("/from/flag"));
  if (saved)
    ::setenv(kFashionMnistDirEnv, savedValue.c_str(), 1);
  else
    ::unsetenv(kFashionMnistDirEnv);
}

TEST(FashionMnist, SubsetFirstN) {
  ImageSet set;
  set.rows = 2;
  set.cols = 3;
  set.pixels = samplePixels();
  set.labels = {0, 1, 2};
  const ImageSet first = selectSubset(set, 2);
  EXPECT_EQ(first.labels, (std::vector<std::uint8_t>{0, 1}));
  EXPECT_EQ(first.pixels, std::vector<std::uint8_t>(set.pixels.begin(), set.pixels.begin() + 12));
  EXPECT_EQ(selectSubset(set, 0).size(), 3u);
  EXPECT_EQ(selectSubset(set, 10).size(), 3u);
}

TEST(FashionMnist, SeededSubsetIsDeterministicOrderedAndSeedDependent) {
  ImageSet set;
  set.rows = 1;
  set.cols = 1;
  for (int i = 0; i < 200; ++i) {
    set.pixels.push_back(static_cast<std::uint8_t>(i));
    set.labels.push_back(static_cast<std::uint8_t>(i % 10));
  }
  const ImageSet a = selectSubset(set, 50, 7u), b = selectSubset(set, 50, 7u),
                 c = selectSubset(set, 50, 8u);
  EXPECT_EQ(a.pixels, b.pixels);
  EXPECT_NE(a.pixels, c.pixels);
  ASSERT_EQ(a.size(), 50u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a.labels[i], a.pixels[i] % 10); // image and label stay paired
    if (i) {
      EXPECT_LT(a.pixels[i - 1], a.pixels[i]); // original order, no repeats
    }
  }
}

TEST(FashionMnist, RealDebianDataSetLoads) {
  const std::filesystem::path dir = kDebianFashionMnistDir;
  if (!std::filesystem::exists(dir / "train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "dataset-fashion-mnist is not installed (run scripts/bootstrap)";
  const ImageSet train = loadFashionMnist(FashionMnistSplit::Train, dir);
  const ImageSet test = loadFashionMnist(FashionMnistSplit::Test, dir);
  ASSERT_EQ(train.size(), 60000u);
  ASSERT_EQ(test.size(), 10000u);
  // Fashion-MNIST is balanced: 6000 training and 1000 test images per class.
  std::vector<std::size_t> trainCounts(10), testCounts(10);
  for (auto l : train.labels)
    ++trainCounts.at(l);
  for (auto l : test.labels)
    ++testCounts.at(l);
  for (int c = 0; c < 10; ++c) {
    EXPECT_EQ(trainCounts[c], 6000u) << c;
    EXPECT_EQ(testCounts[c], 1000u) << c;
  }
  // Independent decode: the pixel sum after the 16-byte header must match, and the mean is the
  // published 0.2860 (of 255).
  const std::vector<std::uint8_t> raw = readGzipDirectly(dir / "train-images-idx3-ubyte.gz");
  ASSERT_EQ(raw.size(), 16u + 60000u * 784u);
  std::uint64_t rawSum = 0, loadedSum = 0;
  for (std::size_t i = 16; i < raw.size(); ++i)
    rawSum += raw[i];
  for (auto p : train.pixels)
    loadedSum += p;
  EXPECT_EQ(loadedSum, rawSum);
  const double mean = static_cast<double>(rawSum) / (60000.0 * 784.0 * 255.0);
  EXPECT_NEAR(mean, 0.2860, 5e-4);
  EXPECT_EQ(train.pixels[783], raw[16 + 783]);
}
