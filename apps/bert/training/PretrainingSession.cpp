#include "training/PretrainingSession.hpp"

#include <chrono>
#include <cstring>
#include <ostream>
#include <sstream>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/codelets.hpp>
#include <popnn/codelets.hpp>
#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Zero.hpp>
#include <popops/codelets.hpp>
#include <poprand/codelets.hpp>
#include <tessera/apps/EngineStart.hpp>

#include <gcl/Collectives.hpp>
#include <tessera/apps/AdaptiveOptimisers.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/FileEnvelope.hpp>
#include <tessera/apps/GradientAccumulator.hpp>
#include <tessera/apps/Optimiser.hpp>
#include <tessera/apps/ReplicaPlacement.hpp>
#include <tessera/profile/StepBreakdown.hpp>

namespace tessera::bert {
namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

enum ProgramIndex : unsigned { kInitialise, kTrain, kEvaluate, kNumPrograms };
// With planForIpu, two more programs for the cost model: one micro-batch and one update.
enum EstimateProgramIndex : unsigned { kMicroBatchPass = kNumPrograms, kUpdate };

// The device-side statistics vector: FLOAT [6] in this order.
enum Statistic : std::size_t { kMlmLoss, kNspLoss, kMlmCorrect, kMlmCount, kNspCorrect, kNspCount };
constexpr std::size_t kNumStatistics = 6;

constexpr std::array<std::vector<std::uint32_t> HostBatch::*, 8> kBatchFields{
    &HostBatch::tokenIds,    &HostBatch::positionIds,   &HostBatch::segmentIds,
    &HostBatch::sequenceIds, &HostBatch::maskedIndices, &HostBatch::maskedLabels,
    &HostBatch::clsIndices,  &HostBatch::nspLabels};

} // namespace

struct PretrainingSession::Impl {
  SessionOptions options;
  std::ostream &log;
  poplar::Device device;
  std::unique_ptr<poplar::Graph> graph;
  std::unique_ptr<apps::BuildContext> ctx;
  std::unique_ptr<BertModel> model;
  std::unique_ptr<apps::SgdOptimiser> sgd;
  std::unique_ptr<apps::AdamWOptimiser> adamW;
  std::unique_ptr<apps::LambOptimiser> lamb;
  std::unique_ptr<apps::GradientAccumulator> accumulator;
  std::unique_ptr<apps::LossScaler> lossScaler;
  poplar::Tensor gradientScale; ///< 1 / gradientAccumulation, when accumulating
  std::unique_ptr<poplar::Engine> engine;
  double buildSeconds = 0, compileSeconds = 0;
  // The batches the input callbacks hand out, and each local replica's next one per stream.
  const std::vector<HostBatch> *pending = nullptr;
  std::vector<std::array<std::size_t, 8>> cursor;
  // The learning rate of each step of the current run, handed out one per step and replica.
  std::vector<float> pendingRates;
  std::vector<std::size_t> rateCursor;
  /// This instance's replicas of options.replicas, and the global index of its first.
  unsigned localReplicas = 1, replicaOffset = 0;
  unsigned replicas() const { return std::max(1u, options.replicas); }

  Impl(SessionOptions o, std::ostream &l) : options(std::move(o)), log(l) {}
  void build();
  void addOptimiserUpdate(poplar::program::Sequence &prog);
  const poplar::Tensor &learningRate() const;
  poplar::Tensor statistics(const PretrainingLosses &losses, poplar::program::Sequence &prog,
                            const std::string &name);
  StepStatistics readStatistics(const std::string &handle, unsigned steps);
  void run(unsigned program, const std::vector<HostBatch> &batches);
};

poplar::Tensor PretrainingSession::Impl::statistics(const PretrainingLosses &losses,
                                                    poplar::program::Sequence &prog,
                                                    const std::string &name) {
  poplar::Graph &g = *graph;
  poplar::Tensor mlmCorrect = popops::cast(g, losses.mlmCorrect, poplar::FLOAT, prog, name + "/c1");
  poplar::Tensor nspCorrect = popops::cast(g, losses.nspCorrect, poplar::FLOAT, prog, name + "/c2");
  return poplar::concat(
      {losses.mlmLoss, losses.nspLoss, mlmCorrect, losses.mlmCount, nspCorrect, losses.nspCount});
}

