// Fashion-MNIST (Xiao, Rasul, Vollgraf 2017) read from the IDX files Debian's
// `dataset-fashion-mnist` package installs: 60000 training and 10000 test images of 28×28 uint8
// pixels, labels 0–9. Gzipped (*.gz) and plain IDX files are both accepted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tessera::apps {

/// A set of equally sized greyscale images with one class label each.
struct ImageSet {
  std::size_t rows = 0;
  std::size_t cols = 0;
  /// size() × rows × cols pixels, image-major then row-major.
  std::vector<std::uint8_t> pixels;
  std::vector<std::uint8_t> labels;

  std::size_t size() const { return labels.size(); }
  std::span<const std::uint8_t> image(std::size_t i) const {
    return {pixels.data() + i * rows * cols, rows * cols};
  }
};

enum class FashionMnistSplit { Train, Test };

inline constexpr std::size_t kFashionMnistClasses = 10;
inline constexpr std::size_t kFashionMnistImageSize = 28;
/// Where Debian's dataset-fashion-mnist package puts the files.
inline constexpr const char *kDebianFashionMnistDir = "/usr/share/datasets/fashion-mnist";
/// Environment variable that overrides the Debian directory.
inline constexpr const char *kFashionMnistDirEnv = "TESSERA_FASHION_MNIST_DIR";

/// The directory to read from: `flagValue` when non-empty, else $TESSERA_FASHION_MNIST_DIR when
/// set and non-empty, else the Debian path.
std::filesystem::path fashionMnistDirectory(const std::string &flagValue = "");

/// Reads one images file (IDX magic 0x00000803) and its labels file (magic 0x00000801),
/// validating magic numbers, dimensions, counts and sizes, and that every label is below
/// `numClasses`. Throws dataset_error naming the file at fault.
ImageSet readIdxImageSet(const std::filesystem::path &imagesFile,
                         const std::filesystem::path &labelsFile, std::size_t numClasses);

/// Reads one split of Fashion-MNIST from `directory` (see fashionMnistDirectory()); each file
/// is looked up as "<stem>.gz" first, then "<stem>". A missing file throws dataset_error naming
/// it and telling how to install the data set.
ImageSet loadFashionMnist(FashionMnistSplit split, const std::filesystem::path &directory);

/// The first `count` images of `set` or, with a seed, `count` images chosen uniformly without
/// replacement (kept in their original order). count 0 or ≥ size() returns the whole set.
ImageSet selectSubset(const ImageSet &set, std::size_t count,
                      std::optional<std::uint64_t> seed = std::nullopt);

} // namespace tessera::apps
