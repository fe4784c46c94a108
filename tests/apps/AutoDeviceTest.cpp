// --ipus auto (ClassifierSpec::ipus 0): the trainer builds on 1, 2, 4, ... IPUs until the model
// fits, says what it chose, trains exactly as an explicit run on that many IPUs, and remembers
// in the executable cache which devices were too small.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

#include <poplar/exceptions.hpp>

#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/TrainingData.hpp>
#include <tessera/apps/layers/Dense.hpp>
#include <tessera/apps/layers/Sequential.hpp>
#include <tessera/apps/layers/Simple.hpp>

#include "TempDir.hpp"

namespace tessera::apps {
namespace {

/// fc1's weights, their momentum and gradient (3 x 784 x 1024 floats, ~9.6 MB) with everything
/// else overflow one IPU of 16 tiles (~10 MB).
LayerPtr wideMlp() {
  auto net = std::make_unique<Sequential>("mlp");
  net->add(std::make_unique<Flatten>("flatten"));
  net->add(std::make_unique<Dense>("fc1", 28 * 28, 1024));
  net->add(std::make_unique<ReLU>("relu1"));
  net->add(std::make_unique<Dense>("fc2", 1024, 10));
  return net;
}

ClassifierSpec wideSpec(unsigned ipus) {
  ClassifierSpec spec;
  spec.modelName = "mlp";
  spec.modelConfig = {{"hidden", "1024"}};
  spec.tiles = 16;
  spec.ipus = ipus;
  return spec;
}

TrainingOptions options() {
  TrainingOptions o;
  o.batchSize = 16;
  o.momentum = 0.9;
  o.trainSubset = 32;
  o.hostThreads = 2;
  return o;
}

struct Trained {
  double loss = 0;
  std::vector<float> weights;
  std::string log;
};

Trained twoSteps(const ClassifierSpec &spec) {
  const TrainingOptions o = options();
  std::ostringstream log;
  ClassifierTrainer trainer(ModelFactory(wideMlp), spec, o, log);
  DataLoader loader(loadTrainingImages(o), trainingLoaderOptions(o, 28));
  trainer.initialise();
  Trained r;
  trainer.trainStep(loader.makeBatch({0, 0}), 0.05);
  r.loss = trainer.trainStep(loader.makeBatch({0, 1}), 0.05).loss;
  r.weights = trainer.readParameter("fc1/weights");
  r.log = log.str();
  return r;
}

TEST(AutoDevice, TriesMoreIpusUntilTheModelFitsAndSaysSo) {
  std::ostringstream log;
  EXPECT_THROW(ClassifierTrainer(wideMlp(), wideSpec(1), options(), log),
               poplar::graph_memory_allocation_error)
      << "the test model must overflow one 16-tile IPU";
  const Trained automatic = twoSteps(wideSpec(0));
  EXPECT_NE(automatic.log.find("--ipus auto: the model overflows the tile memory of 1 IPU; "
                               "trying 2"),
            std::string::npos)
      << automatic.log;
  const std::string chose = "--ipus auto: ";
  const std::size_t at = automatic.log.rfind(chose);
  ASSERT_NE(at, std::string::npos) << automatic.log;
  const unsigned ipus = static_cast<unsigned>(std::stoul(automatic.log.substr(at + chose.size())));
  EXPECT_TRUE(ipus == 2 || ipus == 4 || ipus == 8 || ipus == 16) << automatic.log;
  EXPECT_NE(automatic.log.find(std::to_string(ipus) + " IPUs x 16 tiles (the fewest"),
            std::string::npos)
      << automatic.log;
  // The automatic choice builds the graph an explicit --ipus of that count builds: the same bits.
  const Trained chosen = twoSteps(wideSpec(ipus));
  EXPECT_EQ(automatic.loss, chosen.loss);
  EXPECT_EQ(automatic.weights, chosen.weights);
}

TEST(AutoDevice, ASingleModelIsBuiltOnceAndItsOverflowReported) {
  // Without a factory there is no second model to build: the first overflow stands.
  std::ostringstream log;
  EXPECT_THROW(ClassifierTrainer(wideMlp(), wideSpec(0), options(), log),
               poplar::graph_memory_allocation_error);
}

TEST(AutoDevice, AnEarlierRunsOverflowIsRemembered) {
  const testing::TempDir dir;
  const char *old = std::getenv("TESSERA_EXECUTABLE_CACHE");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  ::setenv("TESSERA_EXECUTABLE_CACHE", dir.path().c_str(), 1);
  ClassifierSpec spec = wideSpec(0);
  spec.reuseCompiledGraph = true; // wideMlp() is all "hidden" says
  std::ostringstream first, second;
  ClassifierTrainer(ModelFactory(wideMlp), spec, options(), first);
  ClassifierTrainer(ModelFactory(wideMlp), spec, options(), second);
  if (saved)
    ::setenv("TESSERA_EXECUTABLE_CACHE", saved->c_str(), 1);
  else
    ::unsetenv("TESSERA_EXECUTABLE_CACHE");
  EXPECT_NE(second.str().find("overflows the tile memory of 1 IPU (found by an earlier run)"),
            std::string::npos)
      << second.str();
  // The same choice as the first run, and its executable.
  const std::string chose = "--ipus auto: ";
  EXPECT_EQ(second.str().substr(second.str().rfind(chose)),
            first.str().substr(first.str().rfind(chose)));
  EXPECT_NE(second.str().find("loaded from the executable cache"), std::string::npos)
      << second.str();
}

} // namespace
} // namespace tessera::apps
