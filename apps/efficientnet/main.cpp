// efficientnet: trains EfficientNet (B0 … B4 by compound scaling; depthwise, or Graphcore's G16
// grouped convolutions) on Fashion-MNIST on a simulated IPU and reports throughput, accuracy and
// time to the target accuracy.
#include <iostream>

#include <poplar/exceptions.hpp>

#include <tessera/apps/ClassifierReport.hpp>
#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingOptions.hpp>

#include "EfficientNet.hpp"

namespace po = boost::program_options;
using namespace tessera;

namespace {

struct ModelOptions {
  efficientnet::EfficientNetConfig net;
  std::string norm = "batch";
  std::string stem = "small";
  std::size_t imageSize = 32;
  bool augment = false;
  std::uint64_t stopAfterSteps = 0;
  std::uint64_t checkpointEverySteps = 0;
  unsigned tiles = 0;
  // B0 at 32 px and batch 32 needs ≈ 2.5 GB of tile memory: more than one Mk2 IPU holds.
  unsigned ipus = 4;
};

void addModelOptions(po::options_description &d, ModelOptions &m) {
  // clang-format off
  d.add_options()
    ("variant", po::value(&m.net.variant)->default_value(m.net.variant), "b0 | b1 | b2 | b3 | b4 (the paper's compound scaling)")
    ("width", po::value(&m.net.widthMultiplier)->default_value(0), "Channel width multiplier (0: the variant's)")
    ("depth-multiplier", po::value(&m.net.depthMultiplier)->default_value(0), "Block repeat multiplier (0: the variant's)")
    ("group-size", po::value(&m.net.groupSize)->default_value(m.net.groupSize), "Channels per group of the kxk convolutions: 1 depthwise, 16 Graphcore's G16")
    ("expand-ratio", po::value(&m.net.expandRatio)->default_value(0), "MBConv expansion after the first stage (0: 6, or 4 with --group-size > 1)")
    ("norm", po::value(&m.norm)->default_value(m.norm), "batch | group | layer-proxy")
    ("drop-connect", po::value(&m.net.dropConnectRate)->default_value(m.net.dropConnectRate), "Stochastic-depth rate of the last block (earlier blocks scaled by depth)")
    ("image-size", po::value(&m.imageSize)->default_value(m.imageSize), "Side of the square input images (>= 28; larger pads the images)")
    ("stem", po::value(&m.stem)->default_value(m.stem), "small (stride-1 stem for 28-32 px) | imagenet (stride 2)")
    ("augment", po::bool_switch(&m.augment), "Random-crop and flip augmentation")
    ("stop-after-steps", po::value(&m.stopAfterSteps)->default_value(0), "Stop as if killed after N steps, writing a checkpoint (0: run to the end)")
    ("checkpoint-every", po::value(&m.checkpointEverySteps)->default_value(0), "Also checkpoint every N steps (0: at the end of each epoch only)")
    ("tiles", po::value(&m.tiles)->default_value(0), "Tiles per simulated IPU (0: 1472)")
    ("ipus", po::value(&m.ipus)->default_value(m.ipus), "Simulated Mk2 IPUs");
  // clang-format on
}

int run(int argc, char **argv) {
  apps::TrainingOptions options;
  options.epochs = 3;
  options.batchSize = 32;
  options.learningRate = 0.05;
  options.warmupEpochs = 0.2;
  options.weightDecay = 1e-5;
  options.targetAccuracy = 0.90;
  ModelOptions model;
  po::options_description description("efficientnet: EfficientNet on Fashion-MNIST (Tessera)");
  apps::addTrainingOptions(description, options);
  addModelOptions(description, model);
  apps::parseCommandLine(argc, argv, description);
  if (options.help) {
    std::cout << description << "\n";
    return 0;
  }
  apps::validateTrainingOptions(options);
  model.net.norm = efficientnet::normByName(model.norm);
  if (model.stem != "small" && model.stem != "imagenet")
    throw apps::cli_error("--stem '" + model.stem + "' is not a stem; use small or imagenet");
  model.net.smallImageStem = model.stem == "small";
  if (model.ipus == 0 || model.ipus > 16)
    throw apps::cli_error("--ipus " + std::to_string(model.ipus) + " must be 1 to 16");
  // Checks the configuration and image size before any data is read.
  efficientnet::validate(model.net, model.imageSize);

  apps::ClassifierSpec spec;
  spec.modelName = "efficientnet";
  spec.modelConfig = efficientnet::describe(model.net);
  spec.modelConfig["image-size"] = std::to_string(model.imageSize);
  spec.imageSize = model.imageSize;
  spec.numClasses = model.net.numClasses;
  spec.augment = model.augment;
  spec.stopAfterSteps = model.stopAfterSteps;
  spec.checkpointEverySteps = model.checkpointEverySteps;
  spec.tiles = model.tiles;
  spec.ipus = model.ipus;

  apps::ClassifierTrainer trainer(efficientnet::buildEfficientNet(model.net), spec, options,
                                  std::cout);
  apps::reportClassifierRun(spec, options, trainer.run(), std::cout);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const poplar::poplar_error &e) {
    std::cerr << "efficientnet: error: " << e.what() << "\n";
    return 2;
  }
}
