#include "tessera/apps/LearningRate.hpp"

#include "tessera/apps/Errors.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

namespace tessera::apps {

double learningRateAt(LrSchedule schedule, double baseRate, double epoch, double totalEpochs,
                      double warmupEpochs) {
  if (!(totalEpochs > 0))
    throw cli_error("--epochs must be > 0 for a learning-rate schedule");
  if (!(warmupEpochs >= 0 && warmupEpochs <= totalEpochs))
    throw cli_error("--warmup-epochs " + std::to_string(warmupEpochs) + " must be in [0, " +
                    std::to_string(totalEpochs) + "]");
  if (epoch < warmupEpochs)
    return baseRate * std::max(epoch / warmupEpochs, 1e-3);
  switch (schedule) {
  case LrSchedule::Constant:
    return baseRate;
  case LrSchedule::Step:
    if (epoch >= 0.75 * totalEpochs)
      return baseRate * 0.01;
    if (epoch >= 0.5 * totalEpochs)
      return baseRate * 0.1;
    return baseRate;
  case LrSchedule::Linear: {
    const double span = totalEpochs - warmupEpochs;
    if (span <= 0)
      return baseRate;
    return baseRate * std::clamp((totalEpochs - epoch) / span, 0.0, 1.0);
  }
  case LrSchedule::Cosine: {
    const double span = totalEpochs - warmupEpochs;
    if (span <= 0)
      return baseRate;
    const double progress = std::clamp((epoch - warmupEpochs) / span, 0.0, 1.0);
    return baseRate * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
  }
  }
  return baseRate;
}

double learningRateAt(const TrainingOptions &options, double epoch) {
  return learningRateAt(options.lrSchedule, options.learningRate, epoch, options.epochs,
                        options.warmupEpochs);
}

} // namespace tessera::apps