const poplar::Tensor &PretrainingSession::Impl::learningRate() const {
  return sgd ? sgd->learningRate() : adamW ? adamW->learningRate() : lamb->learningRate();
}

void PretrainingSession::Impl::addOptimiserUpdate(poplar::program::Sequence &prog) {
  switch (options.optimiser) {
  case OptimiserKind::Sgd:
    sgd = std::make_unique<apps::SgdOptimiser>(
        *ctx, apps::SgdOptions{options.momentum, options.weightDecay, false});
    sgd->update(*ctx, prog);
    return;
  case OptimiserKind::AdamW: {
    apps::AdamWOptions o;
    o.weightDecay = options.weightDecay;
    o.gradientScale = gradientScale;
    adamW = std::make_unique<apps::AdamWOptimiser>(*ctx, o);
    adamW->update(*ctx, prog);
    return;
  }
  case OptimiserKind::Lamb: {
    apps::LambOptions o; // BERT's: no bias correction, ε 1e-6, β 0.9 / 0.999
    o.weightDecay = options.weightDecay;
    o.gradientScale = gradientScale;
    lamb = std::make_unique<apps::LambOptimiser>(*ctx, o);
    lamb->update(*ctx, prog);
    return;
  }
  }
}

void PretrainingSession::Impl::build() {
  const auto start = Clock::now();
  const bool half = options.precision != apps::Precision::Float32;
  if (options.stepsPerRun == 0)
    throw apps::cli_error("--steps-per-run must be at least 1");
  if (options.gradientAccumulation == 0)
    throw apps::cli_error("--gradient-accumulation must be at least 1");
  if ((options.gradientAccumulation > 1 || half || options.lossScaling) &&
      options.optimiser == OptimiserKind::Sgd)
    throw apps::cli_error("--gradient-accumulation " +
                          std::to_string(options.gradientAccumulation) +
                          " (or loss scaling) needs --optimiser lamb or adamw (they divide the "
                          "summed, scaled gradients back; sgd has no gradient scale)");
  poplar::IPUModel ipu;
  if (options.tilesPerIpu)
    ipu.tilesPerIPU = options.tilesPerIpu;
  if (options.bytesPerTile)
    ipu.memoryBytesPerTile = options.bytesPerTile;
  const apps::ReplicaPlacement placement = apps::placeReplicas(replicas());
  localReplicas = placement.local;
  replicaOffset = placement.offset;
  ipu.numIPUs = std::max(1u, options.ipus) * localReplicas;
  device = ipu.createDevice();
  graph = std::make_unique<poplar::Graph>(device.getTarget(),
                                          poplar::replication_factor(localReplicas));
  poplar::Graph &g = *graph;
  popops::addCodelets(g);
  poprand::addCodelets(g);
  poplin::addCodelets(g);
  popnn::addCodelets(g);
  // 16.32: weights, activations and gradients in HALF; attention scores, logits, losses,
  // norm statistics, optimiser moments and matmul partials stay FLOAT.
  // 16.16: the matmuls' partials and the attention scores and probabilities in HALF too.
  ctx = std::make_unique<apps::BuildContext>(g, half ? poplar::HALF : poplar::FLOAT, options.seed);
  if (options.planForIpu)
    ctx->planForIpu();
  if (options.precision == apps::Precision::Half16Partials16) {
    ctx->partialsType = poplar::HALF;
    ctx->matMulOptions.set("partialsType", "half");
  }
  model = std::make_unique<BertModel>(*ctx, options.config, options.batchSize);

  poplar::Tensor lossScale;
  std::optional<apps::LossScalingOptions> scaling = options.lossScaling;
  if (half && !scaling)
    scaling = apps::LossScalingOptions{};
  if (scaling) {
    scaling->accumulationSteps = options.gradientAccumulation;
    lossScaler = std::make_unique<apps::LossScaler>(*ctx, *scaling);
    lossScale = lossScaler->scale();
  } else {
    lossScale = g.addConstant(poplar::FLOAT, {1}, 1.0f, "lossScale");
    g.setTileMapping(lossScale, 0);
  }

  // One training step: gradientAccumulation micro-batches (inputs, forward, backward,
  // statistics, next dropout seed; gradients summed when accumulating), then the learning rate
  // of the step — it comes with the batches through a FIFO, so a warm-up is as smooth with many
  // steps per host call as with one — and the update.
  const unsigned micro = options.gradientAccumulation;
  poplar::program::Sequence microBatch, step, update;
  microBatch.add(model->readInputs());
  PretrainingLosses losses = model->trainingPass(lossScale, microBatch);
  poplar::Tensor trainStatistics =
      g.addVariable(poplar::FLOAT, {kNumStatistics}, "trainStatistics");
  g.setTileMapping(trainStatistics, 0);
  popops::addInPlace(g, trainStatistics, statistics(losses, microBatch, "trainStatistics"),
                     microBatch, "trainStatistics/add");
  model->advanceDropoutSeed(microBatch);
  if (micro > 1) {
    accumulator = std::make_unique<apps::GradientAccumulator>(*ctx);
    accumulator->accumulate(microBatch);
    if (!lossScaler) {
      gradientScale = g.addConstant(poplar::FLOAT, {1}, 1.0f / float(micro), "gradientScale");
      g.setTileMapping(gradientScale, 0);
    }
    step.add(poplar::program::Repeat(micro, microBatch));
  } else {
    step.add(microBatch);
  }
  if (replicas() > 1) // every replica's gradients, averaged, before the update
    for (const auto &p : ctx->parameters())
      gcl::allReduceInPlaceCrossReplica(g, p->gradient, gcl::CollectiveOperator::MEAN, step,
                                        p->name + "/gradientMean");
  if (lossScaler) // 1 / (scale · micro-batches), recomputed by guardedUpdate every step
    gradientScale = lossScaler->gradientScale();
  addOptimiserUpdate(update);
  step.add(poplar::program::Copy(g.addHostToDeviceFIFO("learningRates", poplar::FLOAT, 1),
                                 learningRate()));
  if (lossScaler)
    lossScaler->guardedUpdate(step, update); // skips a step with inf/NaN gradients
  else
    step.add(update);
  if (accumulator)
    accumulator->reset(step);
  poplar::program::Sequence train;
  popops::zero(g, trainStatistics, train, "trainStatistics/zero");
  train.add(poplar::program::Repeat(options.stepsPerRun, step));
  if (replicas() > 1)
    gcl::allReduceInPlaceCrossReplica(g, trainStatistics, gcl::CollectiveOperator::ADD, train,
                                      "trainStatistics/replicaSum");
  g.createHostRead("trainStatistics", trainStatistics);

  poplar::program::Sequence evaluate;
  evaluate.add(model->readInputs());
  PretrainingLosses evalLosses = model->evaluationPass(evaluate);
  poplar::Tensor evalStatistics = statistics(evalLosses, evaluate, "evalStatistics");
  if (replicas() > 1)
    gcl::allReduceInPlaceCrossReplica(g, evalStatistics, gcl::CollectiveOperator::ADD, evaluate,
                                      "evalStatistics/replicaSum");
  g.createHostRead("evalStatistics", evalStatistics);

  for (const auto &p : ctx->parameters()) {
    g.createHostRead("param:" + p->name, p->value);
    g.createHostWrite("param:" + p->name, p->value);
  }
  for (const auto &s : ctx->states()) {
    g.createHostRead("state:" + s.name, s.value);
    g.createHostWrite("state:" + s.name, s.value);
  }

  std::vector<poplar::program::Program> programs(kNumPrograms);
  programs[kInitialise] = ctx->initialise;
  programs[kTrain] = train;
  programs[kEvaluate] = evaluate;
  if (options.planForIpu) {
    programs.push_back(microBatch);
    programs.push_back(update);
  }
  buildSeconds = secondsSince(start);
  log << "built BERT " << options.config.name << " (" << options.config.layers << " layers, hidden "
      << options.config.hidden << ", " << options.config.heads << " heads, FFN "
      << options.config.ffn << "): " << ctx->parameters().size() << " parameter tensors, graph "
      << buildSeconds << " s" << std::endl;
  poplar::OptionFlags engineOptions;
  if (options.hostThreads)
    engineOptions.set("target.hostThreads", std::to_string(options.hostThreads));
  if (options.instrument) // reporting only: the executable is the same
    engineOptions.set("debug.instrument", "true");
  if (options.planForIpu)
    apps::setEstimateOnlyOptions(engineOptions);
  engine = tessera::apps::startEngine(g, programs, engineOptions, device, log);
  // Replica k of the run reads the k-th of every `replicas` consecutive batches.
  cursor.assign(localReplicas, {});
  rateCursor.assign(localReplicas, 0);
  for (unsigned r = 0; r < localReplicas; ++r) {
    const std::size_t global = replicaOffset + r;
    for (std::size_t i = 0; i < kInputStreams.size(); ++i)
      engine->connectStreamToCallback(
          kInputStreams[i], r, std::function<void(void *)>([this, i, r, global](void *buffer) {
            const std::size_t at = cursor[r][i]++ * replicas() + global;
            const std::vector<std::uint32_t> &field = pending->at(at).*kBatchFields[i];
            std::memcpy(buffer, field.data(), field.size() * sizeof(std::uint32_t));
          }));
    engine->connectStreamToCallback(
        "learningRates", r, std::function<void(void *)>([this, r](void *buffer) {
          std::memcpy(buffer, &pendingRates.at(rateCursor[r]++), sizeof(float));
        }));
  }
  compileSeconds = secondsSince(start) - buildSeconds;
}

