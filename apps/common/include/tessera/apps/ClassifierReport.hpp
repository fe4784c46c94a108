// What a classifier trainer prints when it has finished, and the benchmark record it writes with
// --record-file: the same for every image model (ResNet, EfficientNet).
#pragma once

#include <ostream>

#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/TrainingOptions.hpp>

namespace tessera::apps {

/// Prints steps, time, images/s, the final loss and accuracy and the time to the target
/// accuracy; writes options.recordFile (with cost figures under --price-per-hour) when set.
void reportClassifierRun(const ClassifierSpec &spec, const TrainingOptions &options,
                         const TrainingResult &r, std::ostream &out);

} // namespace tessera::apps
