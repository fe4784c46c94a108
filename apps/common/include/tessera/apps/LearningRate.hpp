// The learning-rate schedules --lr-schedule selects, as host functions of training progress:
// the trainer evaluates one per step and writes the value to the device, so the graph does not
// change with the schedule.
#pragma once

#include "tessera/apps/TrainingOptions.hpp"

namespace tessera::apps {

/// Learning rate at `epoch` (fractional: 2.5 is half-way through the third epoch) of a run of
/// `totalEpochs` with peak `baseRate`:
///  - warm-up: during the first `warmupEpochs`, baseRate × epoch / warmupEpochs, clamped below
///    at 1e-3 × baseRate so the first step still learns;
///  - cosine: then baseRate × ½ (1 + cos(π (epoch − warmup) / (totalEpochs − warmup)));
///  - step: then baseRate, × 0.1 from 50 % of totalEpochs, × 0.01 from 75 %;
///  - constant: then baseRate;
///  - linear (BERT's): then baseRate × (totalEpochs − epoch) / (totalEpochs − warmup), reaching
///    0 at the end of the run.
/// Throws cli_error for totalEpochs 0 or a warm-up longer than the run.
double learningRateAt(LrSchedule schedule, double baseRate, double epoch, double totalEpochs,
                      double warmupEpochs);

/// learningRateAt with the schedule, rate, epochs and warm-up of `options`.
double learningRateAt(const TrainingOptions &options, double epoch);

} // namespace tessera::apps
