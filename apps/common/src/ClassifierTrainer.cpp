#include <tessera/apps/ClassifierTrainer.hpp>
#include <tessera/apps/EngineStart.hpp>
#include <tessera/apps/TrainerExecutable.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ostream>
#include <set>
#include <sstream>

#include <gcl/Collectives.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Version.hpp>
#include <poplar/exceptions.hpp>
#include <poplin/codelets.hpp>
#include <popnn/Loss.hpp>
#include <popnn/codelets.hpp>
#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>
#include <poprand/codelets.hpp>
#include <tessera/Distributed.hpp>
#include <tessera/ExecutableCache.hpp>
#include <tessera/profile/StepBreakdown.hpp>

#include <tessera/apps/Errors.hpp>
#include <tessera/apps/FileEnvelope.hpp>
#include <tessera/apps/LearningRate.hpp>
#include <tessera/apps/Optimiser.hpp>
#include <tessera/apps/Progress.hpp>
#include <tessera/apps/ReplicaPlacement.hpp>
#include <tessera/apps/TrainingData.hpp>
#include <tessera/apps/layers/SoftmaxCrossEntropy.hpp>

namespace tessera::apps {
namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

poplar::Type dataTypeOf(Precision p) {
  return p == Precision::Float32 ? poplar::FLOAT : poplar::HALF;
}

// Programs of the engine, in this order.
enum ProgramIndex : unsigned { kInitialise, kTrainStep, kGradients, kEvaluate, kNumPrograms };

/// Copies `src` into `dst`, converting when their element types differ.
void copyOrCast(poplar::Graph &g, const poplar::Tensor &src, const poplar::Tensor &dst,
                poplar::program::Sequence &prog, const std::string &name) {
  if (src.elementType() == dst.elementType())
    prog.add(poplar::program::Copy(src, dst));
  else
    popops::cast(g, src, dst, prog, name);
}

HostTensorInfo hostTensor(const std::string &name, const poplar::Tensor &t) {
  return {name, t.elementType(), t.shape()};
}

/// Training options that only steer the host side of a run (the schedule, when to stop, what
/// data to feed): runs that differ only in these build the same graph.
bool onlyAffectsTheHost(const std::string &option) {
  static const std::set<std::string> hostOnly = {
      "epochs",       "host-threads",   "validation",    "target-accuracy", "stop-at-target",
      "train-subset", "synthetic-data", "learning-rate", "warmup-epochs",   "lr-schedule"};
  return hostOnly.count(option) != 0;
}

/// Configuration keys added after checkpoints were first written, with the value every run
/// before them had: a checkpoint without the key was trained with that value.
const std::map<std::string, std::string> &laterConfigDefaults() {
  static const std::map<std::string, std::string> defaults = {
      {"optimiser", "sgd"}, {"label-smoothing", "0"}, {"ema-decay", "0"}};
  return defaults;
}

} // namespace

struct ClassifierTrainer::Impl {
  ClassifierSpec spec;
  TrainingOptions options;
  std::ostream &log;
  ModelFactory makeModel;
  LayerPtr model;
  /// The IPUs the device has: spec.ipus, or what the automatic choice settled on.
  unsigned ipus = 1;
  poplar::Device device;
  std::unique_ptr<poplar::Graph> graph;
  std::unique_ptr<BuildContext> ctx;
  // One of them, as options.optimiser says.
  std::unique_ptr<SgdOptimiser> sgd;
  std::unique_ptr<RmsPropOptimiser> rmsprop;
  std::unique_ptr<poplar::Engine> engine;
  /// The host tensors of the graph (built now, or remembered by an earlier run).
  TrainerManifest manifest;
  double compileSeconds = 0;
  // Host buffers the input streams read, one per replica of this instance.
  std::vector<std::vector<float>> images;
  std::vector<std::vector<std::uint32_t>> labels;
  /// This instance's replicas (of spec.replicas in the run) and the global index of its first.
  unsigned localReplicas = 1, replicaOffset = 0;

  Impl(ModelFactory f, ClassifierSpec s, TrainingOptions o, std::ostream &l)
      : spec(std::move(s)), options(std::move(o)), log(l), makeModel(std::move(f)) {}

  /// Images per replica (the graph's batch) and per step (every replica's together).
  std::size_t batch() const { return options.batchSize; }
  std::size_t globalBatch() const { return batch() * std::max(1u, spec.replicas); }
  std::size_t imageElements() const { return batch() * spec.imageSize * spec.imageSize; }
  bool replicated() const { return spec.replicas > 1; }
  /// Gradients averaged across replicas, and the step's loss and count made global.
  void combineReplicas(poplar::program::Sequence &prog);
  /// --profile-steps: where the instrumented runs' host time went, and the trace file.
  void reportProfile();

