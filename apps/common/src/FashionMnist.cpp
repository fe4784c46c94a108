#include "tessera/apps/FashionMnist.hpp"

#include "tessera/apps/Errors.hpp"
#include "tessera/apps/Random.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <numeric>

namespace tessera::apps {
namespace {

constexpr std::uint32_t kImagesMagic = 0x00000803; // unsigned byte, 3 dimensions
constexpr std::uint32_t kLabelsMagic = 0x00000801; // unsigned byte, 1 dimension

std::string installHint() {
  return "install the Debian package dataset-fashion-mnist (scripts/bootstrap does), or point "
         "--dataset-dir or $" +
         std::string(kFashionMnistDirEnv) + " at a directory holding the IDX files";
}

// Reads a whole file through zlib, which passes non-gzip files through unchanged, so one path
// serves both .gz and plain IDX files.
std::vector<std::uint8_t> readMaybeGzipped(const std::filesystem::path &file) {
  gzFile in = gzopen(file.c_str(), "rb");
  if (!in)
    throw dataset_error("cannot open " + file.string() + "; " + installHint());
  std::vector<std::uint8_t> bytes;
  std::array<std::uint8_t, 1 << 16> chunk;
  for (;;) {
    const int n = gzread(in, chunk.data(), static_cast<unsigned>(chunk.size()));
    if (n < 0) {
      int code = 0;
      std::string why = gzerror(in, &code);
      gzclose(in);
      throw dataset_error(file.string() + " is corrupt or truncated (" + why + "); " +
                          installHint());
    }
    if (n == 0)
      break;
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + n);
  }
  // A gzip stream cut short reads as end-of-file with a pending Z_BUF_ERROR.
  int code = 0;
  const char *why = gzerror(in, &code);
  std::string reason = why ? why : "";
  gzclose(in);
  if (code != Z_OK && code != Z_STREAM_END)
    throw dataset_error(file.string() + " is corrupt or truncated (" + reason + "); " +
                        installHint());
  return bytes;
}

std::uint32_t bigEndian32(const std::vector<std::uint8_t> &bytes, std::size_t offset) {
  return (std::uint32_t{bytes[offset]} << 24) | (std::uint32_t{bytes[offset + 1]} << 16) |
         (std::uint32_t{bytes[offset + 2]} << 8) | std::uint32_t{bytes[offset + 3]};
}

std::string hex(std::uint32_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4)
    s += digits[(v >> shift) & 0xf];
  return s;
}

// Checks an IDX header and the payload size; returns the dimensions.
std::vector<std::uint32_t> parseIdxHeader(const std::vector<std::uint8_t> &bytes,
                                          const std::filesystem::path &file,
                                          std::uint32_t expectedMagic, unsigned numDims) {
  const std::size_t headerBytes = 4 + 4 * numDims;
  if (bytes.size() < headerBytes)
    throw dataset_error(file.string() + " is truncated: " + std::to_string(bytes.size()) +
                        " bytes, shorter than its " + std::to_string(headerBytes) +
                        "-byte IDX header; " + installHint());
  const std::uint32_t magic = bigEndian32(bytes, 0);
  if (magic != expectedMagic)
    throw dataset_error(file.string() + " has IDX magic number " + hex(magic) + ", expected " +
                        hex(expectedMagic) + " (is it the right file?)");
  std::vector<std::uint32_t> dims;
  std::size_t payload = 1;
  for (unsigned d = 0; d < numDims; ++d) {
    dims.push_back(bigEndian32(bytes, 4 + 4 * d));
    payload *= dims.back();
  }
  const std::size_t actual = bytes.size() - headerBytes;
  if (actual < payload)
    throw dataset_error(file.string() + " is truncated: the header promises " +
                        std::to_string(payload) + " bytes of data but only " +
                        std::to_string(actual) + " follow; " + installHint());
  if (actual > payload)
    throw dataset_error(file.string() + " has " + std::to_string(actual - payload) +
                        " bytes after the " + std::to_string(payload) +
                        " its header describes; the file is corrupt");
  return dims;
}

