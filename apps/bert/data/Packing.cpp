#include "data/Packing.hpp"

#include "data/PretrainingLoader.hpp"
#include "tessera/apps/Errors.hpp"

#include <algorithm>
#include <numeric>

namespace tessera::bert {

std::vector<std::vector<std::uint32_t>> packRows(std::span<const std::uint32_t> lengths,
                                                 std::span<const std::uint32_t> predictions,
                                                 const PackingLimits &limits, std::size_t window) {
  if (lengths.size() != predictions.size() || window == 0 || limits.maxSequences == 0)
    throw apps::app_error("packRows: " + std::to_string(lengths.size()) + " lengths and " +
                          std::to_string(predictions.size()) +
                          " prediction counts must match, with a window and K of at least 1");
  std::vector<std::vector<std::uint32_t>> rows;
  struct Room {
    std::size_t tokens, predictions;
  };
  for (std::size_t begin = 0; begin < lengths.size(); begin += window) {
    const std::size_t end = std::min(lengths.size(), begin + window);
    std::vector<std::uint32_t> order(end - begin);
    std::iota(order.begin(), order.end(), static_cast<std::uint32_t>(begin));
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return lengths[a] > lengths[b]; });
    const std::size_t firstRow = rows.size();
    std::vector<Room> used;
    for (std::uint32_t item : order) {
      if (lengths[item] > limits.rowTokens || predictions[item] > limits.maxPredictions)
        throw apps::app_error(
            "packRows: item " + std::to_string(item) + " (" + std::to_string(lengths[item]) +
            " tokens, " + std::to_string(predictions[item]) +
            " predictions) does not fit a row of " + std::to_string(limits.rowTokens) +
            " tokens and " + std::to_string(limits.maxPredictions) + " predictions");
      std::size_t r = 0;
      for (; r < used.size(); ++r)
        if (used[r].tokens + lengths[item] <= limits.rowTokens &&
            used[r].predictions + predictions[item] <= limits.maxPredictions &&
            rows[firstRow + r].size() < limits.maxSequences)
          break;
      if (r == used.size()) {
        used.push_back({0, 0});
        rows.emplace_back();
      }
      used[r].tokens += lengths[item];
      used[r].predictions += predictions[item];
      rows[firstRow + r].push_back(item);
    }
  }
  return rows;
}

double realTokenFraction(const PretrainingBatch &batch) {
  if (batch.sequenceIds.empty())
    return 0.0;
  const auto real = std::count_if(batch.sequenceIds.begin(), batch.sequenceIds.end(),
                                  [](std::uint32_t id) { return id != 0; });
  return static_cast<double>(real) / static_cast<double>(batch.sequenceIds.size());
}

PackingGain measurePackingGain(std::shared_ptr<const TokenizedDocuments> documents,
                               const BertDataOptions &options, std::size_t numBatches) {
  PackingGain gain;
  for (bool packing : {false, true}) {
    BertDataOptions o = options;
    o.packing = packing;
    o.prefetchBatches = 0;
    const PretrainingLoader loader(documents, o);
    const std::size_t batches = std::min(numBatches, loader.batchesPerEpoch(0));
    double sum = 0.0;
    for (std::size_t b = 0; b < batches; ++b)
      sum += realTokenFraction(loader.makeBatch({0, b}));
    (packing ? gain.packedFraction : gain.unpackedFraction) =
        batches ? sum / static_cast<double>(batches) : 0.0;
  }
  return gain;
}

} // namespace tessera::bert
