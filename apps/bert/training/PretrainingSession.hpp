// A BERT pre-training run on a simulated IPU: the device, the graph (model, losses, backward and
// optimiser), the compiled engine and the host side of the input streams. One train() call runs
// `stepsPerRun` training steps on the device inside a Repeat — forward, backward and the
// optimiser update are one device program — and returns their summed statistics.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tessera/apps/Checkpoint.hpp>
#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/LossScaling.hpp>
#include <tessera/apps/TrainingOptions.hpp>

#include "model/BertModel.hpp"

namespace tessera::bert {

enum class OptimiserKind { Sgd, AdamW, Lamb };

struct SessionOptions {
  BertConfig config;
  std::size_t batchSize = 16;
  apps::Precision precision = apps::Precision::Float32;
  std::uint64_t seed = 42;
  unsigned hostThreads = 0; ///< 0 lets the SDK choose
  unsigned ipus = 1;
  unsigned tilesPerIpu = 0;  ///< 0: a Mk2 IPU's 1472
  unsigned bytesPerTile = 0; ///< 0: a Mk2 tile's 624 KiB
  unsigned stepsPerRun = 1;  ///< training steps per host call (a device-side Repeat)
  /// Micro-batches whose gradients are summed before each optimiser step (AdamW and LAMB see
  /// their mean): the global batch is batchSize × gradientAccumulation.
  unsigned gradientAccumulation = 1;
  /// Loss scaling (apps/common LossScaler): with 16.32 precision dynamic by default; off (a
  /// constant scale of 1) in 32.32 unless set.
  std::optional<apps::LossScalingOptions> lossScaling;
  /// Data-parallel replicas in the whole run (under tessera-run spread over the instances), each
  /// on `ipus` IPUs training on its own batches of batchSize; gradients are averaged across
  /// replicas (gcl MEAN) before every optimiser step. Every replica draws the same dropout masks.
  unsigned replicas = 1;
  /// Time every compute set (engine option debug.instrument), for profileReport().
  bool instrument = false;
  /// Plan every matMul for a real IPU's cycles and compile even when tiles overflow: the
  /// session is then for estimateIpuStepCycles (--estimate-ipu), not for training.
  bool planForIpu = false;
  OptimiserKind optimiser = OptimiserKind::Lamb;
  float momentum = 0.9f;     ///< SGD only
  float weightDecay = 0.01f; ///< applied to weight matrices and tables only
};

/// Sums over the steps of one train() call (or one evaluate()).
struct StepStatistics {
  unsigned steps = 0;
  double mlmLoss = 0, nspLoss = 0;     ///< sums of the per-step mean losses
  double mlmCorrect = 0, mlmCount = 0; ///< masked-LM predictions right / made
  double nspCorrect = 0, nspCount = 0; ///< next-sentence predictions right / made
  double lossScale = 1;                ///< after the call, with loss scaling
  double skippedSteps = 0;             ///< steps skipped for inf/NaN gradients so far
  double meanLoss() const { return steps ? (mlmLoss + nspLoss) / steps : 0.0; }
  double mlmAccuracy() const { return mlmCount ? mlmCorrect / mlmCount : 0.0; }
  double nspAccuracy() const { return nspCount ? nspCorrect / nspCount : 0.0; }
};

class PretrainingSession {
public:
  /// Builds and compiles; reports the graph and compile times on `log`.
  PretrainingSession(SessionOptions options, std::ostream &log);
  ~PretrainingSession();

  const SessionOptions &options() const;
  /// Gives every parameter its initial value and zeroes the optimiser state.
  void initialise();
  /// stepsPerRun training steps of gradientAccumulation micro-batches each (batches in that
  /// order; with replicas, each micro-batch is `replicas` consecutive batches, replica 0's
  /// first), step i at learning rate learningRates[i] (the rates travel with the batches, so a
  /// schedule changes every step however many steps a run holds).
  StepStatistics train(const std::vector<HostBatch> &batches,
                       const std::vector<double> &learningRates);
  /// As above, every step at `learningRate`.
  StepStatistics train(const std::vector<HostBatch> &batches, double learningRate);
  /// Losses and accuracies of one batch without dropout and without updating anything (with
  /// replicas, one batch per replica: their statistics summed, losses averaged).
  StepStatistics evaluate(const HostBatch &batch);
  StepStatistics evaluate(const std::vector<HostBatch> &perReplica);

  /// Every parameter, optimiser state and the dropout seed, for checkpoints.
  void saveState(apps::CheckpointState &state);
  /// Restores what saveState wrote. Throws checkpoint_error naming a missing or mis-shaped
  /// tensor (e.g. a checkpoint of another configuration).
  void restoreState(const apps::CheckpointState &state);

  /// With `instrument`: the host time of the runs so far by kind and by layer, and their Chrome
  /// trace written to `traceFile` (<tessera/profile/StepBreakdown.hpp>).
  void profileReport(std::ostream &out, const std::string &traceFile);

  /// planForIpu only: the IPU cost model's cycles for one micro-batch (inputs, forward,
  /// backward, statistics) and for one optimiser update; nothing runs. Throws app_error for a
  /// session built without planForIpu.
  apps::IpuStepCycles estimateIpuStepCycles() const;

  double buildSeconds() const;
  double compileSeconds() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace tessera::bert