std::filesystem::path findFile(const std::filesystem::path &directory, const std::string &stem) {
  const std::filesystem::path gz = directory / (stem + ".gz");
  if (std::filesystem::exists(gz))
    return gz;
  const std::filesystem::path plain = directory / stem;
  if (std::filesystem::exists(plain))
    return plain;
  throw dataset_error("Fashion-MNIST file " + gz.string() + " (or " + plain.string() +
                      ") does not exist; " + installHint());
}

} // namespace

std::filesystem::path fashionMnistDirectory(const std::string &flagValue) {
  if (!flagValue.empty())
    return flagValue;
  if (const char *env = std::getenv(kFashionMnistDirEnv); env && *env)
    return env;
  return kDebianFashionMnistDir;
}

ImageSet readIdxImageSet(const std::filesystem::path &imagesFile,
                         const std::filesystem::path &labelsFile, std::size_t numClasses) {
  const std::vector<std::uint8_t> imageBytes = readMaybeGzipped(imagesFile);
  const std::vector<std::uint32_t> imageDims =
      parseIdxHeader(imageBytes, imagesFile, kImagesMagic, 3);
  const std::vector<std::uint8_t> labelBytes = readMaybeGzipped(labelsFile);
  const std::vector<std::uint32_t> labelDims =
      parseIdxHeader(labelBytes, labelsFile, kLabelsMagic, 1);
  if (imageDims[1] == 0 || imageDims[2] == 0)
    throw dataset_error(imagesFile.string() + " declares " + std::to_string(imageDims[1]) + "x" +
                        std::to_string(imageDims[2]) + " images; expected non-empty images");
  if (imageDims[0] != labelDims[0])
    throw dataset_error(imagesFile.string() + " holds " + std::to_string(imageDims[0]) +
                        " images but " + labelsFile.string() + " holds " +
                        std::to_string(labelDims[0]) + " labels; the two files must match");

  ImageSet set;
  set.rows = imageDims[1];
  set.cols = imageDims[2];
  set.pixels.assign(imageBytes.begin() + 16, imageBytes.end());
  set.labels.assign(labelBytes.begin() + 8, labelBytes.end());
  for (std::size_t i = 0; i < set.labels.size(); ++i)
    if (set.labels[i] >= numClasses)
      throw dataset_error(labelsFile.string() + ": label " + std::to_string(set.labels[i]) +
                          " of item " + std::to_string(i) + " is outside 0.." +
                          std::to_string(numClasses - 1));
  return set;
}

ImageSet loadFashionMnist(FashionMnistSplit split, const std::filesystem::path &directory) {
  const std::string prefix = split == FashionMnistSplit::Train ? "train" : "t10k";
  const std::filesystem::path images = findFile(directory, prefix + "-images-idx3-ubyte");
  const std::filesystem::path labels = findFile(directory, prefix + "-labels-idx1-ubyte");
  ImageSet set = readIdxImageSet(images, labels, kFashionMnistClasses);
  if (set.rows != kFashionMnistImageSize || set.cols != kFashionMnistImageSize)
    throw dataset_error(images.string() + " holds " + std::to_string(set.rows) + "x" +
                        std::to_string(set.cols) + " images; Fashion-MNIST images are 28x28");
  return set;
}

ImageSet selectSubset(const ImageSet &set, std::size_t count, std::optional<std::uint64_t> seed) {
  if (count == 0 || count >= set.size())
    return set;
  std::vector<std::uint32_t> chosen(set.size());
  std::iota(chosen.begin(), chosen.end(), 0u);
  if (seed) {
    SplitMix64 rng(mixSeed({*seed, 0x5b5e7u}));
    shuffle(chosen, rng);
    chosen.resize(count);
    std::sort(chosen.begin(), chosen.end());
  } else {
    chosen.resize(count);
  }
  ImageSet subset;
  subset.rows = set.rows;
  subset.cols = set.cols;
  const std::size_t pixelsPerImage = set.rows * set.cols;
  subset.pixels.reserve(count * pixelsPerImage);
  for (std::uint32_t i : chosen) {
    const auto image = set.image(i);
    subset.pixels.insert(subset.pixels.end(), image.begin(), image.end());
    subset.labels.push_back(set.labels[i]);
  }
  return subset;
}

} // namespace tessera::apps
