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
#include <new>
#include <optional>
#include <sstream>

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
#include "training/CommandLine.hpp"
#include <tessera/Distributed.hpp>

#include "training/IpuEstimate.hpp"
#include "training/PretrainingSession.hpp"

using namespace tessera;
using namespace tessera::bert;

namespace {

/// Sums the session's evaluation over `count` batches from `batchAt` (with replicas, one batch
/// per replica per call: `count` rounded up to a whole number of calls, wrapping round).
StepStatistics evaluateBatches(PretrainingSession &session, std::size_t count,
                               const std::function<PretrainingBatch(std::size_t)> &batchAt) {
  StepStatistics total;
  const auto &o = session.options();
  const std::size_t replicas = std::max(1u, o.replicas);
  for (std::size_t i = 0; i < count; i += replicas) {
    std::vector<HostBatch> perReplica;
    for (std::size_t r = 0; r < replicas; ++r)
      perReplica.push_back(toDeviceLayout(batchAt((i + r) % count), o.config, o.batchSize));
    const StepStatistics s = session.evaluate(perReplica);
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

/// --export-run: the initial weights and every batch the run will see, for the PyTorch twin.
/// The batches come from a second loader with the same options, so the training loader is
/// untouched and the twin's data order is exactly the run's.
void exportRun(const BertCommandLine &o, PretrainingSession &session, const BertDataOptions &data,
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
  const auto parsed = parseBertCommandLine(argc, argv, std::cout);
  if (!parsed)
    return 0; // --help
  BertCommandLine o = *parsed;
  if (o.estimateIpu) {
    runIpuEstimate(o, std::cout);
    return 0;
  }
  const BertConfig config = modelConfigOf(o);

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

  PretrainingSession session(sessionOptionsOf(o), std::cout);
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
    // Every instance holds the same model; instance 0 writes the file.
    if (tessera::distributed::instanceIndex() != 0)
      return;
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
    const unsigned replicas = std::max(1u, session.options().replicas);
    for (unsigned i = 0; i < o.stepsPerRun * o.gradientAccumulation * replicas; ++i)
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
        double((done - firstStep) * o.batchSize * o.gradientAccumulation * replicas) / trainSeconds;
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
    if (o.profileSteps && done >= o.profileSteps && done - o.stepsPerRun < o.profileSteps &&
        tessera::distributed::instanceIndex() == 0) {
      std::cout << "\nprofile of the first " << done
                << " steps (and initialisation, evaluation):\n";
      session.profileReport(std::cout, o.profileTrace);
    }
    if (!o.checkpointDir.empty() &&
        ((o.checkpointEvery && done % o.checkpointEvery == 0) || done == o.steps))
      writeCheckpointAt(done);
    if (o.evaluateEvery && done % o.evaluateEvery == 0 && done != o.steps)
      report(done);
  }
  report(o.steps);
  const double trainedSequences =
      double((o.steps - firstStep) * o.batchSize * o.gradientAccumulation *
             std::max(1u, session.options().replicas));
  std::printf("trained %llu steps in %.1f s on the device (%.2f seq/s); %.1f s in all\n",
              (unsigned long long)(o.steps - firstStep), trainSeconds,
              trainSeconds > 0 ? trainedSequences / trainSeconds : 0.0,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (!o.recordFile.empty()) {
    apps::RunSummary run;
    run.app = "bert";
    run.config = describeRun(o, config);
    // A sequence is BERT's sample: the record's throughput field counts samples per second.
    run.samplesPerSecond = trainSeconds > 0 ? trainedSequences / trainSeconds : 0.0;
    run.timeToTargetSeconds = timeToTarget;
    run.targetAccuracy = o.targetMlmAccuracy;
    run.finalAccuracy = lastEvaluation.mlmAccuracy();
    run.metrics = {{"sequences_per_second", run.samplesPerSecond},
                   {"held_out_mlm_accuracy", lastEvaluation.mlmAccuracy()},
                   {"held_out_nsp_accuracy", lastEvaluation.nspAccuracy()},
                   {"held_out_loss", lastEvaluation.meanLoss()},
                   {"final_training_loss", lastTraining.meanLoss()},
                   {"training_seconds", trainSeconds},
                   {"compile_seconds", session.compileSeconds()},
                   {"steps", double(o.steps)}};
    apps::saveBenchmarkRecord(o.recordFile, apps::benchmarkRecordOf(run));
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
  } catch (const std::bad_alloc &) {
    std::cerr << "bert: error: " << tessera::apps::outOfHostMemoryMessage() << "\n";
    return 3;
  }
}
