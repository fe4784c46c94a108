// bert: pre-trains BERT (masked LM + next sentence) on the FOLDOC corpus (Debian's dict-foldoc)
// on a simulated IPU, printing the loss and accuracies as it goes and the held-out masked-LM
// accuracy curve.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include <boost/program_options.hpp>

#include <poplar/exceptions.hpp>

#include <tessera/apps/BenchmarkRecord.hpp>
#include <tessera/apps/Checkpoint.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/LearningRate.hpp>
#include <tessera/apps/TrainingOptions.hpp>

#include "data/Corpus.hpp"
#include "data/PretrainingLoader.hpp"
#include "data/Vocabulary.hpp"
#include "training/BatchFile.hpp"
#include "training/BatchLayout.hpp"
#include "training/PretrainingSession.hpp"

namespace po = boost::program_options;
using namespace tessera;
using namespace tessera::bert;

namespace {

struct Options {
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
  std::string lossScaling;
  float lossScale = 32768.0f;
};

OptimiserKind optimiserKind(const std::string &name) {
  if (name == "lamb")
    return OptimiserKind::Lamb;
  if (name == "adamw")
    return OptimiserKind::AdamW;
  if (name == "sgd")
    return OptimiserKind::Sgd;
  std::string message = "--optimiser '" + name + "' is not one of lamb, adamw, sgd";
  if (const auto near = apps::nearestName(name, {"lamb", "adamw", "sgd"}); !near.empty())
    message += "; did you mean '" + near + "'?";
  throw apps::cli_error(message);
}

/// Sums the session's evaluation over `count` batches from `batchAt`.
StepStatistics evaluateBatches(PretrainingSession &session, std::size_t count,
                               const std::function<PretrainingBatch(std::size_t)> &batchAt) {
  StepStatistics total;
  const auto &o = session.options();
  for (std::size_t i = 0; i < count; ++i) {
    const StepStatistics s = session.evaluate(toDeviceLayout(batchAt(i), o.config, o.batchSize));
    total.steps += 1;
    total.mlmLoss += s.mlmLoss;
    total.nspLoss += s.nspLoss;
    total.mlmCorrect += s.mlmCorrect;
    total.mlmCount += s.mlmCount;
    total.nspCorrect += s.nspCorrect;
    total.nspCount += s.nspCount;
  }
  return total;
}

/// The run's settings as flag → value text, for records and checkpoints.
std::map<std::string, std::string> describeRun(const Options &o, const BertConfig &config) {
  auto text = [](auto v) {
    std::ostringstream s;
    s << v;
    return s.str();
  };
  return {{"config", o.config},
          {"layers", text(config.layers)},
          {"hidden", text(config.hidden)},
          {"heads", text(config.heads)},
          {"ffn", text(config.ffn)},
          {"vocab_size", text(config.vocabSize)},
          {"sequence_length", text(config.sequenceLength)},
          {"max_predictions", text(config.maxPredictions)},
          {"packing", o.packing ? "true" : "false"},
          {"batch_size", text(o.batchSize)},
          {"gradient_accumulation", text(o.gradientAccumulation)},
          {"steps", text(o.steps)},
          {"steps_per_run", text(o.stepsPerRun)},
          {"optimiser", o.optimiser},
          {"learning_rate", text(o.learningRate)},
          {"warmup", text(o.warmupFraction)},
          {"weight_decay", text(o.weightDecay)},
          {"hidden_dropout", text(config.hiddenDropout)},
          {"attention_dropout", text(config.attentionDropout)},
          {"seed", text(o.seed)},
          {"host_threads", text(o.hostThreads)},
          {"precision", apps::toString(o.precision)},
          {"loss_scaling", o.lossScaling.empty() ? "default" : o.lossScaling},
          {"loss_scale", text(o.lossScale)}};
}

/// The settings a checkpoint must share with the run resuming it: everything that decides the
/// bits (not host threads or steps per run, which never change them).
std::map<std::string, std::string> runIdentity(const Options &o, const BertConfig &config) {
  auto identity = describeRun(o, config);
  identity.erase("host_threads");
  identity.erase("steps_per_run");
  identity["train_subset"] = std::to_string(o.trainSubset);
  return identity;
}

/// --export-run: the initial weights and every batch the run will see, for the PyTorch twin.
/// The batches come from a second loader with the same options, so the training loader is
/// untouched and the twin's data order is exactly the run's.
void exportRun(const Options &o, PretrainingSession &session, const BertDataOptions &data,
               const std::shared_ptr<const TokenizedDocuments> &training,
               const HeldOutBatches &heldOut, const std::vector<PretrainingBatch> &subset) {
  const std::filesystem::path dir(o.exportRun);
  apps::CheckpointState state;
  state.modelName = "bert";
  state.config = describeRun(o, session.options().config);
  session.saveState(state);
  apps::writeCheckpointFile(dir / "initial.ckpt", state);
  PretrainingLoader replay(training, data);
  std::vector<PretrainingBatch> train, evaluation;
  if (o.gradientAccumulation != 1)
    throw apps::cli_error("--export-run: the PyTorch twin takes one batch per step; run without "
                          "--gradient-accumulation");
  for (std::uint64_t i = 0; i < o.steps; ++i)
    train.push_back(subset.empty() ? replay.next() : subset[i % subset.size()]);
  if (!subset.empty()) // the run evaluates on its training subset
    evaluation = subset;
  for (std::size_t i = 0; subset.empty() && i < heldOut.size() && i < o.evaluationBatches; ++i)
    evaluation.push_back(heldOut.batch(i));
  BatchFileHeader header;
  header.config = session.options().config;
  header.packing = o.packing;
  header.batchSize = o.batchSize;
  header.seed = o.seed;
  header.corpus = o.corpus;
  writeBatchFile(dir / "batches.pb", header, train, evaluation);
  std::cout << "exported the initial weights and " << train.size() << " training and "
            << evaluation.size() << " held-out batches to " << dir.string() << std::endl;
}

int run(int argc, char **argv) {
  Options o;
  bool help = false;
  po::options_description d("bert: BERT pre-training on the FOLDOC corpus (Tessera)");
  // clang-format off
  d.add_options()
    ("help", po::bool_switch(&help), "Print this help")
    ("config", po::value(&o.config)->default_value(o.config), "tiny | mini | base | large")
    ("layers", po::value(&o.layers)->default_value(0), "Encoder layers (0: the config's)")
    ("hidden", po::value(&o.hidden)->default_value(0), "Hidden size (0: the config's)")
    ("heads", po::value(&o.heads)->default_value(0), "Attention heads (0: the config's)")
    ("ffn", po::value(&o.ffn)->default_value(0), "Feed-forward width (0: the config's)")
    ("sequence-length", po::value(&o.sequenceLength)->default_value(o.sequenceLength), "Tokens per row (up to 512)")
    ("max-predictions", po::value(&o.maxPredictions)->default_value(0), "Masked-LM slots per row (0: 20 at 128, scaled with the length)")
    ("batch-size", po::value(&o.batchSize)->default_value(o.batchSize), "Rows per step")
    ("steps", po::value(&o.steps)->default_value(o.steps), "Training steps")
    ("steps-per-run", po::value(&o.stepsPerRun)->default_value(o.stepsPerRun), "Steps per host call (a device-side Repeat)")
    ("optimiser", po::value(&o.optimiser)->default_value(o.optimiser), "lamb | adamw | sgd")
    ("learning-rate", po::value(&o.learningRate)->default_value(o.learningRate), "Peak learning rate")
    ("warmup", po::value(&o.warmupFraction)->default_value(o.warmupFraction), "Linear warm-up as a fraction of the steps, then linear decay to 0")
    ("weight-decay", po::value(&o.weightDecay)->default_value(o.weightDecay), "Decoupled weight decay (not on biases and norms)")
    ("packing", po::bool_switch(&o.packing), "Pack up to 3 sequences per row")
    ("vocab-size", po::value(&o.vocabSize)->default_value(o.vocabSize), "SentencePiece vocabulary size")
    ("vocab-dir", po::value(&o.vocabularyDir), "Vocabulary cache (default $TESSERA_DATA_CACHE, else ~/.cache/tessera/bert)")
    ("corpus", po::value(&o.corpus)->default_value(o.corpus), "FOLDOC dictionary file (Debian package dict-foldoc)")
    ("seed", po::value(&o.seed)->default_value(o.seed), "Seed of weights, data and dropout")
    ("host-threads", po::value(&o.hostThreads)->default_value(0), "Host threads running tiles (0: all cores)")
    ("ipus", po::value(&o.ipus)->default_value(o.ipus), "Simulated IPUs")
    ("tiles", po::value(&o.tiles)->default_value(o.tiles), "Tiles per IPU (0: a Mk2's 1472)")
    ("tile-memory", po::value(&o.tileMemoryMiB)->default_value(o.tileMemoryMiB), "Memory per tile in MiB (0: a Mk2 tile's 624 KiB)")
    ("evaluate-every", po::value(&o.evaluateEvery)->default_value(o.evaluateEvery), "Held-out evaluation every N steps (0: at the end only)")
    ("evaluation-batches", po::value(&o.evaluationBatches)->default_value(o.evaluationBatches), "Held-out batches per evaluation")
    ("hidden-dropout", po::value(&o.hiddenDropout)->default_value(o.hiddenDropout), "Dropout after the embeddings, attention output and feed-forward")
    ("attention-dropout", po::value(&o.attentionDropout)->default_value(o.attentionDropout), "Dropout on the attention probabilities")
    ("target-mlm-accuracy", po::value(&o.targetMlmAccuracy)->default_value(0), "Held-out MLM accuracy whose first reaching is timed (0: none)")
    ("gradient-accumulation", po::value(&o.gradientAccumulation)->default_value(1), "Micro-batches per optimiser step (global batch = batch size × this; lamb and adamw)")
    ("precision", po::value(&o.precision)->default_value(o.precision, "32.32"), "32.32, or 16.32 (HALF weights, activations and gradients; FLOAT partials, statistics, losses and optimiser moments; loss scaling on); 16.16 is refused for now")
    ("loss-scaling", po::value(&o.lossScaling)->default_value(""), "dynamic | static | off (default: dynamic with 16.32, off with 32.32)")
    ("loss-scale", po::value(&o.lossScale)->default_value(o.lossScale), "Initial (dynamic) or fixed (static) loss scale")
    ("epochs", po::value(&o.epochs)->default_value(0), "Train for this many passes over the corpus instead of --steps (rounded up to whole runs)")
    ("checkpoint-dir", po::value(&o.checkpointDir), "Write checkpoints here (atomically; the last one at the end of training)")
    ("checkpoint-every", po::value(&o.checkpointEvery)->default_value(0), "Also write a checkpoint every N steps (a multiple of --steps-per-run)")
    ("resume", po::bool_switch(&o.resume), "Continue bit-exactly from the latest checkpoint in --checkpoint-dir")
    ("train-subset", po::value(&o.trainSubset)->default_value(0), "Train on the first N sequences only, over and over (an overfitting check; a multiple of --batch-size; 0: the whole corpus)")
    ("record-file", po::value(&o.recordFile), "Write a benchmark record (JSON) of the run here")
    ("export-run", po::value(&o.exportRun), "Before training, write DIR/initial.ckpt (the initial weights) and DIR/batches.pb (the run's training and held-out batches) for bench/bert_torch.py");
  // clang-format on
  apps::parseCommandLine(argc, argv, d);
  if (help) {
    std::cout << d << "\n";
    return 0;
  }
  BertConfig config = configByName(o.config);
  for (auto [value, field] : {std::pair{o.layers, &config.layers},
                              {o.hidden, &config.hidden},
                              {o.heads, &config.heads},
                              {o.ffn, &config.ffn}})
    if (value)
      *field = value;
  config.sequenceLength = o.sequenceLength;
  config.maxPredictions =
      o.maxPredictions ? o.maxPredictions : defaultMaxPredictions(o.sequenceLength);
  config.vocabSize = o.vocabSize;
  config.maxSequencesPerRow = o.packing ? 3 : 1;
  config.hiddenDropout = o.hiddenDropout;
  config.attentionDropout = o.attentionDropout;
  config.validate();
  if (o.epochs == 0 && (o.steps == 0 || o.steps % o.stepsPerRun != 0))
    throw apps::cli_error("--steps " + std::to_string(o.steps) +
                          " must be a positive multiple of --steps-per-run " +
                          std::to_string(o.stepsPerRun));
  if (o.checkpointEvery % o.stepsPerRun != 0)
    throw apps::cli_error("--checkpoint-every " + std::to_string(o.checkpointEvery) +
                          " must be a multiple of --steps-per-run " +
                          std::to_string(o.stepsPerRun));
  if (!(o.tileMemoryMiB >= 0 && o.tileMemoryMiB < 4096))
    throw apps::cli_error("--tile-memory " + std::to_string(o.tileMemoryMiB) +
                          " MiB must be at least 0 (a Mk2 tile) and below 4096");
  if (o.resume && o.checkpointDir.empty())
    throw apps::cli_error("--resume needs --checkpoint-dir to say where the checkpoints are");
  if (!(o.epochs >= 0))
    throw apps::cli_error("--epochs must be at least 0");
  if (o.trainSubset % o.batchSize != 0)
    throw apps::cli_error("--train-subset " + std::to_string(o.trainSubset) +
                          " must be a multiple of --batch-size " + std::to_string(o.batchSize));
  if (!(o.warmupFraction >= 0 && o.warmupFraction < 1))
    throw apps::cli_error("--warmup must be in [0, 1)");

  const auto start = std::chrono::steady_clock::now();
  const Corpus corpus = loadFoldocCorpus(o.corpus);
  const Vocabulary vocabulary = o.vocabularyDir.empty()
                                    ? Vocabulary::trainOrLoad(corpus, o.vocabSize)
                                    : Vocabulary::trainOrLoad(corpus, o.vocabSize, o.vocabularyDir);
  auto training =
      std::make_shared<const TokenizedDocuments>(tokenizeDocuments(corpus.training, vocabulary));
  auto heldOutDocs =
      std::make_shared<const TokenizedDocuments>(tokenizeDocuments(corpus.heldOut, vocabulary));
  BertDataOptions data;
  data.sequenceLength = config.sequenceLength;
  data.maxPredictions = config.maxPredictions;
  data.batchSize = o.batchSize;
  data.seed = o.seed;
  data.packing = o.packing;
  data.maxSequencesPerRow = config.maxSequencesPerRow;
  PretrainingLoader loader(training, data);
  const HeldOutBatches heldOut(heldOutDocs, data);
  // --train-subset: the loader's first batches, cycled.
  std::vector<PretrainingBatch> subset;
  for (std::size_t i = 0; i < o.trainSubset / o.batchSize; ++i)
    subset.push_back(loader.next());
  std::uint64_t batchesServed = 0;
  auto nextBatch = [&]() -> PretrainingBatch {
    const std::uint64_t i = batchesServed++;
    return subset.empty() ? loader.next() : subset[i % subset.size()];
  };
  if (o.epochs > 0) {
    const double perEpoch =
        subset.empty() ? double(loader.batchesPerEpoch(0)) : double(subset.size());
    const auto runs = static_cast<std::uint64_t>(
        std::ceil(o.epochs * perEpoch / (o.stepsPerRun * o.gradientAccumulation)));
    o.steps = std::max<std::uint64_t>(1, runs) * o.stepsPerRun;
  }
  std::cout << "corpus: " << corpus.training.size() << " training and " << corpus.heldOut.size()
            << " held-out documents; vocabulary " << vocabulary.size() << " pieces ("
            << (vocabulary.loadedFromCache() ? "cached" : "trained") << ", "
            << vocabulary.file().string() << "); " << loader.examplesPerEpoch()
            << " examples per epoch" << std::endl;

  // A checkpoint is read and checked before the (slow) build, so a mismatch fails at once.
  std::optional<apps::CheckpointState> resumed;
  std::filesystem::path resumedFile;
  if (o.resume) {
    if (const auto latest = apps::latestCheckpoint(o.checkpointDir)) {
      resumedFile = *latest;
      resumed = apps::readCheckpoint(resumedFile);
      apps::checkCheckpointMatches(*resumed, resumedFile, "bert", runIdentity(o, config));
      if (resumed->step % o.stepsPerRun != 0 || resumed->step > o.steps)
        throw apps::checkpoint_error(
            resumedFile.string() + " is at step " + std::to_string(resumed->step) +
            ", not a whole number of runs of --steps-per-run " + std::to_string(o.stepsPerRun) +
            " within --steps " + std::to_string(o.steps));
    } else {
      std::cout << "no checkpoint in " << o.checkpointDir << " yet: starting from step 0"
                << std::endl;
    }
  }

  SessionOptions s;
  s.config = config;
  s.batchSize = o.batchSize;
  s.seed = o.seed;
  s.hostThreads = o.hostThreads;
  s.ipus = o.ipus;
  s.tilesPerIpu = o.tiles;
  s.bytesPerTile = static_cast<unsigned>(o.tileMemoryMiB * 1024 * 1024);
  s.stepsPerRun = o.stepsPerRun;
  s.precision = o.precision;
  s.gradientAccumulation = o.gradientAccumulation;
  if (o.lossScaling == "dynamic" || o.lossScaling == "static") {
    apps::LossScalingOptions scaling;
    scaling.dynamic = o.lossScaling == "dynamic";
    scaling.initialScale = o.lossScale;
    s.lossScaling = scaling;
  } else if (o.lossScaling.empty() && o.precision != apps::Precision::Float32) {
    apps::LossScalingOptions scaling;
    scaling.initialScale = o.lossScale;
    s.lossScaling = scaling;
  } else if (!o.lossScaling.empty() && o.lossScaling != "off") {
    std::string message =
        "--loss-scaling '" + o.lossScaling + "' is not one of dynamic, static, off";
    if (const auto near = apps::nearestName(o.lossScaling, {"dynamic", "static", "off"});
        !near.empty())
      message += "; did you mean '" + near + "'?";
    throw apps::cli_error(message);
  }
  s.optimiser = optimiserKind(o.optimiser);
  s.weightDecay = float(o.weightDecay);
  PretrainingSession session(s, std::cout);
  session.initialise();
  std::uint64_t firstStep = 0;
  if (resumed) {
    session.restoreState(*resumed);
    firstStep = resumed->step;
    if (subset.empty())
      loader.seek(resumed->loaderPosition);
    else
      batchesServed = resumed->loaderPosition.batch;
    std::cout << "resumed from " << resumedFile.string() << " at step " << firstStep << std::endl;
  }
  auto writeCheckpointAt = [&](std::uint64_t step) {
    apps::CheckpointState state;
    state.modelName = "bert";
    state.config = runIdentity(o, config);
    state.step = step;
    state.loaderPosition =
        subset.empty() ? loader.position() : apps::LoaderPosition{0, batchesServed};
    session.saveState(state);
    const auto file = apps::writeCheckpoint(o.checkpointDir, state);
    std::cout << "checkpoint " << file.string() << std::endl;
  };

  StepStatistics lastEvaluation, lastTraining;
  std::optional<double> timeToTarget;
  std::optional<std::chrono::steady_clock::time_point> trainStart;
  auto report = [&](std::uint64_t step) {
    // With --train-subset the question is whether the model learns what it sees: evaluate on
    // the subset itself.
    lastEvaluation =
        subset.empty()
            ? evaluateBatches(session, std::min(heldOut.size(), o.evaluationBatches),
                              [&](std::size_t i) { return heldOut.batch(i); })
            : evaluateBatches(session, subset.size(), [&](std::size_t i) { return subset[i]; });
    const StepStatistics &e = lastEvaluation;
    std::printf("eval step %llu: %s loss %.4f, MLM acc %.4f, NSP acc %.4f\n",
                (unsigned long long)step, subset.empty() ? "held-out" : "training-subset",
                e.meanLoss(), e.mlmAccuracy(), e.nspAccuracy());
    if (trainStart && !timeToTarget && o.targetMlmAccuracy > 0 &&
        e.mlmAccuracy() >= o.targetMlmAccuracy) {
      timeToTarget =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - *trainStart).count();
      std::printf("reached held-out MLM accuracy %.4f at step %llu, %.1f s after training "
                  "began\n",
                  o.targetMlmAccuracy, (unsigned long long)step, *timeToTarget);
    }
    std::fflush(stdout);
  };
  if (!o.exportRun.empty())
    exportRun(o, session, data, training, heldOut, subset);
  report(firstStep);
  const double warmup = o.warmupFraction * double(o.steps);
  trainStart = std::chrono::steady_clock::now();
  double trainSeconds = 0;
  for (std::uint64_t step = firstStep; step < o.steps; step += o.stepsPerRun) {
    std::vector<HostBatch> batches;
    for (unsigned i = 0; i < o.stepsPerRun * o.gradientAccumulation; ++i)
      batches.push_back(toDeviceLayout(nextBatch(), config, o.batchSize));
    std::vector<double> rates;
    for (unsigned i = 0; i < o.stepsPerRun; ++i)
      rates.push_back(apps::learningRateAt(apps::LrSchedule::Linear, o.learningRate,
                                           double(step + i), double(o.steps), warmup));
    const double rate = rates.back();
    const auto runStart = std::chrono::steady_clock::now();
    const StepStatistics r = session.train(batches, rates);
    lastTraining = r;
    trainSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    const std::uint64_t done = step + o.stepsPerRun;
    const double seqPerSecond =
        double((done - firstStep) * o.batchSize * o.gradientAccumulation) / trainSeconds;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - *trainStart).count();
    // With loss scaling, the scale and the steps skipped for inf/NaN gradients so far: a run
    // that does not converge often shows why here.
    const std::string scaling = session.options().lossScaling
                                    ? " | loss scale " + std::to_string(std::lround(r.lossScale)) +
                                          ", " + std::to_string(std::lround(r.skippedSteps)) +
                                          " skipped"
                                    : "";
    std::printf("step %llu/%llu | loss %.4f | MLM acc %.4f | NSP acc %.4f | lr %.2e%s | %.2f "
                "seq/s | ETA %.0f s\n",
                (unsigned long long)done, (unsigned long long)o.steps, r.meanLoss(),
                r.mlmAccuracy(), r.nspAccuracy(), rate, scaling.c_str(), seqPerSecond,
                elapsed / double(done - firstStep) * double(o.steps - done));
    std::fflush(stdout);
    if (!o.checkpointDir.empty() &&
        ((o.checkpointEvery && done % o.checkpointEvery == 0) || done == o.steps))
      writeCheckpointAt(done);
    if (o.evaluateEvery && done % o.evaluateEvery == 0 && done != o.steps)
      report(done);
  }
  report(o.steps);
  const double trainedSequences =
      double((o.steps - firstStep) * o.batchSize * o.gradientAccumulation);
  std::printf("trained %llu steps in %.1f s on the device (%.2f seq/s); %.1f s in all\n",
              (unsigned long long)(o.steps - firstStep), trainSeconds,
              trainSeconds > 0 ? trainedSequences / trainSeconds : 0.0,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (!o.recordFile.empty()) {
    apps::BenchmarkRecord record = apps::newBenchmarkRecord("bert");
    for (const auto &[k, v] : describeRun(o, config))
      (*record.mutable_config())[k] = v;
    const double seqPerSecond = trainSeconds > 0 ? trainedSequences / trainSeconds : 0.0;
    // A sequence is BERT's sample: the record's throughput field counts samples per second.
    record.set_throughput_images_per_second(seqPerSecond);
    if (timeToTarget)
      record.set_time_to_target_seconds(*timeToTarget);
    record.set_target_accuracy(o.targetMlmAccuracy);
    record.set_final_accuracy(lastEvaluation.mlmAccuracy());
    auto &metrics = *record.mutable_metrics();
    metrics["sequences_per_second"] = seqPerSecond;
    metrics["held_out_mlm_accuracy"] = lastEvaluation.mlmAccuracy();
    metrics["held_out_nsp_accuracy"] = lastEvaluation.nspAccuracy();
    metrics["held_out_loss"] = lastEvaluation.meanLoss();
    metrics["final_training_loss"] = lastTraining.meanLoss();
    metrics["training_seconds"] = trainSeconds;
    metrics["steps"] = double(o.steps);
    apps::saveBenchmarkRecord(o.recordFile, record);
    std::cout << "record written to " << o.recordFile << "\n";
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const poplar::poplar_error &e) {
    std::cerr << "bert: error: " << e.what() << "\n";
    return 2;
  }
}