  void build();
  std::map<std::string, std::string> graphConfig() const;
  bool startFromManifest(const std::string &identity, const poplar::OptionFlags &engineOptions);
  /// --ipus auto: whether an earlier run found `identity`'s device too small, and noting it.
  bool knownToOverflow(const std::string &identity, const poplar::OptionFlags &engineOptions) const;
  void rememberOverflow(const std::string &identity,
                        const poplar::OptionFlags &engineOptions) const;
  void buildGraph(const std::string &identity, const poplar::OptionFlags &engineOptions);
  void connectStreams();
  void buildOptimiser(poplar::program::Sequence &update);
  void buildMovingAverage(poplar::program::Sequence &update, poplar::program::Sequence &useAverage,
                          poplar::program::Sequence &restoreWeights);
  void feed(const Batch &b, bool maskPadding);
  const ParameterInfo &parameter(const std::string &name) const;
  std::vector<float> readHost(const std::string &handle, const HostTensorInfo &t);
  void writeHost(const std::string &handle, const HostTensorInfo &t,
                 const std::vector<float> &values);
};

void ClassifierTrainer::Impl::build() {
  const auto start = Clock::now();
  const ReplicaPlacement placement = placeReplicas(std::max(1u, spec.replicas));
  localReplicas = placement.local;
  replicaOffset = placement.offset;
  poplar::OptionFlags engineOptions;
  if (options.hostThreads)
    engineOptions.set("target.hostThreads", std::to_string(options.hostThreads));
  if (options.profileSteps) // reporting only: the executable is the same
    engineOptions.set("debug.instrument", "true");
  if (spec.planForIpu)
    setEstimateOnlyOptions(engineOptions);
  const bool automatic = spec.ipus == 0;
  constexpr unsigned kMostIpus = 16;
  auto ipusText = [](unsigned n) { return std::to_string(n) + (n > 1 ? " IPUs" : " IPU"); };
  for (ipus = automatic ? 1u : spec.ipus;; ipus *= 2) {
    poplar::IPUModel ipu;
    if (spec.tiles)
      ipu.tilesPerIPU = spec.tiles;
    ipu.numIPUs = ipus * localReplicas;
    device = ipu.createDevice();
    const std::string identity = trainerIdentity(graphConfig());
    if (startFromManifest(identity, engineOptions))
      break;
    if (automatic && ipus * 2 <= kMostIpus && knownToOverflow(identity, engineOptions)) {
      log << "--ipus auto: the model overflows the tile memory of " << ipusText(ipus)
          << " (found by an earlier run)" << std::endl;
      continue;
    }
    if (!model)
      model = makeModel();
    try {
      buildGraph(identity, engineOptions);
      break;
    } catch (const poplar::graph_memory_allocation_error &) {
      if (!automatic || ipus * 2 > kMostIpus)
        throw;
      rememberOverflow(identity, engineOptions);
      // Start again on twice the IPUs with layers that have never been built.
      engine.reset();
      sgd.reset();
      rmsprop.reset();
      ctx.reset();
      graph.reset();
      manifest = {};
      model = makeModel();
      if (!model)
        throw;
      log << "--ipus auto: the model overflows the tile memory of " << ipusText(ipus) << "; trying "
          << ipus * 2 << std::endl;
    }
  }
  if (automatic)
    log << "--ipus auto: " << ipusText(ipus) << " x " << device.getTarget().getTilesPerIPU()
        << " tiles (the fewest of 1, 2, 4, 8, 16 the model fits in)" << std::endl;
  images.assign(localReplicas, std::vector<float>(imageElements(), 0.0f));
  labels.assign(localReplicas, std::vector<std::uint32_t>(batch(), 0));
  connectStreams();
  compileSeconds = secondsSince(start);
}

std::map<std::string, std::string> ClassifierTrainer::Impl::graphConfig() const {
  std::map<std::string, std::string> config = spec.modelConfig;
  for (const auto &[k, v] : describeTrainingOptions(options))
    if (!onlyAffectsTheHost(k))
      config.emplace("option " + k, v);
  config["model"] = spec.modelName;
  config["classes"] = std::to_string(spec.numClasses);
  config["device"] = std::to_string(ipus) + " x " + std::to_string(spec.tiles);
  config["replicas"] = std::to_string(localReplicas) + " of " + std::to_string(spec.replicas);
  if (spec.planForIpu)
    config["plans"] = "ipuCycles";
  // Options from the environment can change compilation (debug.allowOutOfMemory, say).
  const char *env = std::getenv("POPLAR_ENGINE_OPTIONS");
  config["POPLAR_ENGINE_OPTIONS"] = env ? env : "";
  return config;
}

