// Warm starts without the graph: a trainer run again with the same configuration loads the
// executable its first run compiled and builds no graph, computes bit-identical steps, and
// builds the graph again when anything the graph depends on changes. The manifest store keeps
// what the trainer needs of the graph, and a damaged, foreign or unwritable one only costs a
// cold start.
#include <gtest/gtest.h>

#include <popnn/codelets.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <poplar/Type.hpp>
#include <tessera/BuildId.hpp>
#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/TrainerExecutable.hpp>
#include <tessera/apps/TrainingData.hpp>
#include <tessera/apps/layers/BatchNorm.hpp>
#include <tessera/apps/layers/Dense.hpp>
#include <tessera/apps/layers/Sequential.hpp>
#include <tessera/apps/layers/Simple.hpp>

#include "TempDir.hpp"

namespace tessera::apps {
namespace {

namespace fs = std::filesystem;

TrainerManifest sampleManifest(const std::string &identity) {
  TrainerManifest m;
  m.identity = identity;
  m.engineKey = "0123456789abcdef";
  m.parameters.push_back(
      {{"fc/weights", poplar::HALF, {3, 4}}, {"fc/weights", poplar::FLOAT, {3, 4}}});
  m.states.push_back({"fc/momentum", poplar::FLOAT, {3, 4}});
  m.states.push_back({"stepSeed", poplar::UNSIGNED_INT, {2}});
  return m;
}

TEST(TrainerManifestStore, RemembersWhatTheTrainerNeedsOfTheGraph) {
  testing::TempDir dir;
  const TrainerManifestStore store(dir.path().string());
  EXPECT_FALSE(store.find("identity A").has_value());
  store.remember(sampleManifest("identity A"));
  const auto found = store.find("identity A");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->engineKey, "0123456789abcdef");
  ASSERT_EQ(found->parameters.size(), 1u);
  EXPECT_EQ(found->parameters[0].value.name, "fc/weights");
  EXPECT_EQ(found->parameters[0].value.type, poplar::HALF);
  EXPECT_EQ(found->parameters[0].gradient.type, poplar::FLOAT);
  EXPECT_EQ(found->parameters[0].value.shape, (std::vector<std::size_t>{3, 4}));
  EXPECT_EQ(found->parameters[0].value.numElements(), 12u);
  ASSERT_EQ(found->states.size(), 2u);
  EXPECT_EQ(found->states[1].type, poplar::UNSIGNED_INT);
  EXPECT_FALSE(store.find("identity B").has_value());
}

TEST(TrainerManifestStore, AnotherIdentityUnderTheSameNameIsNotUsedNorRemoved) {
  testing::TempDir dir;
  const TrainerManifestStore store(dir.path().string());
  store.remember(sampleManifest("identity A"));
  // As if "identity B" hashed to A's file name.
  fs::copy_file(store.pathFor("identity A"), store.pathFor("identity B"));
  EXPECT_FALSE(store.find("identity B").has_value());
  EXPECT_TRUE(fs::exists(store.pathFor("identity B")));
}

TEST(TrainerManifestStore, DamagedManifestIsIgnoredAndRemoved) {
  testing::TempDir dir;
  const TrainerManifestStore store(dir.path().string());
  store.remember(sampleManifest("identity A"));
  const std::string path = store.pathFor("identity A");
  fs::resize_file(path, fs::file_size(path) / 2);
  EXPECT_FALSE(store.find("identity A").has_value());
  EXPECT_FALSE(fs::exists(path)) << "removed, so the next cold start writes it again";
  std::ofstream(path) << "not a manifest";
  EXPECT_FALSE(store.find("identity A").has_value());
}

TEST(TrainerManifestStore, UnwritableDirectoryWarnsOnceAndDoesNotThrow) {
  testing::TempDir dir;
  const std::string file = (dir / "a-file").string();
  std::ofstream(file) << "x";
  const TrainerManifestStore store(file); // trainers/ cannot be created under a file
  ::testing::internal::CaptureStderr();
  EXPECT_NO_THROW(store.remember(sampleManifest("identity A")));
  EXPECT_NO_THROW(store.remember(sampleManifest("identity B")));
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warnings.find(file), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("trainer manifest"), warnings.rfind("trainer manifest")) << warnings;
}

TEST(TrainerIdentity, NamesTheProgramAndSdkBuildsAndEverySetting) {
  const std::string id = trainerIdentity({{"width", "0.5"}, {"option seed", "3"}});
  EXPECT_NE(id.find(programBuildId()), std::string::npos);
  EXPECT_NE(id.find(tessera::sdkBuildId()), std::string::npos);
  EXPECT_NE(programBuildId(), tessera::sdkBuildId()) << "the test program is not libpoplar";
  // The graph-building libraries too: a rebuilt popnn builds another graph from one config.
  EXPECT_NE(id.find(tessera::buildIdOf(reinterpret_cast<const void *>(&popnn::addCodelets))),
            std::string::npos)
      << id;
  EXPECT_NE(id.find("width=0.5"), std::string::npos);
  EXPECT_NE(trainerIdentity({{"width", "0.25"}}), trainerIdentity({{"width", "0.5"}}));
}

LayerPtr mlp() {
  auto net = std::make_unique<Sequential>("mlp");
  net->add(std::make_unique<Flatten>("flatten"));
  net->add(std::make_unique<Dense>("fc1", 28 * 28, 32));
  net->add(std::make_unique<BatchNorm>("bn1", 32));
  net->add(std::make_unique<ReLU>("relu1"));
  net->add(std::make_unique<Dense>("fc2", 32, 10));
  return net;
}

