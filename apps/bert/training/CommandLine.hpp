// The bert trainer's command line: its flags, their checks, and what they turn into (the model
// configuration, the session's options, the run's description in checkpoints and records).
// Every check runs before the corpus is read or the graph built, so a bad flag fails at once.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>

#include <tessera/apps/LossScaling.hpp>
#include <tessera/apps/TrainingOptions.hpp>

#include "data/Corpus.hpp"
#include "data/Vocabulary.hpp"
#include "model/BertConfig.hpp"
#include "training/PretrainingSession.hpp"

namespace tessera::bert {

struct BertCommandLine {
  std::string config = "mini";
  std::size_t layers = 0, hidden = 0, heads = 0, ffn = 0; // 0: the config's
  std::size_t sequenceLength = 128, maxPredictions = 0;   // 0: scaled with the length
  std::size_t batchSize = 16, vocabSize = kDefaultVocabularySize;
  std::uint64_t steps = 200;
  unsigned stepsPerRun = 4;
  double learningRate = 2e-3, warmupFraction = 0.1, weightDecay = 0.01;
  std::string optimiser = "adamw";
  bool packing = false;
  std::uint64_t seed = 42;
  // A device of fewer, larger tiles than a Mk2 IPU: Tessera's planner puts each operation on
  // the few tiles that run it fastest on the host, so the model's activations gather on
  // those tiles; 64 tiles of 32 MiB hold mini with room to spare.
  unsigned hostThreads = 0, ipus = 1, tiles = 64;
  /// Data-parallel replicas (0: tessera-run's --num-replicas, else 1).
  unsigned replicas = 0;
  /// --profile-steps: report where the host time of the first N steps went (0: off).
  std::uint64_t profileSteps = 0;
  std::string profileTrace = "profile_trace.json";
  double tileMemoryMiB = 32;
  std::uint64_t evaluateEvery = 50;
  std::size_t evaluationBatches = 8;
  std::string corpus = kFoldocDictPath;
  std::string vocabularyDir;
  float hiddenDropout = 0.1f, attentionDropout = 0.1f;
  std::string exportRun, recordFile;
  double targetMlmAccuracy = 0;
  std::size_t trainSubset = 0;
  double epochs = 0;
  std::string checkpointDir;
  std::uint64_t checkpointEvery = 0;
  bool resume = false;
  apps::Precision precision = apps::Precision::Float32;
  unsigned gradientAccumulation = 1;
  std::string lossScaling; ///< dynamic | static | off; empty: dynamic with 16.x, else off
  float lossScale = 32768.0f;
  /// --estimate-ipu: price BERT on IPUs with the cost model instead of training
  /// (training/IpuEstimate.hpp): encoder layers per pipeline stage (one IPU each; stage 0 also
  /// holds the embeddings and the heads), replicas of the pipeline and micro-batches
  /// accumulated per weight update. The defaults are Graphcore's BERT-Large phase 1 on a POD16.
  bool estimateIpu = false;
  std::vector<unsigned> pipelineLayers{3, 7, 7, 7};
  unsigned podReplicas = 4;
  unsigned podAccumulation = 2048;
};

/// Parses and checks argv. With --help, prints the flags to `help` and returns nothing.
/// Throws apps::cli_error naming the flag (with the nearest name for a misspelt one or value).
std::optional<BertCommandLine> parseBertCommandLine(int argc, const char *const argv[],
                                                    std::ostream &help);

/// The model the flags ask for: the named config with --layers/--hidden/… overrides, checked.
BertConfig modelConfigOf(const BertCommandLine &o);

/// The loss scaling the flags ask for (none with 32.32 unless asked).
std::optional<apps::LossScalingOptions> lossScalingOf(const BertCommandLine &o);

OptimiserKind optimiserKindOf(const std::string &name);

/// The session (device, precision, optimiser) the flags ask for.
SessionOptions sessionOptionsOf(const BertCommandLine &o);

/// The run's settings as flag → value text, for records and checkpoints.
std::map<std::string, std::string> describeRun(const BertCommandLine &o, const BertConfig &config);

/// The settings a checkpoint must share with the run resuming it: everything that decides the
/// bits (not host threads or steps per run, which never change them).
std::map<std::string, std::string> runIdentity(const BertCommandLine &o, const BertConfig &config);

} // namespace tessera::bert