namespace {
/// Where an automatic device choice notes that `identity`'s device was too small: beside the
/// manifests, so the next run with the same configuration and builds skips that attempt.
std::string overflowNote(const std::string &identity) {
  return identity + "\noverflows the device's tile memory";
}
} // namespace

bool ClassifierTrainer::Impl::knownToOverflow(const std::string &identity,
                                              const poplar::OptionFlags &engineOptions) const {
  const tessera::ExecutableCache cache(engineOptions);
  if (!spec.reuseCompiledGraph || !cache.enabled())
    return false;
  return TrainerManifestStore(cache.directory()).find(overflowNote(identity)).has_value();
}

void ClassifierTrainer::Impl::rememberOverflow(const std::string &identity,
                                               const poplar::OptionFlags &engineOptions) const {
  const tessera::ExecutableCache cache(engineOptions);
  if (spec.reuseCompiledGraph && cache.enabled())
    TrainerManifestStore(cache.directory()).remember({overflowNote(identity), "", {}, {}});
}

bool ClassifierTrainer::Impl::startFromManifest(const std::string &identity,
                                                const poplar::OptionFlags &engineOptions) {
  const auto start = Clock::now();
  if (!spec.reuseCompiledGraph)
    return false;
  const tessera::ExecutableCache cache(engineOptions);
  if (!cache.enabled())
    return false;
  std::optional<TrainerManifest> found = TrainerManifestStore(cache.directory()).find(identity);
  if (!found)
    return false;
  try {
    std::optional<poplar::Executable> exe = cache.load(found->engineKey);
    if (!exe)
      return false; // evicted since: build the graph again
    engine = std::make_unique<poplar::Engine>(std::move(*exe), engineOptions);
    engine->load(device);
  } catch (const poplar::poplar_error &e) {
    // A damaged manifest or an executable this process cannot run only costs a cold start.
    engine.reset();
    log << spec.modelName << ": not using the cached executable (" << e.what() << ")" << std::endl;
    return false;
  }
  manifest = std::move(*found);
  log << spec.modelName << ": this configuration ran before; graph not built (graph 0 s)\n"
      << "loaded from the executable cache in " << secondsSince(start) << " s" << std::endl;
  return true;
}

void ClassifierTrainer::Impl::connectStreams() {
  for (unsigned r = 0; r < localReplicas; ++r) {
    engine->connectStream("images", r, images[r].data(), images[r].data() + images[r].size());
    engine->connectStream("labels", r, labels[r].data(), labels[r].data() + labels[r].size());
  }
}

void ClassifierTrainer::Impl::reportProfile() {
  const auto exec = engine->getExecutionProfile();
  if (!exec)
    return;
  const tessera::profile::GraphProfile graphProfile = engine->getGraphProfile();
  log << "\nprofile of the first " << options.profileSteps << " steps (and initialisation):\n";
  tessera::profile::printStepBreakdown(log, graphProfile, *exec);
  std::ostringstream trace;
  tessera::profile::writeChromeTrace(trace, graphProfile, *exec);
  writeFileAtomically(options.profileTrace, trace.str());
  log << "trace written to " << options.profileTrace
      << " (open it in chrome://tracing or ui.perfetto.dev)" << std::endl;
}

void ClassifierTrainer::Impl::combineReplicas(poplar::program::Sequence &prog) {
  poplar::Graph &g = *graph;
  for (const auto &p : ctx->parameters())
    gcl::allReduceInPlaceCrossReplica(g, p->gradient, gcl::CollectiveOperator::MEAN, prog,
                                      p->name + "/gradientMean");
}

