// The training framework end to end on models without convolutions (fast): an MLP learns
// Fashion-MNIST, gradients of a batch-normalised network match finite differences (also of the
// label-smoothed loss), and a run stopped mid-way and resumed from its checkpoint ends with
// bit-identical weights (with dropout, the same masks: the step seed is checkpointed; with
// RMSprop and a moving average of the weights, the same optimiser state and average). The moving
// average follows the weights step by step and validation uses it.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include <tessera/apps/Checkpoint.hpp>
#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingData.hpp>
#include <tessera/apps/layers/BatchNorm.hpp>
#include <tessera/apps/layers/Dense.hpp>
#include <tessera/apps/layers/Dropout.hpp>
#include <tessera/apps/layers/Sequential.hpp>
#include <tessera/apps/layers/Simple.hpp>

#include "TempDir.hpp"

namespace tessera::apps {
namespace {

LayerPtr mlp(std::size_t hidden, bool batchNorm) {
  auto net = std::make_unique<Sequential>("mlp");
  net->add(std::make_unique<Flatten>("flatten"));
  net->add(std::make_unique<Dense>("fc1", 28 * 28, hidden));
  if (batchNorm)
    net->add(std::make_unique<BatchNorm>("bn1", hidden));
  net->add(std::make_unique<ReLU>("relu1"));
  net->add(std::make_unique<Dense>("fc2", hidden, 10));
  return net;
}

ClassifierSpec smallSpec() {
  ClassifierSpec spec;
  spec.modelName = "mlp";
  spec.modelConfig = {{"hidden", "64"}};
  spec.tiles = 16;
  return spec;
}

TrainingOptions quickOptions() {
  TrainingOptions o;
  o.batchSize = 32;
  o.learningRate = 0.05;
  o.momentum = 0.9;
  o.weightDecay = 1e-4;
  o.lrSchedule = LrSchedule::Constant;
  o.hostThreads = 2;
  return o;
}

TEST(ClassifierTrainer, MlpLearnsFashionMnistSubset) {
  TrainingOptions o = quickOptions();
  o.epochs = 3;
  o.trainSubset = 3200; // 100 steps per epoch, 300 in all
  o.validation = true;
  o.targetAccuracy = 0.7;
  std::ostringstream log;
  ClassifierTrainer trainer(mlp(64, true), smallSpec(), o, log);
  // The loss of the freshly initialised network on the first batch, for comparison.
  DataLoader loader(loadTrainingImages(o), trainingLoaderOptions(o, 28));
  const Batch first = loader.makeBatch({0, 0});
  trainer.initialise();
  const double initialLoss = trainer.lossAndGradients(first).loss;
  const TrainingResult r = trainer.run();
  EXPECT_EQ(r.steps, 300u);
  EXPECT_EQ(r.epochs, 3u);
  EXPECT_LT(r.finalLoss, 0.6 * initialLoss) << log.str();
  EXPECT_GT(r.finalAccuracy, 0.7) << log.str();
  EXPECT_TRUE(r.timeToTargetSeconds.has_value());
  EXPECT_GT(r.imagesPerSecond, 0.0);
}

TEST(ClassifierTrainer, ProfileStepsPrintsWhereTheTimeWentAndWritesATrace) {
  testing::TempDir dir;
  TrainingOptions o = quickOptions();
  o.syntheticData = true;
  o.trainSubset = 128; // 4 steps
  o.validation = false;
  o.profileSteps = 2;
  o.profileTrace = (dir.path() / "trace.json").string();
  std::ostringstream log;
  ClassifierTrainer(mlp(32, true), smallSpec(), o, log).run();
  EXPECT_NE(log.str().find("profile of the first 2 steps"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("by kind:"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("by layer:"), std::string::npos) << log.str();
  std::ifstream trace(o.profileTrace);
  std::string text((std::istreambuf_iterator<char>(trace)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.rfind("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", 0), 0u);
  EXPECT_NE(text.find("\"ph\":\"X\""), std::string::npos);
}

TEST(ClassifierTrainer, StopAtTargetEndsAtTheFirstValidationThatReachesIt) {
  TrainingOptions o = quickOptions();
  o.epochs = 3;
  o.trainSubset = 640; // 20 steps per epoch
  o.validation = true;
  o.targetAccuracy = 0.3; // an MLP passes this after one epoch of Fashion-MNIST
  o.stopAtTarget = true;
  std::ostringstream log;
  ClassifierTrainer trainer(mlp(64, true), smallSpec(), o, log);
  const TrainingResult r = trainer.run();
  ASSERT_TRUE(r.timeToTargetSeconds.has_value()) << log.str();
  EXPECT_TRUE(r.stoppedAtTarget);
  EXPECT_EQ(r.epochs, 1u) << log.str();
  EXPECT_EQ(r.steps, 20u);
  EXPECT_GE(r.finalAccuracy, 0.3);
}

void expectGradientsMatchFiniteDifferences(double labelSmoothing) {
  TrainingOptions o = quickOptions();
  o.labelSmoothing = labelSmoothing;
  o.batchSize = 8;
  o.syntheticData = true;
  o.trainSubset = 64;
  std::ostringstream log;
  ClassifierSpec spec = smallSpec();
  ClassifierTrainer trainer(mlp(6, true), spec, o, log);
  trainer.initialise();
  DataLoader loader(loadTrainingImages(o), trainingLoaderOptions(o, 28));
  const Batch batch = loader.makeBatch({0, 0});
  trainer.lossAndGradients(batch);
  for (const std::string name :
       {"fc1/weights", "fc1/bias", "bn1/gamma", "bn1/beta", "fc2/weights", "fc2/bias"}) {
    const std::vector<float> grad = trainer.readGradient(name);
    const std::vector<float> w0 = trainer.readParameter(name);
    // A few elements spread over the tensor; the biggest-gradient element is always included.
    std::vector<std::size_t> picks = {0, w0.size() / 2, w0.size() - 1};
    std::size_t biggest = 0;
    for (std::size_t i = 0; i < grad.size(); ++i)
      if (std::fabs(grad[i]) > std::fabs(grad[biggest]))
        biggest = i;
    picks.push_back(biggest);
    for (std::size_t i : picks) {
      const float h = 1e-2f * std::max(1.0f, std::fabs(w0[i]));
      std::vector<float> w = w0;
      w[i] = w0[i] + h;
      trainer.writeParameter(name, w);
      const double up = trainer.lossAndGradients(batch).loss;
      w[i] = w0[i] - h;
      trainer.writeParameter(name, w);
      const double down = trainer.lossAndGradients(batch).loss;
      trainer.writeParameter(name, w0);
      const double numeric = (up - down) / (2.0 * h);
      EXPECT_NEAR(grad[i], numeric, 2e-3 + 0.05 * std::fabs(numeric)) << name << "[" << i << "]";
    }
    trainer.lossAndGradients(batch); // leave the gradients of the unperturbed weights
  }
}

TEST(ClassifierTrainer, GradientsMatchFiniteDifferences) {
  expectGradientsMatchFiniteDifferences(0);
}

TEST(ClassifierTrainer, LabelSmoothedGradientsMatchFiniteDifferences) {
  expectGradientsMatchFiniteDifferences(0.2);
}

std::map<std::string, std::vector<float>> finalTensors(const std::filesystem::path &dir) {
  auto latest = latestCheckpoint(dir);
  EXPECT_TRUE(latest.has_value());
  CheckpointState s = readCheckpoint(*latest);
  std::map<std::string, std::vector<float>> out;
  for (const auto &t : s.tensors)
    out[t.name] = t.data;
  for (const auto &t : s.optimiserState)
    out["state:" + t.name] = t.data;
  out["step"] = {float(s.step)};
  return out;
}

/// Trains `model()` for 20 steps in one go and, separately, stopped after 7 and resumed: the
/// final checkpoints (weights, optimiser and random state) must be bit-identical. Returns the
/// resumed run's final random state.
std::vector<std::uint32_t>
expectKilledRunResumesBitExactly(const std::function<LayerPtr()> &model,
                                 const std::function<void(TrainingOptions &)> &configure = {}) {
  testing::TempDir whole, interrupted;
  TrainingOptions o = quickOptions();
  if (configure)
    configure(o);
  o.epochs = 2;
  o.trainSubset = 320; // 10 steps per epoch
  o.validation = false;
  o.lrSchedule = LrSchedule::Cosine;
  std::ostringstream log;
  {
    TrainingOptions a = o;
    a.checkpointDir = whole.path().string();
    ClassifierTrainer trainer(model(), smallSpec(), a, log);
    EXPECT_EQ(trainer.run().steps, 20u);
  }
  {
    TrainingOptions b = o;
    b.checkpointDir = interrupted.path().string();
    ClassifierSpec spec = smallSpec();
    spec.stopAfterSteps = 7; // mid-epoch: the loader position matters
    ClassifierTrainer trainer(model(), spec, b, log);
    const TrainingResult r = trainer.run();
    EXPECT_TRUE(r.stoppedEarly);
    EXPECT_EQ(r.steps, 7u);
  }
  {
    TrainingOptions c = o;
    c.checkpointDir = interrupted.path().string();
    c.resume = true;
    ClassifierTrainer trainer(model(), smallSpec(), c, log);
    EXPECT_EQ(trainer.run().steps, 20u);
  }
  const auto a = finalTensors(whole.path()), b = finalTensors(interrupted.path());
  EXPECT_EQ(a.size(), b.size());
  for (const auto &[name, values] : a) {
    const auto other = b.find(name);
    if (other == b.end()) {
      ADD_FAILURE() << name << " missing after resuming";
      continue;
    }
    EXPECT_EQ(values, other->second) << name << " differs after resuming";
  }
  const std::vector<std::uint32_t> rngWhole =
      readCheckpoint(*latestCheckpoint(whole.path())).rngState;
  EXPECT_EQ(rngWhole, readCheckpoint(*latestCheckpoint(interrupted.path())).rngState);
  return rngWhole;
}

TEST(ClassifierTrainer, KilledRunResumesBitExactly) {
  expectKilledRunResumesBitExactly([] { return mlp(16, true); });
}

TEST(ClassifierTrainer, KilledRunWithDropoutResumesBitExactlyAndMasksChangeEveryStep) {
  auto model = [] {
    auto net = std::make_unique<Sequential>("mlp");
    net->add(std::make_unique<Flatten>("flatten"));
    net->add(std::make_unique<Dense>("fc1", 28 * 28, 16));
    net->add(std::make_unique<ReLU>("relu1"));
    net->add(std::make_unique<Dropout>("dropout1", 0.2f));
    net->add(std::make_unique<Dense>("fc2", 16, 10));
    return LayerPtr(std::move(net));
  };
  const std::vector<std::uint32_t> rng = expectKilledRunResumesBitExactly(model);
  // The run's seed, then the step seed: initialised from the seed and advanced once per step.
  const std::uint64_t seed = quickOptions().seed;
  ASSERT_EQ(rng.size(), 4u);
  EXPECT_EQ(rng[2], std::uint32_t(seed & 0xffffffffu));
  EXPECT_EQ(rng[3], std::uint32_t(seed >> 32) + 20u);
}

TEST(ClassifierTrainer, KilledRunWithRmsPropSmoothingAndAverageResumesBitExactly) {
  expectKilledRunResumesBitExactly([] { return mlp(16, true); },
                                   [](TrainingOptions &o) {
                                     o.optimiser = OptimiserType::RmsProp;
                                     o.learningRate = 0.01;
                                     o.labelSmoothing = 0.1;
                                     o.emaDecay = 0.9;
                                   });
  // The state the comparison covered.
  testing::TempDir dir;
  TrainingOptions o = quickOptions();
  o.optimiser = OptimiserType::RmsProp;
  o.emaDecay = 0.9;
  o.epochs = 1;
  o.trainSubset = 64;
  o.validation = false;
  o.checkpointDir = dir.path().string();
  std::ostringstream log;
  ClassifierTrainer(mlp(16, true), smallSpec(), o, log).run();
  const auto tensors = finalTensors(dir.path());
  for (const char *state : {"state:fc1/weights/rms", "state:fc1/weights/momentum",
                            "state:fc1/weights/ema", "state:bn1/gamma/ema"})
    EXPECT_EQ(tensors.count(state), 1u) << state;
  EXPECT_EQ(tensors.count("state:fc1/weights/velocity"), 0u) << "no SGD state with RMSprop";
}

TEST(ClassifierTrainer, MovingAverageFollowsTheWeightsAndValidatesInTheirPlace) {
  TrainingOptions o = quickOptions();
  o.batchSize = 16;
  o.syntheticData = true;
  o.trainSubset = 64;
  o.emaDecay = 0.8;
  std::ostringstream log;
  ClassifierTrainer trainer(mlp(8, false), smallSpec(), o, log);
  trainer.initialise();
  const std::vector<std::string> names = trainer.parameterNames();
  auto averages = [&] {
    std::map<std::string, std::vector<float>> out;
    for (const auto &t : trainer.snapshot(0, {}).optimiserState)
      if (t.name.ends_with("/ema"))
        out[t.name.substr(0, t.name.size() - 4)] = t.data;
    return out;
  };
  // The average starts at the initial weights, then ema ← d·ema + (1 − d)·w after every step.
  std::map<std::string, std::vector<double>> host;
  for (const auto &name : names) {
    const std::vector<float> w = trainer.readParameter(name);
    host[name].assign(w.begin(), w.end());
  }
  ASSERT_EQ(averages().size(), names.size());
  for (const auto &[name, ema] : averages())
    EXPECT_EQ(std::vector<double>(ema.begin(), ema.end()), host.at(name)) << name;
  DataLoader loader(loadTrainingImages(o), trainingLoaderOptions(o, 28));
  for (int step = 0; step < 3; ++step) {
    trainer.trainStep(loader.next(), 0.05);
    for (const auto &name : names) {
      const std::vector<float> w = trainer.readParameter(name);
      for (std::size_t i = 0; i < w.size(); ++i)
        host[name][i] = o.emaDecay * host[name][i] + (1 - o.emaDecay) * w[i];
    }
  }
  const auto device = averages();
  for (const auto &name : names) {
    const std::vector<float> &ema = device.at(name);
    const std::vector<float> w = trainer.readParameter(name);
    ASSERT_EQ(ema.size(), host[name].size()) << name;
    bool behind = false; // the average lags the weights
    for (std::size_t i = 0; i < ema.size(); ++i) {
      ASSERT_NEAR(ema[i], host[name][i], 1e-6 * (1 + std::fabs(host[name][i])))
          << name << "[" << i << "]";
      behind |= ema[i] != w[i];
    }
    EXPECT_TRUE(behind) << name;
  }

  // Validation runs on the average and leaves the weights as they were: the same loss as a
  // trainer without an average given the averaged values as its weights.
  const Batch batch = loader.next();
  std::map<std::string, std::vector<float>> weights;
  for (const auto &name : names)
    weights[name] = trainer.readParameter(name);
  const StepResult averaged = trainer.evaluate(batch);
  for (const auto &name : names)
    EXPECT_EQ(trainer.readParameter(name), weights[name]) << name << " changed by validation";
  TrainingOptions plainOptions = o;
  plainOptions.emaDecay = 0;
  ClassifierTrainer plain(mlp(8, false), smallSpec(), plainOptions, log);
  plain.initialise();
  for (const auto &name : names)
    plain.writeParameter(name, device.at(name));
  const StepResult reference = plain.evaluate(batch);
  EXPECT_NEAR(averaged.loss, reference.loss, 1e-6 * (1 + std::fabs(reference.loss)));
  EXPECT_EQ(averaged.correct, reference.correct);
  for (const auto &name : names)
    plain.writeParameter(name, weights[name]);
  EXPECT_NE(plain.evaluate(batch).loss, averaged.loss) << "the weights themselves score otherwise";
}

TEST(ClassifierTrainer, CheckpointsWithoutTheOptimiserSettingsResumeAsSgdOnly) {
  // Checkpoints written before --optimiser, --label-smoothing and --ema-decay existed lack those
  // settings: they were SGD without smoothing or average.
  testing::TempDir dir;
  TrainingOptions o = quickOptions();
  o.epochs = 1;
  o.trainSubset = 64;
  o.validation = false;
  o.checkpointDir = dir.path().string();
  std::ostringstream log;
  ClassifierTrainer(mlp(16, false), smallSpec(), o, log).run();
  const auto path = latestCheckpoint(dir.path());
  ASSERT_TRUE(path.has_value());
  CheckpointState old = readCheckpoint(*path);
  for (const char *key : {"optimiser", "label-smoothing", "ema-decay"})
    EXPECT_EQ(old.config.erase(key), 1u) << key;
  writeCheckpointFile(*path, old);

  o.resume = true;
  o.epochs = 2;
  EXPECT_EQ(ClassifierTrainer(mlp(16, false), smallSpec(), o, log).run().steps, 4u);
  // Another optimiser cannot continue it.
  o.epochs = 3;
  o.optimiser = OptimiserType::RmsProp;
  ClassifierTrainer rmsprop(mlp(16, false), smallSpec(), o, log);
  try {
    rmsprop.run();
    FAIL() << "RMSprop resumed an SGD checkpoint";
  } catch (const checkpoint_error &e) {
    EXPECT_NE(std::string(e.what()).find("'optimiser' is 'sgd' in the checkpoint but 'rmsprop'"),
              std::string::npos)
        << e.what();
  }
}

TEST(ClassifierTrainer, ResumeRejectsAnotherModelsCheckpoint) {
  testing::TempDir dir;
  TrainingOptions o = quickOptions();
  o.epochs = 1;
  o.trainSubset = 64;
  o.validation = false;
  o.checkpointDir = dir.path().string();
  std::ostringstream log;
  {
    ClassifierTrainer trainer(mlp(16, false), smallSpec(), o, log);
    trainer.run();
  }
  o.resume = true;
  ClassifierSpec other = smallSpec();
  other.modelConfig["hidden"] = "32";
  ClassifierTrainer trainer(mlp(32, false), other, o, log);
  try {
    trainer.run();
    FAIL() << "resuming another model's checkpoint must fail";
  } catch (const checkpoint_error &e) {
    EXPECT_NE(std::string(e.what()).find("hidden"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace tessera::apps

namespace tessera::apps {
namespace {

TEST(ClassifierTrainer, HalfPrecisionMlpLearns) {
  TrainingOptions o = quickOptions();
  o.epochs = 1;
  o.trainSubset = 3200;
  o.precision = Precision::Half16Partials32;
  o.validation = true;
  std::ostringstream log;
  ClassifierSpec spec = smallSpec();
  spec.tiles = 0; // a full IPU
  ClassifierTrainer trainer(mlp(64, true), spec, o, log);
  const TrainingResult r = trainer.run();
  EXPECT_GT(r.finalAccuracy, 0.7) << log.str();
  // Parameters are HALF on the device and read back widened.
  EXPECT_EQ(trainer.readParameter("fc1/weights").size(), 28u * 28u * 64u);
}

} // namespace
} // namespace tessera::apps
