// Hands pre-training batches to the trainer. An epoch is `duplicationFactor` passes over the
// training documents (PretrainingExamples.hpp): unpacked, its rows are its examples in the
// epoch's shuffled order, B to a batch; packed, the epoch's examples are packed into rows
// (Packing.hpp) and the rows shuffled. The final partial batch of an epoch is dropped. Every batch
// is a pure function of (seed, epoch, batch), so a run resumed from a saved position sees the
// batches the original run would have. A host thread builds the next batches (prefetchBatches
// ahead) while the device runs (apps::PrefetchQueue, as apps::DataLoader).
#pragma once

#include "data/PretrainingExamples.hpp"

#include "tessera/apps/PrefetchQueue.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace tessera::bert {

using apps::LoaderPosition;

/// The rows of one epoch: each row's example indices (one when unpacked).
using RowPlan = std::vector<std::vector<std::uint32_t>>;

class PretrainingLoader {
public:
  /// Validates the options (apps::cli_error naming the option), checks that an epoch holds at
  /// least one batch (apps::dataset_error otherwise) and starts prefetching at epoch 0, batch 0.
  PretrainingLoader(std::shared_ptr<const TokenizedDocuments> training, BertDataOptions options);
  ~PretrainingLoader();
  PretrainingLoader(const PretrainingLoader &) = delete;
  PretrainingLoader &operator=(const PretrainingLoader &) = delete;

  /// Batches in `epoch`: examplesPerEpoch() / B unpacked; packed, the epoch's rows / B, which
  /// varies slightly between epochs (the examples, and so how well they pack, change).
  std::size_t batchesPerEpoch(std::uint64_t epoch) const;
  std::size_t examplesPerEpoch() const { return source_.examplesPerEpoch(); }
  const BertDataOptions &options() const { return source_.options(); }

  /// The batch at position(), then advances (rolling over to the next epoch). Blocks until the
  /// prefetch thread has it; rethrows anything the thread threw.
  PretrainingBatch next();
  /// The position of the batch next() returns.
  LoaderPosition position() const;
  /// Continue from `position` (e.g. restored from a checkpoint); discards prefetched batches.
  /// Throws apps::app_error if the batch is past the end of its epoch.
  void seek(LoaderPosition position);
  /// Builds the batch at `position` on the caller's thread: what next() returns there.
  PretrainingBatch makeBatch(LoaderPosition position) const;

private:
  std::shared_ptr<const RowPlan> rowPlan(std::uint64_t epoch) const;
  LoaderPosition advance(LoaderPosition p) const;

  PretrainingExampleSource source_;

  mutable std::mutex planMutex_;
  mutable std::uint64_t cachedEpoch_ = ~std::uint64_t{0};
  mutable std::shared_ptr<const RowPlan> cachedPlan_;

  // Last: its thread calls makeBatch, so it starts after and stops before everything above.
  std::unique_ptr<apps::PrefetchQueue<PretrainingBatch>> queue_;
};

/// Evaluation batches from the held-out documents: the same recipe and layout as training, always
/// epoch 0 of `options.seed`, so every evaluation sees the same data. All rows are used; the last
/// batch is filled up with padding rows (all weights 0).
class HeldOutBatches {
public:
  HeldOutBatches(std::shared_ptr<const TokenizedDocuments> heldOut, BertDataOptions options);
  std::size_t size() const { return numBatches_; }
  /// Batch `index` < size(). Thread-safe.
  PretrainingBatch batch(std::size_t index) const;

private:
  PretrainingExampleSource source_;
  RowPlan rows_;
  std::size_t numBatches_ = 0;
};

/// The rows of `epoch` (see PretrainingLoader).
RowPlan planRows(const PretrainingExampleSource &source, std::uint64_t epoch);
/// Rows [firstRow, firstRow + B) of `rows` as a batch; rows past the end are padding.
PretrainingBatch assembleBatch(const PretrainingExampleSource &source, std::uint64_t epoch,
                               const RowPlan &rows, std::size_t firstRow);

} // namespace tessera::bert
