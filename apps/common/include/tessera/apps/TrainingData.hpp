// From the shared command-line options to the images a trainer feeds: Fashion-MNIST (optionally
// a subset) or, with --synthetic-data, deterministic random images of the same shape, plus the
// matching data-loader options.
#pragma once

#include "tessera/apps/DataLoader.hpp"
#include "tessera/apps/TrainingOptions.hpp"

namespace tessera::apps {

/// Training images: the first --train-subset images of the Fashion-MNIST training split from
/// fashionMnistDirectory(--dataset-dir), or with --synthetic-data --train-subset (default
/// 60000) synthetic images seeded by --seed. Throws dataset_error when files are missing.
ImageSet loadTrainingImages(const TrainingOptions &options);

/// Validation images: the Fashion-MNIST test split, or 10000 synthetic images seeded apart
/// from the training ones.
ImageSet loadValidationImages(const TrainingOptions &options);

/// Loader options for training: --batch-size, --seed, shuffling, drop-last, `imageSize`.
/// Augmentation stays off; the caller enables what its model wants.
DataLoaderOptions trainingLoaderOptions(const TrainingOptions &options, std::size_t imageSize);

/// Loader options for validation: same batch size and image size, no shuffle, no augmentation,
/// and the last partial batch kept (padded to the batch size, see Batch::validImages) so every
/// image is scored by a fixed-size graph.
DataLoaderOptions validationLoaderOptions(const TrainingOptions &options, std::size_t imageSize);

} // namespace tessera::apps
