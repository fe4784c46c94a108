#include "training/CommandLine.hpp"
#include <tessera/apps/ReplicaPlacement.hpp>

#include <ostream>
#include <sstream>
#include <vector>

#include <boost/program_options.hpp>

#include <tessera/apps/Errors.hpp>

namespace po = boost::program_options;

namespace tessera::bert {
namespace {

[[noreturn]] void notOneOf(const std::string &flag, const std::string &value,
                           const std::vector<std::string> &accepted) {
  std::string list;
  for (const auto &a : accepted)
    list += (list.empty() ? "" : ", ") + a;
  std::string message = "--" + flag + " '" + value + "' is not one of " + list;
  if (const auto near = apps::nearestName(value, accepted); !near.empty())
    message += "; did you mean '" + near + "'?";
  throw apps::cli_error(message);
}

void check(const BertCommandLine &o) {
  if (o.batchSize == 0)
    throw apps::cli_error("--batch-size must be at least 1");
  if (o.stepsPerRun == 0)
    throw apps::cli_error("--steps-per-run must be at least 1");
  if (o.gradientAccumulation == 0)
    throw apps::cli_error("--gradient-accumulation must be at least 1");
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
  if (!(o.learningRate > 0))
    throw apps::cli_error("--learning-rate must be above 0");
  if (!(o.lossScale > 0))
    throw apps::cli_error("--loss-scale must be above 0");
  if (!o.exportRun.empty() && o.gradientAccumulation != 1)
    throw apps::cli_error("--export-run: the PyTorch twin takes one batch per step; run without "
                          "--gradient-accumulation");
  const OptimiserKind optimiser = optimiserKindOf(o.optimiser);
  const bool scaled = lossScalingOf(o).has_value();
  if ((o.gradientAccumulation > 1 || scaled) && optimiser == OptimiserKind::Sgd)
    throw apps::cli_error("--gradient-accumulation " + std::to_string(o.gradientAccumulation) +
                          " (or loss scaling) needs --optimiser lamb or adamw (they divide the "
                          "summed, scaled gradients back; sgd has no gradient scale)");
  const BertConfig config = modelConfigOf(o);
  if (o.estimateIpu) {
    std::size_t layers = 0;
    for (unsigned l : o.pipelineLayers)
      layers += l;
    if (o.pipelineLayers.empty() || layers != config.layers)
      throw apps::cli_error("--pipeline-layers: its stages hold " + std::to_string(layers) +
                            " encoder layers but the model has " + std::to_string(config.layers));
    if (o.podReplicas == 0)
      throw apps::cli_error("--pod-replicas must be at least 1");
    if (o.podAccumulation == 0)
      throw apps::cli_error("--pod-accumulation must be at least 1");
  }
}

/// "3,7,7,7" as {3, 7, 7, 7}; throws cli_error naming the flag for anything else.
std::vector<unsigned> parseLayerList(const std::string &text) {
  std::vector<unsigned> layers;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const std::optional<unsigned long> v = apps::parseWholeNumber(item);
    if (!v || *v > 1000)
      throw apps::cli_error("--pipeline-layers '" + text +
                            "' is not a comma-separated list of layer counts (e.g. 3,7,7,7)");
    layers.push_back(static_cast<unsigned>(*v));
  }
  return layers;
}

} // namespace

