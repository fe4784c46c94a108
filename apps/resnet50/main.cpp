// resnet50: trains ResNet (default: ResNet-50 v1.5 at width 0.125 with the small-image stem) on
// Fashion-MNIST on a simulated 1472-tile IPU and reports time-to-train and accuracy.
#include <filesystem>
#include <iostream>

#include <poplar/exceptions.hpp>

#include <tessera/apps/ClassifierReport.hpp>
#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingOptions.hpp>

#include "ResNet.hpp"

namespace po = boost::program_options;
using namespace tessera;

namespace {

struct ModelOptions {
  resnet::ResNetConfig net;
  std::string stem = "small";
  std::size_t imageSize = 28;
  bool augment = false;
  std::uint64_t stopAfterSteps = 0;
  std::uint64_t checkpointEverySteps = 0;
  unsigned tiles = 0;
  unsigned ipus = 8;
};

void addModelOptions(po::options_description &d, ModelOptions &m) {
  // clang-format off
  d.add_options()
    ("depth", po::value(&m.net.depth)->default_value(m.net.depth), "ResNet depth: 18 | 34 | 50 | 101")
    ("width", po::value(&m.net.width)->default_value(m.net.width, "0.125"),
     "Channel width multiplier (1 = the paper's widths)")
    ("image-size", po::value(&m.imageSize)->default_value(m.imageSize),
     "Side of the square input images (>= 28; larger pads the images)")
    ("stem", po::value(&m.stem)->default_value(m.stem), "small (3x3, no pooling) | imagenet (7x7/2 + max pool)")
    ("augment", po::bool_switch(&m.augment), "Random-crop and flip augmentation")
    ("stop-after-steps", po::value(&m.stopAfterSteps)->default_value(0),
     "Stop as if killed after N steps, writing a checkpoint (0: run to the end)")
    ("checkpoint-every", po::value(&m.checkpointEverySteps)->default_value(0),
     "Also checkpoint every N steps (0: at the end of each epoch only)")
    ("tiles", po::value(&m.tiles)->default_value(0), "Tiles per simulated IPU (0: 1472)")
    ("ipus", po::value(&m.ipus)->default_value(m.ipus),
     "Simulated Mk2 IPUs (900 MB of tile memory each); without liveness analysis every tensor of the default model stays allocated, about 1 GB, and its layers need room to spread");
  // clang-format on
}

int run(int argc, char **argv) {
  apps::TrainingOptions options;
  options.epochs = 3;
  options.batchSize = 32;
  options.learningRate = 0.05;
  options.warmupEpochs = 0.2;
  options.weightDecay = 5e-5;
  options.targetAccuracy = 0.90;
  ModelOptions model;
  model.net.width = 0.125;
  po::options_description description("resnet50: ResNet on Fashion-MNIST (Tessera)");
  apps::addTrainingOptions(description, options);
  addModelOptions(description, model);
  apps::parseCommandLine(argc, argv, description);
  if (options.help) {
    std::cout << description << "\n";
    return 0;
  }
  apps::validateTrainingOptions(options);
  if (model.stem != "small" && model.stem != "imagenet")
    throw apps::cli_error("--stem '" + model.stem + "' is not a stem; use small or imagenet");
  model.net.stem = model.stem == "small" ? resnet::Stem::Small : resnet::Stem::ImageNet;
  if (model.imageSize < 28)
    throw apps::cli_error("--image-size " + std::to_string(model.imageSize) +
                          " is below the 28 pixels of Fashion-MNIST images");
  resnet::validate(model.net);

  apps::ClassifierSpec spec;
  spec.modelName = "resnet" + std::to_string(model.net.depth);
  spec.modelConfig = resnet::describe(model.net);
  spec.modelConfig["image-size"] = std::to_string(model.imageSize);
  spec.imageSize = model.imageSize;
  spec.numClasses = model.net.numClasses;
  spec.augment = model.augment;
  spec.stopAfterSteps = model.stopAfterSteps;
  spec.checkpointEverySteps = model.checkpointEverySteps;
  spec.tiles = model.tiles;
  if (model.ipus == 0 || model.ipus > 16)
    throw apps::cli_error("--ipus " + std::to_string(model.ipus) + " must be 1 to 16");
  spec.ipus = model.ipus;

  apps::ClassifierTrainer trainer(resnet::buildResNet(model.net), spec, options, std::cout);
  const apps::TrainingResult r = trainer.run();

  apps::reportClassifierRun(spec, options, r, std::cout);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const poplar::poplar_error &e) {
    std::cerr << "resnet50: error: " << e.what() << "\n";
    return 2;
  }
}