StepStatistics PretrainingSession::Impl::readStatistics(const std::string &handle, unsigned steps) {
  std::array<float, kNumStatistics> v{};
  engine->readTensor(handle, v.data(), v.data() + v.size());
  StepStatistics s;
  s.steps = steps;
  // Each replica's mean losses were summed with its counts: their mean is the run's.
  s.mlmLoss = v[kMlmLoss] / replicas();
  s.nspLoss = v[kNspLoss] / replicas();
  s.mlmCorrect = v[kMlmCorrect];
  s.mlmCount = v[kMlmCount];
  s.nspCorrect = v[kNspCorrect];
  s.nspCount = v[kNspCount];
  return s;
}

void PretrainingSession::Impl::run(unsigned program, const std::vector<HostBatch> &batches) {
  for (const HostBatch &b : batches)
    model->checkBatch(b);
  pending = &batches;
  for (auto &c : cursor)
    c.fill(0);
  engine->run(program);
  pending = nullptr;
}

PretrainingSession::PretrainingSession(SessionOptions options, std::ostream &log)
    : impl_(std::make_unique<Impl>(std::move(options), log)) {
  impl_->build();
}

PretrainingSession::~PretrainingSession() = default;

const SessionOptions &PretrainingSession::options() const { return impl_->options; }