void ClassifierTrainer::Impl::buildGraph(const std::string &identity,
                                         const poplar::OptionFlags &engineOptions) {
  const auto start = Clock::now();
  graph = std::make_unique<poplar::Graph>(device.getTarget(),
                                          poplar::replication_factor(localReplicas));
  popops::addCodelets(*graph);
  poprand::addCodelets(*graph);
  poplin::addCodelets(*graph);
  popnn::addCodelets(*graph);
  poplar::Graph &g = *graph;
  const poplar::Type type = dataTypeOf(options.precision);
  ctx = std::make_unique<BuildContext>(g, type, options.seed);
  if (spec.planForIpu)
    ctx->planForIpu();

  const std::size_t S = spec.imageSize;
  poplar::Tensor hostImages = g.addVariable(poplar::FLOAT, {batch(), 1, S, S}, "images");
  mapActivationLinearly(g, hostImages);
  poplar::Tensor labelsT = g.addVariable(poplar::UNSIGNED_INT, {batch()}, "labels");
  g.setTileMapping(labelsT, 0);
  auto imageStream = g.addHostToDeviceFIFO("images", poplar::FLOAT, imageElements());
  auto labelStream = g.addHostToDeviceFIFO("labels", poplar::UNSIGNED_INT, batch());

  poplar::program::Sequence input;
  input.add(poplar::program::Copy(imageStream, hostImages));
  input.add(poplar::program::Copy(labelStream, labelsT));
  poplar::Tensor x =
      type == poplar::FLOAT ? hostImages : popops::cast(g, hostImages, type, input, "images/cast");

  // Training pass (forward, loss, backward) — shared by the train-step and gradient programs.
  poplar::program::Sequence fwdBwd;
  fwdBwd.add(input);
  poplar::Tensor logits = model->forward(*ctx, x, Mode::Training, fwdBwd);
  if (logits.rank() != 2 || logits.dim(1) != spec.numClasses)
    throw app_error("model '" + spec.modelName + "' must output [batch][" +
                    std::to_string(spec.numClasses) + "] logits");
  LossOutputs trainLoss =
      softmaxCrossEntropy(g, logits, labelsT, true, fwdBwd, float(options.labelSmoothing));
  model->backward(*ctx, trainLoss.gradient, false, fwdBwd);
  if (replicated()) {
    combineReplicas(fwdBwd);
    // The step's loss and count over every replica's images.
    gcl::allReduceInPlaceCrossReplica(g, trainLoss.loss, gcl::CollectiveOperator::MEAN, fwdBwd,
                                      "trainLoss/mean");
    gcl::allReduceInPlaceCrossReplica(g, trainLoss.numCorrect, gcl::CollectiveOperator::ADD, fwdBwd,
                                      "trainCorrect/sum");
  }
  g.createHostRead("trainLoss", trainLoss.loss);
  g.createHostRead("trainCorrect", trainLoss.numCorrect);

  poplar::program::Sequence update, useAverage, restoreWeights;
  buildOptimiser(update);
  if (replicated()) // each replica's batch statistics moved its running statistics
    for (const auto &s : ctx->states())
      if (s.perReplicaStatistic) {
        poplar::Tensor statistic = s.value;
        gcl::allReduceInPlaceCrossReplica(g, statistic, gcl::CollectiveOperator::MEAN, update,
                                          s.name + "/replicaMean");
      }
  if (options.emaDecay > 0)
    buildMovingAverage(update, useAverage, restoreWeights);

  // Validation: the plain one-hot loss, with the averaged weights when there are any.
  poplar::program::Sequence evaluate;
  evaluate.add(input);
  evaluate.add(useAverage);
  poplar::Tensor inferLogits = model->forward(*ctx, x, Mode::Inference, evaluate);
  LossOutputs evalLoss = softmaxCrossEntropy(g, inferLogits, labelsT, false, evaluate);
  evaluate.add(restoreWeights);
  if (replicated()) {
    gcl::allReduceInPlaceCrossReplica(g, evalLoss.loss, gcl::CollectiveOperator::MEAN, evaluate,
                                      "evalLoss/mean");
    gcl::allReduceInPlaceCrossReplica(g, evalLoss.numCorrect, gcl::CollectiveOperator::ADD,
                                      evaluate, "evalCorrect/sum");
  }
  g.createHostRead("evalLoss", evalLoss.loss);
  g.createHostRead("evalCorrect", evalLoss.numCorrect);

  for (const auto &p : ctx->parameters()) {
    g.createHostRead("param:" + p->name, p->value);
    g.createHostWrite("param:" + p->name, p->value);
    g.createHostRead("grad:" + p->name, p->gradient);
  }
  for (const auto &s : ctx->states()) {
    g.createHostRead("state:" + s.name, s.value);
    g.createHostWrite("state:" + s.name, s.value);
  }

  std::vector<poplar::program::Program> programs(kNumPrograms);
  programs[kInitialise] = ctx->initialise;
  // Dropout masks change every training step, not between the passes of one step nor in the
  // gradient program (so finite-difference checks see one fixed mask).
  poplar::program::Sequence nextSeed;
  ctx->advanceStepSeed(nextSeed);
  programs[kTrainStep] = poplar::program::Sequence{fwdBwd, update, nextSeed};
  programs[kGradients] = fwdBwd;
  programs[kEvaluate] = evaluate;
  const double buildSeconds = secondsSince(start);
  log << "built " << spec.modelName << ": " << ctx->parameters().size() << " parameter tensors, "
      << "graph " << buildSeconds << " s" << std::endl;
  engine = startEngine(g, programs, engineOptions, device, log);

  manifest.identity = identity;
  manifest.engineKey = engine->executableCacheKey();
  for (const auto &p : ctx->parameters())
    manifest.parameters.push_back(
        {hostTensor(p->name, p->value), hostTensor(p->name, p->gradient)});
  for (const auto &st : ctx->states())
    manifest.states.push_back(hostTensor(st.name, st.value));
  // With the cache on, the next run with this configuration can skip all of the above.
  if (spec.reuseCompiledGraph && !manifest.engineKey.empty())
    TrainerManifestStore(tessera::ExecutableCache(engineOptions).directory()).remember(manifest);
}

