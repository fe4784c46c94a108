#include "data/PretrainingLoader.hpp"

#include "data/Packing.hpp"
#include "tessera/apps/Errors.hpp"
#include "tessera/apps/Random.hpp"

namespace tessera::bert {
namespace {

constexpr std::uint64_t kRowShufflePurpose = 0x524f5753ULL;

} // namespace

RowPlan planRows(const PretrainingExampleSource &source, std::uint64_t epoch) {
  const BertDataOptions &o = source.options();
  const std::size_t n = source.examplesPerEpoch();
  RowPlan rows;
  if (!o.packing) {
    rows.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      rows[i] = {static_cast<std::uint32_t>(i)};
    return rows;
  }
  std::vector<std::uint32_t> lengths(n), predictions(n);
  for (std::size_t i = 0; i < n; ++i) {
    const PretrainingExample ex = source.example(epoch, i);
    lengths[i] = static_cast<std::uint32_t>(ex.tokenIds.size());
    predictions[i] = static_cast<std::uint32_t>(ex.maskedPositions.size());
  }
  rows = packRows(lengths, predictions, {o.sequenceLength, o.maxSequencesPerRow, o.maxPredictions},
                  o.packingWindow);
  // First-fit decreasing leaves the fullest rows first in each window; mix them.
  std::vector<std::uint32_t> order(rows.size());
  for (std::size_t r = 0; r < order.size(); ++r)
    order[r] = static_cast<std::uint32_t>(r);
  apps::SplitMix64 rng(apps::mixSeed({o.seed, epoch, kRowShufflePurpose}));
  apps::shuffle(order, rng);
  RowPlan shuffled(rows.size());
  for (std::size_t r = 0; r < order.size(); ++r)
    shuffled[r] = std::move(rows[order[r]]);
  return shuffled;
}

PretrainingBatch assembleBatch(const PretrainingExampleSource &source, std::uint64_t epoch,
                               const RowPlan &rows, std::size_t firstRow) {
  const BertDataOptions &o = source.options();
  PretrainingBatch batch =
      makeEmptyBatch(o.batchSize, o.sequenceLength, o.maxPredictions, o.sequencesPerRow());
  std::vector<PretrainingExample> examples;
  std::vector<const PretrainingExample *> pointers;
  for (std::size_t r = 0; r < o.batchSize && firstRow + r < rows.size(); ++r) {
    examples.clear();
    for (std::uint32_t index : rows[firstRow + r])
      examples.push_back(source.example(epoch, index));
    pointers.clear();
    for (const PretrainingExample &ex : examples)
      pointers.push_back(&ex);
    placeSequences(batch, r, pointers);
  }
  return batch;
}

PretrainingLoader::PretrainingLoader(std::shared_ptr<const TokenizedDocuments> training,
                                     BertDataOptions options)
    : source_(std::move(training), options) {
  if (batchesPerEpoch(0) == 0)
    throw apps::dataset_error("the training documents make " + std::to_string(rowPlan(0)->size()) +
                              " rows, fewer than batchSize " + std::to_string(options.batchSize) +
                              "; use a smaller batch or a larger corpus");
  queue_ = std::make_unique<apps::PrefetchQueue<PretrainingBatch>>(
      [this](LoaderPosition at) { return makeBatch(at); },
      [this](LoaderPosition at) { return advance(at); }, options.prefetchBatches);
}

PretrainingLoader::~PretrainingLoader() = default;

std::shared_ptr<const RowPlan> PretrainingLoader::rowPlan(std::uint64_t epoch) const {
  std::lock_guard<std::mutex> lock(planMutex_);
  if (!cachedPlan_ || cachedEpoch_ != epoch) {
    cachedPlan_ = std::make_shared<const RowPlan>(planRows(source_, epoch));
    cachedEpoch_ = epoch;
  }
  return cachedPlan_;
}

std::size_t PretrainingLoader::batchesPerEpoch(std::uint64_t epoch) const {
  if (!options().packing)
    return source_.examplesPerEpoch() / options().batchSize;
  return rowPlan(epoch)->size() / options().batchSize;
}

LoaderPosition PretrainingLoader::advance(LoaderPosition p) const {
  if (++p.batch >= batchesPerEpoch(p.epoch)) {
    p.batch = 0;
    ++p.epoch;
  }
  return p;
}

PretrainingBatch PretrainingLoader::makeBatch(LoaderPosition position) const {
  const auto plan = rowPlan(position.epoch);
  if (position.batch >= plan->size() / options().batchSize)
    throw apps::app_error("PretrainingLoader: batch " + std::to_string(position.batch) +
                          " is past the " + std::to_string(plan->size() / options().batchSize) +
                          " batches of epoch " + std::to_string(position.epoch));
  return assembleBatch(source_, position.epoch, *plan, position.batch * options().batchSize);
}

PretrainingBatch PretrainingLoader::next() { return queue_->next(); }

LoaderPosition PretrainingLoader::position() const { return queue_->position(); }

void PretrainingLoader::seek(LoaderPosition position) {
  if (position.batch >= batchesPerEpoch(position.epoch))
    throw apps::app_error("PretrainingLoader::seek: batch " + std::to_string(position.batch) +
                          " is past the " + std::to_string(batchesPerEpoch(position.epoch)) +
                          " batches of epoch " + std::to_string(position.epoch) +
                          "; was the checkpoint written with another batch size, seed or corpus?");
  queue_->seek(position);
}

HeldOutBatches::HeldOutBatches(std::shared_ptr<const TokenizedDocuments> heldOut,
                               BertDataOptions options)
    : source_(std::move(heldOut), options), rows_(planRows(source_, 0)),
      numBatches_((rows_.size() + options.batchSize - 1) / options.batchSize) {}

PretrainingBatch HeldOutBatches::batch(std::size_t index) const {
  if (index >= numBatches_)
    throw apps::app_error("HeldOutBatches: batch " + std::to_string(index) + " is past the " +
                          std::to_string(numBatches_) + " held-out batches");
  return assembleBatch(source_, 0, rows_, index * source_.options().batchSize);
}

} // namespace tessera::bert