void PretrainingSession::initialise() { impl_->engine->run(kInitialise); }

StepStatistics PretrainingSession::train(const std::vector<HostBatch> &batches,
                                         double learningRate) {
  return train(batches, std::vector<double>(impl_->options.stepsPerRun, learningRate));
}

StepStatistics PretrainingSession::train(const std::vector<HostBatch> &batches,
                                         const std::vector<double> &learningRates) {
  const unsigned steps = impl_->options.stepsPerRun, micro = impl_->options.gradientAccumulation;
  const unsigned replicas = impl_->replicas();
  if (batches.size() != std::size_t(steps) * micro * replicas)
    throw apps::app_error("train() takes " + std::to_string(steps * micro * replicas) +
                          " batches (stepsPerRun " + std::to_string(steps) + " × " +
                          std::to_string(micro) + " micro-batches × " + std::to_string(replicas) +
                          " replicas), got " + std::to_string(batches.size()));
  if (learningRates.size() != steps)
    throw apps::app_error("train() takes one learning rate per step: " + std::to_string(steps) +
                          " steps, " + std::to_string(learningRates.size()) + " rates");
  impl_->pendingRates.assign(learningRates.begin(), learningRates.end());
  std::fill(impl_->rateCursor.begin(), impl_->rateCursor.end(), 0);
  impl_->run(kTrain, batches);
  StepStatistics stats = impl_->readStatistics("trainStatistics", steps * micro);
  if (impl_->lossScaler) {
    float scale = 0, skipped = 0;
    impl_->engine->readTensor("lossScale", &scale, &scale + 1);
    impl_->engine->readTensor("skippedSteps", &skipped, &skipped + 1);
    stats.lossScale = scale;
    stats.skippedSteps = skipped;
  }
  return stats;
}

StepStatistics PretrainingSession::evaluate(const HostBatch &batch) {
  return evaluate(std::vector<HostBatch>{batch});
}