void ClassifierTrainer::Impl::buildOptimiser(poplar::program::Sequence &update) {
  switch (options.optimiser) {
  case OptimiserType::Sgd:
    sgd = std::make_unique<SgdOptimiser>(
        *ctx, SgdOptions{float(options.momentum), float(options.weightDecay), false});
    sgd->update(*ctx, update);
    return;
  case OptimiserType::RmsProp: {
    RmsPropOptions o;
    o.decay = float(options.rmspropDecay);
    o.momentum = float(options.momentum);
    o.epsilon = float(options.rmspropEpsilon);
    o.weightDecay = float(options.weightDecay);
    rmsprop = std::make_unique<RmsPropOptimiser>(*ctx, o);
    rmsprop->update(*ctx, update);
    return;
  }
  }
  throw app_error("unknown optimiser");
}

void ClassifierTrainer::Impl::buildMovingAverage(poplar::program::Sequence &update,
                                                 poplar::program::Sequence &useAverage,
                                                 poplar::program::Sequence &restoreWeights) {
  namespace pe = popops::expr;
  poplar::Graph &g = *graph;
  const float decay = float(options.emaDecay);
  for (const auto &p : ctx->parameters()) {
    // "<parameter>/ema" (FLOAT, checkpointed) starts at the initial weights and follows every
    // optimiser step: ema ← d·ema + (1 − d)·w.
    poplar::Tensor ema = g.clone(poplar::FLOAT, p->value, p->name + "/ema");
    copyOrCast(g, p->value, ema, ctx->initialise, p->name + "/emaInit");
    ctx->addState(p->name + "/ema", ema);
    popops::mapInPlace(
        g, pe::Const(decay) * pe::_1 + pe::Const(1 - decay) * pe::Cast(pe::_2, poplar::FLOAT),
        {ema, p->value}, update, p->name + "/emaUpdate");
    // Validation swaps the average in and the trained weights back afterwards.
    poplar::Tensor saved = g.clone(p->value, p->name + "/trainedWeights");
    useAverage.add(poplar::program::Copy(p->value, saved));
    copyOrCast(g, ema, p->value, useAverage, p->name + "/useEma");
    restoreWeights.add(poplar::program::Copy(saved, p->value));
  }
}

void ClassifierTrainer::Impl::feed(const Batch &b, bool maskPadding) {
  if (b.size != globalBatch() || b.images.size() != imageElements() * std::max(1u, spec.replicas))
    throw app_error("batch of " + std::to_string(b.size) + " images of side " +
                    std::to_string(b.imageSize) + " does not match the step's batch " +
                    std::to_string(globalBatch()) + " of side " + std::to_string(spec.imageSize));
  // Global replica k trains on images [k·batch, (k+1)·batch) of the step's batch.
  for (unsigned r = 0; r < localReplicas; ++r) {
    const std::size_t first = std::size_t(replicaOffset + r) * batch();
    std::memcpy(images[r].data(), b.images.data() + first * spec.imageSize * spec.imageSize,
                images[r].size() * sizeof(float));
    for (std::size_t i = 0; i < batch(); ++i)
      labels[r][i] =
          maskPadding && first + i >= b.validImages ? MASKED_LABEL_CODE : b.labels[first + i];
  }
}

