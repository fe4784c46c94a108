// Trains an image classifier built from layers on a simulated IPU: builds the graph once
// (forward, softmax cross-entropy — label-smoothed with --label-smoothing —, backward, the SGD or
// RMSprop update and, with --ema-decay, the moving average of the weights, and an inference pass
// for validation), compiles one Engine, then feeds batches from the data loader, writes the
// scheduled learning rate every step, validates each epoch, checkpoints and reports throughput
// and time-to-target.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tessera/apps/Checkpoint.hpp>
#include <tessera/apps/DataLoader.hpp>
#include <tessera/apps/TrainingOptions.hpp>
#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps {

/// Makes the model's layers afresh (a build that must be retried needs layers not yet built).
using ModelFactory = std::function<LayerPtr()>;

/// What the trainer needs to know about the model besides its layers.
struct ClassifierSpec {
  std::string modelName;
  /// Model configuration (flag → value); checkpoints must match it to resume.
  std::map<std::string, std::string> modelConfig;
  std::size_t imageSize = 28;
  std::size_t numClasses = 10;
  /// Random-crop and flip augmentation of the training images.
  bool augment = false;
  /// Stop (as if killed) after this many training steps in total; 0 runs to the end. A resumed
  /// run continues exactly where the stopped one would have gone on.
  std::uint64_t stopAfterSteps = 0;
  /// Also checkpoint every this many steps (0: only at the end of each epoch).
  std::uint64_t checkpointEverySteps = 0;
  /// Tiles per simulated IPU (0: a full Mk2, 1472) and IPUs in the device; a model bigger than
  /// one IPU's memory spreads its layers over all of them. ipus 0 is automatic: the fewest of
  /// 1, 2, 4, 8, 16 IPUs the model fits in — a build that overflows tile memory is retried on
  /// twice as many, with a model from the ModelFactory (each attempt builds its layers afresh).
  /// Layers are placed in tile windows sized by their working set, not by the device, so while
  /// every window fits in one IPU their plans, and the results, are the same for every count
  /// that fits; fewer IPUs only mean fewer tiles to visit.
  unsigned tiles = 0;
  unsigned ipus = 1;
  /// Data-parallel replicas in the whole run (each on `ipus` IPUs of its own; under tessera-run,
  /// spread over the instances). TrainingOptions::batchSize is then each replica's micro-batch:
  /// every step trains on replicas × batchSize images, each replica on its own slice, with the
  /// gradients averaged across replicas (gcl MEAN, in replica order) before the optimiser; batch
  /// norms use each replica's own statistics and average their running statistics. Checkpoints
  /// are written by instance 0 and read by every instance.
  unsigned replicas = 1;
  /// Set when `modelName` and `modelConfig` determine the model completely — every layer and
  /// hyperparameter — as a trainer's command line does. A later run with the same
  /// configuration (and the same builds of the program and the SDK) then loads the executable
  /// compiled before and builds no graph (TrainerExecutable.hpp). Leave it false for models
  /// assembled in code that the configuration does not describe.
  bool reuseCompiledGraph = false;
  /// Plan every convolution and matMul for a real IPU's cycles (poplin planObjective
  /// "ipuCycles") and compile even when tiles overflow (debug.allowOutOfMemory): the graph
  /// --estimate-ipu prices with the IPU cost model. Such a graph is for estimateIpuStepCycles;
  /// training with it works but runs the host slower than the host's own plans.
  bool planForIpu = false;
};

/// The IPU cost model's price of one training step, from the compiled programs.
struct IpuStepCycles {
  std::uint64_t forwardBackward = 0; ///< one micro-batch: forward, loss and backward
  std::uint64_t update = 0;          ///< the optimiser's update of every parameter
  std::size_t parameterElements = 0; ///< what a data-parallel all-reduce would carry
};

struct StepResult {
  double loss = 0;
  std::size_t correct = 0;
};

struct TrainingResult {
  std::uint64_t steps = 0;
  std::uint64_t epochs = 0;
  double imagesPerSecond = 0; ///< training steps only (no compile, no validation)
  double trainingSeconds = 0; ///< wall time from the first step to the end
  double compileSeconds = 0;  ///< graph construction and Engine compilation
  std::optional<double> timeToTargetSeconds;
  double finalAccuracy = 0;     ///< last validation accuracy (0 without validation)
  double finalLoss = 0;         ///< mean training loss over the last epoch
  bool stoppedEarly = false;    ///< stopAfterSteps reached
  bool stoppedAtTarget = false; ///< stopAtTarget: the target was reached before the last epoch
};

class ClassifierTrainer {
public:
  /// Builds the graph for `model` and compiles it. Throws what the SDK throws when the model
  /// does not fit the tiles (graph_memory_allocation_error names the tile); with spec.ipus 0
  /// (automatic) the one model can be built once, so it is built on one IPU.
  ClassifierTrainer(LayerPtr model, ClassifierSpec spec, TrainingOptions options,
                    std::ostream &log);
  /// The same, with a fresh model from `makeModel` for each build: spec.ipus 0 then tries 1, 2,
  /// 4, 8 and 16 IPUs until the model fits, and prints the choice.
  ClassifierTrainer(ModelFactory makeModel, ClassifierSpec spec, TrainingOptions options,
                    std::ostream &log);
  ~ClassifierTrainer();
  ClassifierTrainer(const ClassifierTrainer &) = delete;
  ClassifierTrainer &operator=(const ClassifierTrainer &) = delete;

  /// The whole run as `options` say: data, epochs, validation, checkpoints, --resume.
  TrainingResult run();

  // Lower-level steps (tests, gradient checks).
  /// Runs the initialisers (weights from the seed, zero optimiser state).
  void initialise();
  /// One optimiser step on `batch` with learning rate `lr` (and the moving-average update).
  StepResult trainStep(const Batch &batch, double lr);
  /// Forward (training mode) and backward on `batch` without updating: the loss, and the
  /// gradients are then readable with readGradient.
  StepResult lossAndGradients(const Batch &batch);
  /// Inference-mode forward: loss (one-hot, never smoothed) and correct count over the first
  /// batch.validImages images, with the moving average of the weights in place of the weights
  /// when --ema-decay is on (the weights themselves are left as they were).
  StepResult evaluate(const Batch &batch);

  std::vector<std::string> parameterNames() const;
  std::vector<std::size_t> parameterShape(const std::string &name) const;
  std::vector<float> readParameter(const std::string &name);
  void writeParameter(const std::string &name, const std::vector<float> &values);
  std::vector<float> readGradient(const std::string &name);
  /// Every parameter and state tensor (running statistics, optimiser state such as
  /// "<parameter>/velocity", the moving averages "<parameter>/ema"), as checkpoints hold.
  CheckpointState snapshot(std::uint64_t step, LoaderPosition position);
  void restore(const CheckpointState &state, const std::filesystem::path &file);
  std::size_t batchSize() const;
  /// Engine::estimateProgramCycles of the training pass and of the update (the train step
  /// less the training pass); nothing runs.
  IpuStepCycles estimateIpuStepCycles() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace tessera::apps