ClassifierSpec mlpSpec() {
  ClassifierSpec spec;
  spec.modelName = "mlp";
  spec.modelConfig = {{"hidden", "32"}};
  spec.tiles = 16;
  spec.reuseCompiledGraph = true; // mlp() is all "hidden" says
  return spec;
}

TrainingOptions mlpOptions() {
  TrainingOptions o;
  o.batchSize = 16;
  o.momentum = 0.9;
  o.trainSubset = 64;
  o.hostThreads = 2;
  return o;
}

/// Points the executable cache (and so the trainers' manifests) at a fresh directory.
class IsolatedCache {
public:
  explicit IsolatedCache(const fs::path &dir) {
    const char *old = std::getenv("TESSERA_EXECUTABLE_CACHE");
    if (old)
      saved_ = old;
    ::setenv("TESSERA_EXECUTABLE_CACHE", dir.c_str(), 1);
  }
  ~IsolatedCache() {
    if (saved_)
      ::setenv("TESSERA_EXECUTABLE_CACHE", saved_->c_str(), 1);
    else
      ::unsetenv("TESSERA_EXECUTABLE_CACHE");
  }

private:
  std::optional<std::string> saved_;
};

struct TrainedStep {
  double loss = 0;
  std::vector<float> weights;
  std::vector<float> momentum;
  std::string log;
};

/// A trainer with `o`: initialise, one step on the first batch, then its fc1 weights.
TrainedStep oneStep(const TrainingOptions &o, const ClassifierSpec &spec = mlpSpec()) {
  std::ostringstream log;
  ClassifierTrainer trainer(mlp(), spec, o, log);
  DataLoader loader(loadTrainingImages(o), trainingLoaderOptions(o, 28));
  trainer.initialise();
  TrainedStep r;
  r.loss = trainer.trainStep(loader.makeBatch({0, 0}), 0.05).loss;
  r.weights = trainer.readParameter("fc1/weights");
  const CheckpointState state = trainer.snapshot(1, {0, 1});
  for (const auto &t : state.optimiserState)
    if (t.name.find("fc1/weights") != std::string::npos)
      r.momentum = t.data;
  r.log = log.str();
  return r;
}

bool builtTheGraph(const std::string &log) {
  return log.find("graph not built") == std::string::npos;
}

TEST(TrainerWarmStart, SecondRunSkipsTheGraphAndComputesTheSameBits) {
  testing::TempDir dir;
  IsolatedCache cache(dir.path());
  const TrainedStep cold = oneStep(mlpOptions());
  EXPECT_TRUE(builtTheGraph(cold.log)) << cold.log;
  const TrainedStep warm = oneStep(mlpOptions());
  EXPECT_FALSE(builtTheGraph(warm.log)) << warm.log;
  EXPECT_NE(warm.log.find("loaded from the executable cache"), std::string::npos) << warm.log;
  EXPECT_EQ(warm.loss, cold.loss);
  EXPECT_EQ(warm.weights, cold.weights);
  ASSERT_FALSE(cold.momentum.empty()) << "the snapshot names the optimiser state";
  EXPECT_EQ(warm.momentum, cold.momentum);
}

TEST(TrainerWarmStart, GraphSettingsBuildAgainAndHostSettingsDoNot) {
  testing::TempDir dir;
  IsolatedCache cache(dir.path());
  oneStep(mlpOptions());
  TrainingOptions moreEpochs = mlpOptions();
  moreEpochs.epochs = 7;
  moreEpochs.learningRate = 0.5; // written to the device every step, not part of the graph
  EXPECT_FALSE(builtTheGraph(oneStep(moreEpochs).log));
  TrainingOptions otherMomentum = mlpOptions();
  otherMomentum.momentum = 0.5;
  const TrainedStep other = oneStep(otherMomentum);
  EXPECT_TRUE(builtTheGraph(other.log)) << other.log;
  TrainingOptions otherBatch = mlpOptions();
  otherBatch.batchSize = 8;
  EXPECT_TRUE(builtTheGraph(oneStep(otherBatch).log));
}

// A model assembled in code that its configuration does not describe could change without the
// configuration changing: such a trainer always builds its graph.
TEST(TrainerWarmStart, ModelsTheConfigurationDoesNotDescribeAlwaysBuild) {
  testing::TempDir dir;
  IsolatedCache cache(dir.path());
  ClassifierSpec spec = mlpSpec();
  spec.reuseCompiledGraph = false;
  EXPECT_TRUE(builtTheGraph(oneStep(mlpOptions(), spec).log));
  EXPECT_TRUE(builtTheGraph(oneStep(mlpOptions(), spec).log));
  EXPECT_FALSE(fs::exists(dir / "trainers"));
}

TEST(TrainerWarmStart, CacheTurnedOffAlwaysBuilds) {
  testing::TempDir dir;
  IsolatedCache cache(dir.path());
  ::setenv("POPLAR_ENGINE_OPTIONS", R"({"executableCache.enable": "false"})", 1);
  const bool first = builtTheGraph(oneStep(mlpOptions()).log);
  const bool second = builtTheGraph(oneStep(mlpOptions()).log);
  ::unsetenv("POPLAR_ENGINE_OPTIONS");
  EXPECT_TRUE(first);
  EXPECT_TRUE(second);
  EXPECT_FALSE(fs::exists(dir / "trainers"));
}

} // namespace
} // namespace tessera::apps