const ParameterInfo &ClassifierTrainer::Impl::parameter(const std::string &name) const {
  for (const auto &p : manifest.parameters)
    if (p.value.name == name)
      return p;
  throw app_error("no parameter named '" + name + "'");
}

std::vector<float> ClassifierTrainer::Impl::readHost(const std::string &handle,
                                                     const HostTensorInfo &t) {
  std::vector<float> out(t.numElements());
  if (t.type == poplar::FLOAT) {
    engine->readTensor(handle, out.data(), out.data() + out.size());
  } else {
    std::vector<std::uint16_t> bits(out.size());
    engine->readTensor(handle, bits.data(), bits.data() + bits.size());
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = poplar::halfBitsToFloat(bits[i]);
  }
  return out;
}

void ClassifierTrainer::Impl::writeHost(const std::string &handle, const HostTensorInfo &t,
                                        const std::vector<float> &values) {
  if (values.size() != t.numElements())
    throw app_error("'" + handle + "' has " + std::to_string(t.numElements()) + " elements, got " +
                    std::to_string(values.size()));
  if (t.type == poplar::FLOAT) {
    engine->writeTensor(handle, values.data(), values.data() + values.size());
  } else {
    std::vector<std::uint16_t> bits(values.size());
    for (std::size_t i = 0; i < bits.size(); ++i)
      bits[i] = poplar::floatToHalfBits(values[i]);
    engine->writeTensor(handle, bits.data(), bits.data() + bits.size());
  }
}

ClassifierTrainer::ClassifierTrainer(LayerPtr model, ClassifierSpec spec, TrainingOptions options,
                                     std::ostream &log)
    : ClassifierTrainer(
          // The one model, once: a second call (a retry on more IPUs) gets nothing, and the
          // build's own error stands.
          [held = std::make_shared<LayerPtr>(std::move(model))] { return std::move(*held); },
          std::move(spec), std::move(options), log) {}

ClassifierTrainer::ClassifierTrainer(ModelFactory makeModel, ClassifierSpec spec,
                                     TrainingOptions options, std::ostream &log)
    : impl_(
          std::make_unique<Impl>(std::move(makeModel), std::move(spec), std::move(options), log)) {
  impl_->build();
}

ClassifierTrainer::~ClassifierTrainer() = default;

std::size_t ClassifierTrainer::batchSize() const { return impl_->globalBatch(); }

IpuStepCycles ClassifierTrainer::estimateIpuStepCycles() const {
  IpuStepCycles c;
  c.forwardBackward = impl_->engine->estimateProgramCycles(kGradients);
  const std::uint64_t step = impl_->engine->estimateProgramCycles(kTrainStep);
  c.update = step > c.forwardBackward ? step - c.forwardBackward : 0;
  for (const auto &p : impl_->manifest.parameters)
    c.parameterElements += p.value.numElements();
  return c;
}

void ClassifierTrainer::initialise() { impl_->engine->run(kInitialise); }

StepResult ClassifierTrainer::trainStep(const Batch &batch, double lr) {
  impl_->feed(batch, false);
  const float rate = float(lr);
  impl_->engine->writeTensor("learningRate", &rate, &rate + 1);
  impl_->engine->run(kTrainStep);
  float loss = 0;
  unsigned correct = 0;
  impl_->engine->readTensor("trainLoss", &loss, &loss + 1);
  impl_->engine->readTensor("trainCorrect", &correct, &correct + 1);
  return {loss, correct};
}

StepResult ClassifierTrainer::lossAndGradients(const Batch &batch) {
  impl_->feed(batch, false);
  impl_->engine->run(kGradients);
  float loss = 0;
  unsigned correct = 0;
  impl_->engine->readTensor("trainLoss", &loss, &loss + 1);
  impl_->engine->readTensor("trainCorrect", &correct, &correct + 1);
  return {loss, correct};
}

StepResult ClassifierTrainer::evaluate(const Batch &batch) {
  impl_->feed(batch, true);
  impl_->engine->run(kEvaluate);
  float loss = 0;
  unsigned correct = 0;
  impl_->engine->readTensor("evalLoss", &loss, &loss + 1);
  impl_->engine->readTensor("evalCorrect", &correct, &correct + 1);
  return {loss, correct};
}

std::vector<std::string> ClassifierTrainer::parameterNames() const {
  std::vector<std::string> names;
  for (const auto &p : impl_->manifest.parameters)
    names.push_back(p.value.name);
  return names;
}

