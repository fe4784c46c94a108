#include <tessera/apps/ClassifierReport.hpp>

#include <tessera/apps/BenchReport.hpp>
#include <tessera/apps/BenchmarkRecord.hpp>

namespace tessera::apps {

void reportClassifierRun(const ClassifierSpec &spec, const TrainingOptions &options,
                         const TrainingResult &r, std::ostream &out) {
  out << "trained " << r.steps << " steps (" << r.epochs << " epochs) in " << r.trainingSeconds
      << " s: " << r.imagesPerSecond << " images/s, final loss " << r.finalLoss;
  if (options.validation)
    out << ", validation accuracy " << r.finalAccuracy;
  out << "\n";
  if (options.targetAccuracy && options.validation) {
    if (r.timeToTargetSeconds)
      out << "time to " << *options.targetAccuracy << " accuracy: " << *r.timeToTargetSeconds
          << " s (plus " << r.compileSeconds << " s graph build and compile)\n";
    else
      out << "target accuracy " << *options.targetAccuracy << " not reached\n";
  }
  if (!options.recordFile.empty()) {
    RunSummary run;
    run.app = spec.modelName;
    run.config = spec.modelConfig;
    run.config.merge(describeTrainingOptions(options));
    run.samplesPerSecond = r.imagesPerSecond;
    run.timeToTargetSeconds = r.timeToTargetSeconds;
    run.targetAccuracy = options.targetAccuracy.value_or(0.0);
    run.finalAccuracy = r.finalAccuracy;
    run.epochs = static_cast<unsigned>(r.epochs);
    run.metrics = {{"compile_seconds", r.compileSeconds},
                   {"training_seconds", r.trainingSeconds},
                   {"final_loss", r.finalLoss}};
    BenchmarkRecord record = benchmarkRecordOf(run);
    auto &metrics = *record.mutable_metrics();
    if (options.pricePerHour) {
      const CostFigures cost = costFigures(record, *options.pricePerHour);
      metrics["images_per_second_per_dollar_hour"] = cost.imagesPerSecondPerDollarHour;
      if (cost.costToTrain)
        metrics["cost_to_train_dollars"] = *cost.costToTrain;
    }
    saveBenchmarkRecord(options.recordFile, record);
    out << "record written to " << options.recordFile << "\n";
  }
}

void reportClassifierIpuEstimate(const std::string &model, const ClassifierTrainer &trainer,
                                 const TrainingOptions &options, const ClassifierRunOptions &run,
                                 const PublishedFigure &published, std::ostream &out) {
  const IpuStepCycles c = trainer.estimateIpuStepCycles();
  const PodConfig pod =
      podConfigFor(run.podReplicas, options.batchSize, run.podAccumulation, options.precision);
  const ReplicaStepCycles cycles{{c.forwardBackward}, {c.update}, c.parameterElements};
  printPodEstimate(out, model, pod, cycles, estimatePod(cycles, pod), published);
}

} // namespace tessera::apps
