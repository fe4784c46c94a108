// What a classifier trainer prints when it has finished, and the benchmark record it writes with
// --record-file: the same for every image model (ResNet, EfficientNet).
#pragma once

#include <ostream>

#include <tessera/apps/ClassifierRunOptions.hpp>
#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/IpuPodEstimate.hpp>
#include <tessera/apps/TrainingOptions.hpp>

namespace tessera::apps {

/// Prints steps, time, images/s, the final loss and accuracy and the time to the target
/// accuracy; writes options.recordFile (with cost figures under --price-per-hour) when set.
void reportClassifierRun(const ClassifierSpec &spec, const TrainingOptions &options,
                         const TrainingResult &r, std::ostream &out);

/// --estimate-ipu: prices `trainer`'s (IPU-planned) step with the cost model and prints what
/// run.podReplicas replicas accumulating run.podAccumulation micro-batches would train at,
/// beside `published` (samplesPerSecond 0: none to compare with).
void reportClassifierIpuEstimate(const std::string &model, const ClassifierTrainer &trainer,
                                 const TrainingOptions &options, const ClassifierRunOptions &run,
                                 const PublishedFigure &published, std::ostream &out);

} // namespace tessera::apps
