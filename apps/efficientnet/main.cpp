// efficientnet: trains EfficientNet (B0 … B4 by compound scaling; depthwise, or Graphcore's G16
// grouped convolutions) on Fashion-MNIST on a simulated IPU and reports throughput, accuracy and
// time to the target accuracy.
#include <iostream>
#include <new>

#include <poplar/exceptions.hpp>

#include <tessera/apps/ClassifierReport.hpp>
#include <tessera/apps/ClassifierRunOptions.hpp>
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
    ("stem", po::value(&m.stem)->default_value(m.stem), "small (stride-1 stem for 28-32 px) | imagenet (stride 2)");
  // clang-format on
}

int runTrainer(int argc, char **argv) {
  apps::TrainingOptions options;
  options.epochs = 3;
  options.batchSize = 32;
  options.learningRate = 0.05;
  options.warmupEpochs = 0.2;
  options.weightDecay = 1e-5;
  options.targetAccuracy = 0.90;
  ModelOptions model;
  apps::ClassifierRunOptions run;
  run.imageSize = 32;
  po::options_description description("efficientnet: EfficientNet on Fashion-MNIST (Tessera)");
  apps::addTrainingOptions(description, options);
  addModelOptions(description, model);
  apps::addClassifierRunOptions(description, run);
  apps::parseCommandLine(argc, argv, description);
  if (options.help) {
    std::cout << description << "\n";
    return 0;
  }
  apps::validateTrainingOptions(options);
  apps::validateClassifierRunOptions(run);
  model.net.norm = efficientnet::normByName(model.norm);
  if (model.stem != "small" && model.stem != "imagenet")
    throw apps::cli_error("--stem '" + model.stem + "' is not a stem; use small or imagenet");
  model.net.smallImageStem = model.stem == "small";
  // Checks the configuration before any data is read.
  efficientnet::validate(model.net, run.imageSize);

  if (run.estimateIpu)
    model.net.numClasses = 1000; // ImageNet's classifier, as --estimate-ipu says
  const apps::ClassifierSpec spec = apps::classifierSpecOf(
      "efficientnet", efficientnet::describe(model.net), model.net.numClasses, run);
  // A factory, not a model: --ipus auto may build the layers more than once.
  apps::ClassifierTrainer trainer([&] { return efficientnet::buildEfficientNet(model.net); }, spec,
                                  options, std::cout);
  if (run.estimateIpu) {
    // Graphcore published EfficientNet-B4 (group-16 variant) figures, not B0's.
    apps::reportClassifierIpuEstimate("efficientnet", trainer, options, run,
                                      {0, "img/s", "no published figure for this model"},
                                      std::cout);
    return 0;
  }
  apps::reportClassifierRun(spec, options, trainer.run(), std::cout);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return runTrainer(argc, argv);
  } catch (const poplar::poplar_error &e) {
    std::cerr << "efficientnet: error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc &) {
    std::cerr << "efficientnet: error: " << tessera::apps::outOfHostMemoryMessage() << "\n";
    return 3;
  }
}
