// The flags every image-classifier trainer (resnet50, efficientnet) has besides the training
// options: the input size and augmentation, the simulated device, and when to checkpoint or stop.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <boost/program_options.hpp>

#include <tessera/apps/ClassifierTrainer.hpp>

namespace tessera::apps {

struct ClassifierRunOptions {
  std::size_t imageSize = 28;
  bool augment = false;
  std::uint64_t stopAfterSteps = 0;
  std::uint64_t checkpointEverySteps = 0;
  unsigned tiles = 0;    ///< per IPU; 0: a Mk2's 1472
  unsigned ipus = 0;     ///< 0: auto (ClassifierSpec::ipus)
  unsigned replicas = 0; ///< 0: tessera-run's --num-replicas, else 1
  /// --estimate-ipu: compile the model planned for an IPU and print what a POD of
  /// `podReplicas` replicas would train at (IpuPodEstimate.hpp), accumulating `podAccumulation`
  /// micro-batches of --batch-size per weight update; no training runs.
  bool estimateIpu = false;
  unsigned podReplicas = 16;
  unsigned podAccumulation = 1;
};

/// Adds --image-size, --augment, --stop-after-steps, --checkpoint-every, --tiles, --ipus,
/// --replicas, --estimate-ipu, --pod-replicas and --pod-accumulation, with the values `options`
/// holds as defaults (a trainer sets its own before calling this).
void addClassifierRunOptions(boost::program_options::options_description &description,
                             ClassifierRunOptions &options);

/// --ipus's value: "auto" (0) or 1 to 16; throws cli_error naming the flag otherwise.
unsigned parseIpus(const std::string &value);

/// Throws cli_error naming the flag: --image-size below Fashion-MNIST's 28 pixels, --ipus
/// above 16, --replicas above 64, --pod-replicas or --pod-accumulation 0.
void validateClassifierRunOptions(const ClassifierRunOptions &options);

/// The trainer's spec for model `modelName` (described by `modelConfig`, to which the image
/// size is added) with `numClasses` outputs.
ClassifierSpec classifierSpecOf(const std::string &modelName,
                                std::map<std::string, std::string> modelConfig,
                                std::size_t numClasses, const ClassifierRunOptions &options);

} // namespace tessera::apps
