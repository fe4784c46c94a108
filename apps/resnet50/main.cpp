// resnet50: trains ResNet (default: ResNet-50 v1.5 at width 0.125 with the small-image stem) on
// Fashion-MNIST on a simulated 1472-tile IPU and reports time-to-train and accuracy.
#include <filesystem>
#include <iostream>
#include <new>

#include <poplar/exceptions.hpp>

#include <tessera/apps/ClassifierReport.hpp>
#include <tessera/apps/ClassifierRunOptions.hpp>
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
};

void addModelOptions(po::options_description &d, ModelOptions &m) {
  // clang-format off
  d.add_options()
    ("depth", po::value(&m.net.depth)->default_value(m.net.depth), "ResNet depth: 18 | 34 | 50 | 101")
    ("width", po::value(&m.net.width)->default_value(m.net.width, "0.125"),
     "Channel width multiplier (1 = the paper's widths)")
    ("stem", po::value(&m.stem)->default_value(m.stem), "small (3x3, no pooling) | imagenet (7x7/2 + max pool)");
  // clang-format on
}

int runTrainer(int argc, char **argv) {
  apps::TrainingOptions options;
  options.epochs = 3;
  options.batchSize = 32;
  options.learningRate = 0.05;
  options.warmupEpochs = 0.2;
  options.weightDecay = 5e-5;
  options.targetAccuracy = 0.90;
  ModelOptions model;
  model.net.width = 0.125;
  apps::ClassifierRunOptions run;
  po::options_description description("resnet50: ResNet on Fashion-MNIST (Tessera)");
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
  if (model.stem != "small" && model.stem != "imagenet")
    throw apps::cli_error("--stem '" + model.stem + "' is not a stem; use small or imagenet");
  model.net.stem = model.stem == "small" ? resnet::Stem::Small : resnet::Stem::ImageNet;
  resnet::validate(model.net);

  if (run.estimateIpu)
    model.net.numClasses = 1000; // ImageNet's classifier, as the published figures train
  const std::string name = "resnet" + std::to_string(model.net.depth);
  const apps::ClassifierSpec spec =
      apps::classifierSpecOf(name, resnet::describe(model.net), model.net.numClasses, run);
  // A factory, not a model: --ipus auto may build the layers more than once.
  apps::ClassifierTrainer trainer([&] { return resnet::buildResNet(model.net); }, spec, options,
                                  std::cout);
  if (run.estimateIpu) {
    // Graphcore's performance-results table (Bow Pod platform, training): ResNet-50 v1.5 on
    // ImageNet, micro-batch 20 per IPU (config mk2_resnet50_mlperf_pod16_bs20).
    const apps::PublishedFigure published{
        42029, "img/s",
        "Graphcore, ResNet-50 v1.5 Bow-POD16, pre-SDK 2.5 TensorFlow 1, batch 1920, 16.16"};
    apps::reportClassifierIpuEstimate(name, trainer, options, run, published, std::cout);
    return 0;
  }
  const apps::TrainingResult r = trainer.run();

  apps::reportClassifierRun(spec, options, r, std::cout);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return runTrainer(argc, argv);
  } catch (const poplar::poplar_error &e) {
    std::cerr << "resnet50: error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc &) {
    std::cerr << "resnet50: error: " << tessera::apps::outOfHostMemoryMessage() << "\n";
    return 3;
  }
}
