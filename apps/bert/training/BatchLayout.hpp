// From the data loader's batch (positions within rows, weights for used slots) to the device's
// layout (HostBatch: flat row indices, unused slots labelled MASKED_LABEL_CODE).
#pragma once

#include "data/PretrainingExamples.hpp"
#include "model/BertModel.hpp"

namespace tessera::bert {

/// Throws apps::app_error when `batch`'s shape is not (B, S, P, K) of `config` and `batchSize`.
HostBatch toDeviceLayout(const PretrainingBatch &batch, const BertConfig &config,
                         std::size_t batchSize);

} // namespace tessera::bert