std::optional<BertCommandLine> parseBertCommandLine(int argc, const char *const argv[],
                                                    std::ostream &help) {
  BertCommandLine o;
  bool wantsHelp = false;
  std::string pipelineLayers = "3,7,7,7";
  po::options_description d("bert: BERT pre-training on the FOLDOC corpus (Tessera)");
  // clang-format off
  d.add_options()
    ("help", po::bool_switch(&wantsHelp), "Print this help")
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
    ("replicas", po::value(&o.replicas)->default_value(o.replicas), "Data-parallel replicas, each on --ipus IPUs with --batch-size rows per micro-batch, gradients averaged across them (0: tessera-run's --num-replicas, else 1)")
    ("tiles", po::value(&o.tiles)->default_value(o.tiles), "Tiles per IPU (0: a Mk2's 1472)")
    ("tile-memory", po::value(&o.tileMemoryMiB)->default_value(o.tileMemoryMiB), "Memory per tile in MiB (0: a Mk2 tile's 624 KiB)")
    ("evaluate-every", po::value(&o.evaluateEvery)->default_value(o.evaluateEvery), "Held-out evaluation every N steps (0: at the end only)")
    ("evaluation-batches", po::value(&o.evaluationBatches)->default_value(o.evaluationBatches), "Held-out batches per evaluation")
    ("hidden-dropout", po::value(&o.hiddenDropout)->default_value(o.hiddenDropout), "Dropout after the embeddings, attention output and feed-forward")
    ("attention-dropout", po::value(&o.attentionDropout)->default_value(o.attentionDropout), "Dropout on the attention probabilities")
    ("target-mlm-accuracy", po::value(&o.targetMlmAccuracy)->default_value(0), "Held-out MLM accuracy whose first reaching is timed (0: none)")
    ("gradient-accumulation", po::value(&o.gradientAccumulation)->default_value(1), "Micro-batches per optimiser step (global batch = batch size × this; lamb and adamw)")
    ("precision", po::value(&o.precision)->default_value(o.precision, "32.32"), "32.32; 16.32 (HALF weights, activations and gradients; FLOAT matmul partials, attention scores, losses, norm statistics and optimiser moments; loss scaling on); or 16.16 (as 16.32 with HALF matmul partials and attention scores)")
    ("loss-scaling", po::value(&o.lossScaling)->default_value(""), "dynamic | static | off (default: dynamic with 16.32, off with 32.32)")
    ("loss-scale", po::value(&o.lossScale)->default_value(o.lossScale), "Initial (dynamic) or fixed (static) loss scale")
    ("epochs", po::value(&o.epochs)->default_value(0), "Train for this many passes over the corpus instead of --steps (rounded up to whole runs)")
    ("checkpoint-dir", po::value(&o.checkpointDir), "Write checkpoints here (atomically; the last one at the end of training)")
    ("checkpoint-every", po::value(&o.checkpointEvery)->default_value(0), "Also write a checkpoint every N steps (a multiple of --steps-per-run)")
    ("resume", po::bool_switch(&o.resume), "Continue bit-exactly from the latest checkpoint in --checkpoint-dir")
    ("train-subset", po::value(&o.trainSubset)->default_value(0), "Train on the first N sequences only, over and over (an overfitting check; a multiple of --batch-size; 0: the whole corpus)")
    ("record-file", po::value(&o.recordFile), "Write a benchmark record (JSON) of the run here")
    ("profile-steps", po::value(&o.profileSteps)->default_value(o.profileSteps), "Time every compute set; after N steps print the host time by kind and layer and write --profile-trace (0: off)")
    ("profile-trace", po::value(&o.profileTrace)->default_value(o.profileTrace), "Where --profile-steps writes its Chrome/Perfetto trace (JSON)")
    ("estimate-ipu", po::bool_switch(&o.estimateIpu), "Train nothing: price the model on IPUs with the cost model (plans made for the IPU; one and two encoder layers compiled, the rest inferred per layer) and print what a pipelined, replicated POD would train at")
    ("pipeline-layers", po::value(&pipelineLayers)->default_value(pipelineLayers), "--estimate-ipu: encoder layers on each pipeline stage (one IPU each; the first also holds the embeddings and heads)")
    ("pod-replicas", po::value(&o.podReplicas)->default_value(o.podReplicas), "--estimate-ipu: replicas of the pipeline")
    ("pod-accumulation", po::value(&o.podAccumulation)->default_value(o.podAccumulation), "--estimate-ipu: micro-batches of --batch-size per weight update")
    ("export-run", po::value(&o.exportRun), "Before training, write DIR/initial.ckpt (the initial weights) and DIR/batches.pb (the run's training and held-out batches) for bench/bert_torch.py");
  // clang-format on
  apps::parseCommandLine(argc, argv, d);
  if (wantsHelp) {
    help << d << "\n";
    return std::nullopt;
  }
  o.pipelineLayers = parseLayerList(pipelineLayers);
  check(o);
  return o;
}

BertConfig modelConfigOf(const BertCommandLine &o) {
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
  return config;
}

std::optional<apps::LossScalingOptions> lossScalingOf(const BertCommandLine &o) {
  if (o.lossScaling == "off" || (o.lossScaling.empty() && o.precision == apps::Precision::Float32))
    return std::nullopt;
  if (!o.lossScaling.empty() && o.lossScaling != "dynamic" && o.lossScaling != "static")
    notOneOf("loss-scaling", o.lossScaling, {"dynamic", "static", "off"});
  apps::LossScalingOptions scaling;
  scaling.dynamic = o.lossScaling != "static";
  scaling.initialScale = o.lossScale;
  return scaling;
}

OptimiserKind optimiserKindOf(const std::string &name) {
  if (name == "lamb")
    return OptimiserKind::Lamb;
  if (name == "adamw")
    return OptimiserKind::AdamW;
  if (name == "sgd")
    return OptimiserKind::Sgd;
  notOneOf("optimiser", name, {"lamb", "adamw", "sgd"});
}

SessionOptions sessionOptionsOf(const BertCommandLine &o) {
  SessionOptions s;
  s.config = modelConfigOf(o);
  s.batchSize = o.batchSize;
  s.seed = o.seed;
  s.hostThreads = o.hostThreads;
  s.ipus = o.ipus;
  s.replicas = apps::requestedReplicas(o.replicas);
  s.instrument = o.profileSteps > 0;
  s.tilesPerIpu = o.tiles;
  s.bytesPerTile = static_cast<unsigned>(o.tileMemoryMiB * 1024 * 1024);
  s.stepsPerRun = o.stepsPerRun;
  s.precision = o.precision;
  s.gradientAccumulation = o.gradientAccumulation;
  s.lossScaling = lossScalingOf(o);
  s.optimiser = optimiserKindOf(o.optimiser);
  s.weightDecay = float(o.weightDecay);
  return s;
}

std::map<std::string, std::string> describeRun(const BertCommandLine &o, const BertConfig &config) {
  auto text = [](auto v) {
    std::ostringstream s;
    s << v;
    return s.str();
  };
  std::map<std::string, std::string> run = {
      {"config", o.config},
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
  // Replicas change what a step trains on; left out for one replica, as earlier runs had.
  const unsigned replicas = apps::requestedReplicas(o.replicas);
  if (replicas > 1)
    run["replicas"] = text(replicas);
  return run;
}

std::map<std::string, std::string> runIdentity(const BertCommandLine &o, const BertConfig &config) {
  auto identity = describeRun(o, config);
  identity.erase("host_threads");
  identity.erase("steps_per_run");
  identity["train_subset"] = std::to_string(o.trainSubset);
  return identity;
}

} // namespace tessera::bert
