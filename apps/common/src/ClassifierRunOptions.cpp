#include <tessera/apps/ClassifierRunOptions.hpp>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingOptions.hpp>

#include <tessera/apps/ReplicaPlacement.hpp>

#include <optional>
#include <string>

namespace po = boost::program_options;

namespace tessera::apps {

unsigned parseIpus(const std::string &value) {
  if (value == "auto")
    return 0;
  const std::optional<unsigned long> n = parseWholeNumber(value);
  if (!n || *n == 0 || *n > 16)
    throw cli_error("--ipus " + value + " must be auto or 1 to 16");
  return static_cast<unsigned>(*n);
}

void addClassifierRunOptions(po::options_description &d, ClassifierRunOptions &o) {
  // clang-format off
  d.add_options()
    ("image-size", po::value(&o.imageSize)->default_value(o.imageSize),
     "Side of the square input images (>= 28; larger pads the images)")
    ("augment", po::bool_switch(&o.augment), "Random-crop and flip augmentation")
    ("stop-after-steps", po::value(&o.stopAfterSteps)->default_value(0),
     "Stop as if killed after N steps, writing a checkpoint (0: run to the end)")
    ("checkpoint-every", po::value(&o.checkpointEverySteps)->default_value(0),
     "Also checkpoint every N steps (0: at the end of each epoch only)")
    ("tiles", po::value(&o.tiles)->default_value(o.tiles), "Tiles per simulated IPU (0: 1472)")
    ("ipus", po::value<std::string>()->default_value(o.ipus ? std::to_string(o.ipus) : "auto")
                 ->notifier([&o](const std::string &v) { o.ipus = parseIpus(v); }),
     "Simulated Mk2 IPUs (900 MB of tile memory each), 1 to 16, or auto: the fewest of 1, 2, 4, 8, 16 the model fits in (a build that overflows tile memory is retried on twice as many; while each layer's tile window fits in one IPU its plans, and so the results, do not depend on the count)")
    ("replicas", po::value(&o.replicas)->default_value(o.replicas),
     "Data-parallel replicas, each on --ipus IPUs with --batch-size images per step, gradients averaged across them (0: tessera-run's --num-replicas, else 1)")
    ("estimate-ipu", po::bool_switch(&o.estimateIpu),
     "Train nothing: compile the model (1000 classes, as on ImageNet) planned for a real IPU and print the IPU cost model's step time and what --pod-replicas replicas would train at")
    ("pod-replicas", po::value(&o.podReplicas)->default_value(o.podReplicas),
     "--estimate-ipu: data-parallel replicas of the simulated POD (one IPU each)")
    ("pod-accumulation", po::value(&o.podAccumulation)->default_value(o.podAccumulation),
     "--estimate-ipu: micro-batches of --batch-size accumulated per weight update");
  // clang-format on
}

void validateClassifierRunOptions(const ClassifierRunOptions &o) {
  if (o.imageSize < 28)
    throw cli_error("--image-size " + std::to_string(o.imageSize) +
                    " is below the 28 pixels of Fashion-MNIST images");
  if (o.ipus > 16)
    throw cli_error("--ipus " + std::to_string(o.ipus) + " must be auto or 1 to 16");
  if (o.replicas > 64)
    throw cli_error("--replicas " + std::to_string(o.replicas) + " must be 64 or fewer");
  if (o.podReplicas == 0)
    throw cli_error("--pod-replicas must be at least 1");
  if (o.podAccumulation == 0)
    throw cli_error("--pod-accumulation must be at least 1");
}

ClassifierSpec classifierSpecOf(const std::string &modelName,
                                std::map<std::string, std::string> modelConfig,
                                std::size_t numClasses, const ClassifierRunOptions &o) {
  ClassifierSpec spec;
  spec.modelName = modelName;
  spec.modelConfig = std::move(modelConfig);
  spec.modelConfig["image-size"] = std::to_string(o.imageSize);
  spec.imageSize = o.imageSize;
  spec.numClasses = numClasses;
  spec.augment = o.augment;
  spec.stopAfterSteps = o.stopAfterSteps;
  spec.checkpointEverySteps = o.checkpointEverySteps;
  spec.tiles = o.tiles;
  spec.ipus = o.ipus;
  spec.replicas = requestedReplicas(o.replicas);
  // Replicas change what a step trains on (replicas × batch images): part of the configuration
  // a checkpoint must match. Left out for one replica, as every earlier run had.
  if (spec.replicas > 1)
    spec.modelConfig["replicas"] = std::to_string(spec.replicas);
  // The trainers' model configurations (resnet::describe, efficientnet::describe) name every
  // setting their model is built from. (An estimate's executable is not cached.)
  spec.reuseCompiledGraph = !o.estimateIpu;
  spec.planForIpu = o.estimateIpu;
  return spec;
}

} // namespace tessera::apps