std::vector<std::size_t> ClassifierTrainer::parameterShape(const std::string &name) const {
  return impl_->parameter(name).value.shape;
}

std::vector<float> ClassifierTrainer::readParameter(const std::string &name) {
  return impl_->readHost("param:" + name, impl_->parameter(name).value);
}

void ClassifierTrainer::writeParameter(const std::string &name, const std::vector<float> &v) {
  impl_->writeHost("param:" + name, impl_->parameter(name).value, v);
}

std::vector<float> ClassifierTrainer::readGradient(const std::string &name) {
  return impl_->readHost("grad:" + name, impl_->parameter(name).gradient);
}

CheckpointState ClassifierTrainer::snapshot(std::uint64_t step, LoaderPosition position) {
  CheckpointState s;
  s.modelName = impl_->spec.modelName;
  s.config = impl_->spec.modelConfig;
  for (const auto &[k, v] : describeTrainingOptions(impl_->options))
    s.config.emplace(k, v);
  s.step = step;
  s.epoch = position.epoch;
  s.loaderPosition = position;
  for (const auto &p : impl_->manifest.parameters)
    s.tensors.push_back({p.value.name, p.value.shape, readParameter(p.value.name)});
  // The data order is a pure function of (seed, position); recording the seed lets a resume
  // check it. The device's random state (the step seed of dropout layers, UNSIGNED_INT) follows
  // it word for word, in state order.
  s.rngState = {std::uint32_t(impl_->options.seed & 0xffffffffu),
                std::uint32_t(impl_->options.seed >> 32)};
  for (const auto &st : impl_->manifest.states) {
    if (st.type == poplar::UNSIGNED_INT) {
      std::vector<std::uint32_t> words(st.numElements());
      impl_->engine->readTensor("state:" + st.name, words.data(), words.data() + words.size());
      s.rngState.insert(s.rngState.end(), words.begin(), words.end());
    } else {
      s.optimiserState.push_back({st.name, st.shape, impl_->readHost("state:" + st.name, st)});
    }
  }
  return s;
}

void ClassifierTrainer::restore(const CheckpointState &state, const std::filesystem::path &file) {
  for (const auto &p : impl_->manifest.parameters) {
    const NamedTensor &t = findCheckpointTensor(state.tensors, p.value.name, p.value.shape, file);
    writeParameter(p.value.name, t.data);
  }
  std::size_t word = 2; // after the run's seed
  for (const auto &st : impl_->manifest.states) {
    if (st.type == poplar::UNSIGNED_INT) {
      const std::size_t n = st.numElements();
      if (word + n > state.rngState.size())
        throw checkpoint_error("checkpoint '" + file.string() + "' has no value for '" + st.name +
                               "': was it written by a model without dropout?");
      impl_->engine->writeTensor("state:" + st.name, state.rngState.data() + word,
                                 state.rngState.data() + word + n);
      word += n;
      continue;
    }
    const NamedTensor &t = findCheckpointTensor(state.optimiserState, st.name, st.shape, file);
    impl_->writeHost("state:" + st.name, st, t.data);
  }
}