StepStatistics PretrainingSession::evaluate(const std::vector<HostBatch> &perReplica) {
  if (perReplica.size() != impl_->replicas())
    throw apps::app_error(
        "evaluate() takes one batch per replica: " + std::to_string(impl_->replicas()) +
        " replicas, " + std::to_string(perReplica.size()) + " batches");
  impl_->run(kEvaluate, perReplica);
  return impl_->readStatistics("evalStatistics", 1);
}

void PretrainingSession::saveState(apps::CheckpointState &state) {
  auto read = [&](const std::string &handle, const poplar::Tensor &t) {
    apps::NamedTensor out{handle, t.shape(), std::vector<float>(t.numElements())};
    impl_->engine->readTensor(handle, out.data.data(), out.data.data() + out.data.size());
    return out;
  };
  for (const auto &p : impl_->ctx->parameters())
    state.tensors.push_back(read("param:" + p->name, p->value));
  for (const auto &s : impl_->ctx->states()) {
    if (s.value.elementType() == poplar::FLOAT) {
      state.optimiserState.push_back(read("state:" + s.name, s.value));
    } else { // the dropout seed
      std::vector<std::uint32_t> words(s.value.numElements());
      impl_->engine->readTensor("state:" + s.name, words.data(), words.data() + words.size());
      state.rngState.insert(state.rngState.end(), words.begin(), words.end());
    }
  }
}

void PretrainingSession::restoreState(const apps::CheckpointState &state) {
  auto find = [&](const std::vector<apps::NamedTensor> &list, const std::string &handle,
                  const poplar::Tensor &t) -> const apps::NamedTensor & {
    for (const auto &n : list)
      if (n.name == handle) {
        if (n.shape != t.shape())
          throw apps::checkpoint_error("checkpoint tensor '" + handle +
                                       "' has another shape than this model's: was it written "
                                       "by another --config?");
        return n;
      }
    throw apps::checkpoint_error("checkpoint has no tensor '" + handle +
                                 "': was it written by another --config?");
  };
  for (const auto &p : impl_->ctx->parameters()) {
    const auto &n = find(state.tensors, "param:" + p->name, p->value);
    impl_->engine->writeTensor("param:" + p->name, n.data.data(), n.data.data() + n.data.size());
  }
  std::size_t word = 0;
  for (const auto &s : impl_->ctx->states()) {
    if (s.value.elementType() == poplar::FLOAT) {
      const auto &n = find(state.optimiserState, "state:" + s.name, s.value);
      impl_->engine->writeTensor("state:" + s.name, n.data.data(), n.data.data() + n.data.size());
    } else {
      const std::size_t n = s.value.numElements();
      if (word + n > state.rngState.size())
        throw apps::checkpoint_error("checkpoint has no value for '" + s.name + "'");
      impl_->engine->writeTensor("state:" + s.name, state.rngState.data() + word,
                                 state.rngState.data() + word + n);
      word += n;
    }
  }
}

void PretrainingSession::profileReport(std::ostream &out, const std::string &traceFile) {
  const auto exec = impl_->engine->getExecutionProfile();
  if (!exec)
    return;
  const tessera::profile::GraphProfile graph = impl_->engine->getGraphProfile();
  tessera::profile::printStepBreakdown(out, graph, *exec, 15, 3);
  std::ostringstream trace;
  tessera::profile::writeChromeTrace(trace, graph, *exec);
  apps::writeFileAtomically(traceFile, trace.str());
  out << "trace written to " << traceFile << " (open it in chrome://tracing or ui.perfetto.dev)"
      << std::endl;
}

double PretrainingSession::buildSeconds() const { return impl_->buildSeconds; }
double PretrainingSession::compileSeconds() const { return impl_->compileSeconds; }

apps::IpuStepCycles PretrainingSession::estimateIpuStepCycles() const {
  if (!impl_->options.planForIpu)
    throw apps::app_error("estimateIpuStepCycles: the session was not built with planForIpu "
                          "(the host's plans say nothing about an IPU's cycles)");
  apps::IpuStepCycles c;
  c.forwardBackward = impl_->engine->estimateProgramCycles(kMicroBatchPass);
  c.update = impl_->engine->estimateProgramCycles(kUpdate);
  for (const auto &p : impl_->ctx->parameters())
    c.parameterElements += p->value.numElements();
  return c;
}

} // namespace tessera::bert