TrainingResult ClassifierTrainer::run() {
  Impl &im = *impl_;
  const TrainingOptions &o = im.options;
  DataLoaderOptions trainOpts = trainingLoaderOptions(o, im.spec.imageSize);
  trainOpts.batchSize = im.globalBatch();
  trainOpts.randomCrop = im.spec.augment;
  trainOpts.horizontalFlip = im.spec.augment;
  trainOpts.cropPadding = 2;
  DataLoader train(loadTrainingImages(o), trainOpts);
  std::unique_ptr<DataLoader> valid;
  if (o.validation) {
    DataLoaderOptions validOpts = validationLoaderOptions(o, im.spec.imageSize);
    validOpts.batchSize = im.globalBatch();
    valid = std::make_unique<DataLoader>(loadValidationImages(o), validOpts);
  }
  const std::uint64_t perEpoch = train.batchesPerEpoch();
  const std::uint64_t totalSteps = perEpoch * o.epochs;

  std::uint64_t step = 0;
  initialise();
  if (o.resume) {
    auto latest = latestCheckpoint(o.checkpointDir);
    if (!latest)
      throw checkpoint_error("--resume: no checkpoint in '" + o.checkpointDir + "'");
    CheckpointState state = readCheckpoint(*latest);
    for (const auto &[key, value] : laterConfigDefaults())
      state.config.try_emplace(key, value);
    std::map<std::string, std::string> expected = im.spec.modelConfig;
    for (const auto &[k, v] : describeTrainingOptions(o))
      if (k != "resume" && k != "epochs" && k != "record-file" && k != "host-threads" &&
          k != "checkpoint-dir" && k != "validation" && k != "target-accuracy" &&
          k != "stop-at-target" && k != "price-per-hour")
        expected.emplace(k, v);
    checkCheckpointMatches(state, *latest, im.spec.modelName, expected);
    restore(state, *latest);
    step = state.step;
    train.seek(state.loaderPosition);
    im.log << "resumed from " << latest->string() << " at step " << step << "\n";
  }

  auto saveCheckpoint = [&] {
    // Every instance holds the same model; one file is written, by instance 0.
    if (o.checkpointDir.empty() || tessera::distributed::instanceIndex() != 0)
      return;
    auto path = writeCheckpoint(o.checkpointDir, snapshot(step, train.position()));
    im.log << "\ncheckpoint " << path.string() << "\n";
  };

  TrainingResult result;
  result.compileSeconds = im.compileSeconds;
  // Under tessera-run every instance trains the same model: instance 0 shows the progress.
  std::ostream silent(nullptr);
  ProgressPrinter progress = tessera::distributed::instanceIndex() == 0
                                 ? ProgressPrinter::forStdout()
                                 : ProgressPrinter(silent, false);
  const auto start = Clock::now();
  double stepSeconds = 0;
  std::uint64_t imagesTrained = 0;
  double lossSum = 0;
  std::uint64_t lossCount = 0;
  std::size_t correctSum = 0;
  while (step < totalSteps) {
    const Batch batch = train.next();
    const double epochPos = double(step) / double(perEpoch);
    const auto t0 = Clock::now();
    const StepResult r = trainStep(batch, learningRateAt(o, epochPos));
    stepSeconds += secondsSince(t0);
    imagesTrained += batch.size;
    ++step;
    if (!std::isfinite(r.loss))
      throw app_error("training diverged at step " + std::to_string(step) +
                      " (loss is not finite); try a lower --learning-rate");
    lossSum += r.loss;
    ++lossCount;
    correctSum += r.correct;
    ProgressState ps;
    ps.step = step;
    ps.totalSteps = totalSteps;
    ps.epoch = (step - 1) / perEpoch + 1;
    ps.totalEpochs = o.epochs;
    ps.loss = lossSum / double(lossCount);
    ps.accuracy = double(correctSum) / double(lossCount * batch.size);
    ps.imagesSeen = imagesTrained;
    progress.update(ps);
    const bool epochEnd = step % perEpoch == 0;
    if (epochEnd) {
      progress.finish(ps);
      result.finalLoss = ps.loss;
      lossSum = 0;
      lossCount = 0;
      correctSum = 0;
      if (valid) {
        valid->seek({0, 0});
        std::size_t correct = 0, seen = 0;
        for (std::size_t i = 0; i < valid->batchesPerEpoch(); ++i) {
          const Batch vb = valid->next();
          correct += evaluate(vb).correct;
          seen += vb.validImages;
        }
        result.finalAccuracy = double(correct) / double(seen);
        im.log << "epoch " << step / perEpoch << ": validation accuracy " << result.finalAccuracy
               << " (" << correct << "/" << seen << ")\n";
        if (o.targetAccuracy && !result.timeToTargetSeconds &&
            result.finalAccuracy >= *o.targetAccuracy)
          result.timeToTargetSeconds = secondsSince(start);
      }
    }
    if (epochEnd || (im.spec.checkpointEverySteps && step % im.spec.checkpointEverySteps == 0) ||
        step == totalSteps)
      saveCheckpoint();
    if (o.stopAtTarget && result.timeToTargetSeconds && step < totalSteps) {
      result.stoppedAtTarget = true;
      break; // the epoch's checkpoint is written
    }
    if (o.profileSteps && step == o.profileSteps && tessera::distributed::instanceIndex() == 0)
      im.reportProfile();
    if (im.spec.stopAfterSteps && step >= im.spec.stopAfterSteps && step < totalSteps) {
      result.stoppedEarly = true;
      if (!(epochEnd || (im.spec.checkpointEverySteps && step % im.spec.checkpointEverySteps == 0)))
        saveCheckpoint();
      break;
    }
  }
  result.steps = step;
  result.epochs = step / perEpoch;
  result.trainingSeconds = secondsSince(start);
  result.imagesPerSecond = stepSeconds > 0 ? double(imagesTrained) / stepSeconds : 0;
  return result;
}

} // namespace tessera::apps
