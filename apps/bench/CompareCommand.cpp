#include "CompareCommand.hpp"

#include "BaselineBuild.hpp"
#include "BaselineRevision.hpp"
#include "HostPrices.hpp"
#include "Process.hpp"

#include <tessera/apps/ComparisonRecord.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/ReleaseHistory.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace tessera::bench {
namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

std::string utcNow() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// One side of a comparison while its rounds run.
struct Side {
  const char *name; // "current" or "baseline"
  std::filesystem::path trainer;
  apps::ComparisonSide *record;
  bool active() const { return record->status() == apps::pb::SIDE_MEASURED; }
};

void addRun(Side &side, const MeasuredRun &m, unsigned round, unsigned position,
            const std::vector<std::string> &trainerArgs) {
  apps::ComparisonRun &run = *side.record->add_runs();
  run.set_round(round);
  run.set_position(position);
  run.set_throughput(m.record.throughput_images_per_second());
  if (m.record.has_time_to_target_seconds())
    run.set_time_to_target_seconds(m.record.time_to_target_seconds());
  if (m.stealShare)
    run.set_steal_fraction(*m.stealShare);
  const auto &metrics = m.record.metrics();
  if (const auto it = metrics.find("compile_seconds"); it != metrics.end())
    run.set_compile_seconds(it->second);
  if (const auto it = metrics.find("training_seconds"); it != metrics.end())
    run.set_training_seconds(it->second);
  run.set_wall_seconds(m.wallSeconds);
  if (m.peakRssKiB)
    run.set_peak_rss_kib(*m.peakRssKiB);
  run.set_git_commit(m.record.git_commit());
  run.set_timestamp(m.record.timestamp());
  if (side.record->thread_settings().empty()) {
    auto &threads = *side.record->mutable_thread_settings();
    if (const auto it = m.record.config().find("host-threads"); it != m.record.config().end())
      threads["host-threads"] = it->second;
    for (const auto &a : trainerArgs)
      if (a.find("thread") != std::string::npos)
        threads["trainer-arg " + a] = "";
    if (const char *omp = std::getenv("OMP_NUM_THREADS"))
      threads["OMP_NUM_THREADS"] = omp;
    threads["cpus"] = std::to_string(m.record.host().cores());
  }
}

std::vector<double> throughputs(const apps::ComparisonSide &side) {
  std::vector<double> values;
  for (const auto &r : side.runs())
    values.push_back(r.throughput());
  return values;
}

void summarise(apps::ComparisonSide &side) {
  const auto values = throughputs(side);
  if (values.empty())
    return;
  const Spread s = spreadOf(values);
  side.set_median_throughput(s.median);
  side.set_min_throughput(s.min);
  side.set_max_throughput(s.max);
}

/// Each measured side's samples per dollar and, for time-to-accuracy benchmarks, the median
/// cost to train; stores the price in `record`.
void printPerDollar(std::ostream &out, apps::ComparisonRecord &record, double price,
                    const std::string &source) {
  record.set_price_per_hour(price);
  record.set_price_source(source);
  out << "  per dollar at $" << fixed(price, 4) << "/h (" << source << "):";
  bool first = true;
  for (const auto *side : {&record.current(), &record.baseline()}) {
    if (side->status() != apps::pb::SIDE_MEASURED || side->runs_size() == 0)
      continue;
    out << (first ? " " : "; ") << (side == &record.current() ? "current " : "baseline ")
        << fixed(samplesPerDollar(side->median_throughput(), price) / 1e6, 2) << " million samples";
    std::vector<double> toTarget;
    for (const auto &r : side->runs())
      if (r.has_time_to_target_seconds())
        toTarget.push_back(r.time_to_target_seconds());
    if (!toTarget.empty())
      out << ", $" << fixed(median(toTarget) / 3600.0 * price, 4) << " to train";
    first = false;
  }
  out << "\n";
}

void printSide(std::ostream &out, const apps::ComparisonSide &side, const char *name) {
  char head[160];
  std::snprintf(head, sizeof(head), "  %-8s %s (%s)", name, side.version().c_str(),
                side.commit().c_str());
  out << head;
  if (side.runs_size() > 0) {
    out << ": median " << fixed(side.median_throughput(), 1) << " samples/s ["
        << fixed(side.min_throughput(), 1) << "–" << fixed(side.max_throughput(), 1) << "] over "
        << side.runs_size() << " runs";
    std::vector<double> steal, compile, rss;
    for (const auto &r : side.runs()) {
      if (r.has_steal_fraction())
        steal.push_back(r.steal_fraction());
      if (r.has_compile_seconds())
        compile.push_back(r.compile_seconds());
      if (r.has_peak_rss_kib())
        rss.push_back(static_cast<double>(r.peak_rss_kib()));
    }
    if (!steal.empty())
      out << "; CPU stolen ≤ " << fixed(100 * *std::max_element(steal.begin(), steal.end()), 1)
          << "%";
    if (!compile.empty())
      out << "; compile " << fixed(median(compile), 1) << " s";
    if (!rss.empty())
      out << "; peak RSS " << fixed(median(rss) / 1024, 0) << " MiB";
  }
  if (side.status() == apps::pb::SIDE_NEW)
    out << ": new — " << side.detail();
  else if (side.status() == apps::pb::SIDE_FAILED)
    out << ": failed — " << side.detail();
  out << "\n";
}

} // namespace

int runCompare(const CompareOptions &o, std::ostream &out) {
  if (o.rounds < 1)
    throw apps::cli_error("--rounds must be at least 1");
  if (o.benchmarks.empty())
    throw apps::cli_error("no benchmarks selected");
  const ResolvedBaseline baseline =
      resolveBaseline(o.baseline, o.repo, apps::loadBenchmarkRecords(o.recordsDir));
  out << "tessera-bench: baseline " << baseline.label << " is " << baseline.shortCommit << " ("
      << baseline.rule << ")\n"
      << std::flush;

  // The baseline's trainers: an existing build, or a worktree built now.
  std::filesystem::path baselineBuild = o.baselineBuildDir;
  std::optional<std::filesystem::path> baselineSource;
  std::string baselineFailure;
  if (!baselineBuild.empty()) {
    baselineSource = sourceDirOfBuild(baselineBuild);
    out << "tessera-bench: baseline trainers from " << baselineBuild.string() << "\n";
  } else {
    const Worktree tree =
        ensureWorktree(o.repo, baseline.commit, baseline.shortCommit, o.baselinesDir);
    out << "tessera-bench: " << (tree.reused ? "reusing" : "checked out") << " baseline worktree "
        << tree.path.string() << "\n";
    baselineSource = tree.path;
    std::vector<std::string> appsNeeded;
    for (const auto &b : o.benchmarks)
      appsNeeded.push_back(b.app);
    const BaselineBuildResult built = buildBaseline(tree.path, appsNeeded, out);
    baselineBuild = built.buildDir;
    if (!built.ok) {
      baselineFailure =
          "baseline build failed: " + built.firstError + " (log: " + built.logFile.string() + ")";
      out << "tessera-bench: " << baselineFailure
          << "\ntessera-bench: measuring the current side only\n"
          << std::flush;
    }
  }

  apps::HostInfo host = apps::detectHost();
  if (!o.hostClass.empty())
    host.set_host_class(o.hostClass);
  std::optional<double> price = o.pricePerHour;
  std::string priceSource = o.priceSource;
  if (!price)
    if (const std::optional<HostPrice> list = listPriceOf(host.host_class())) {
      price = list->dollarsPerHour;
      priceSource = list->source;
    }
  const std::string currentCommit = apps::gitCommit(o.repo);
  bool complete = baselineFailure.empty();

  for (const BenchmarkSpec &spec : o.benchmarks) {
    apps::ComparisonRecord record;
    record.set_benchmark(spec.name);
    record.set_app(spec.app);
    record.set_bench_args(commandLine(spec.args));
    for (const auto &a : o.trainerArgs)
      record.add_trainer_args(a);
    *record.mutable_host() = host;
    record.set_rounds(o.rounds);

    apps::ComparisonSide &current = *record.mutable_current();
    current.set_label(o.currentVersion);
    current.set_version(o.currentVersion);
    current.set_commit(currentCommit);
    current.set_status(apps::pb::SIDE_MEASURED);
    Side currentSide{"current",
                     o.currentTrainer.empty() ? trainerIn(o.currentBuildDir, spec.app)
                                              : std::filesystem::path(o.currentTrainer),
                     &current};
    current.set_trainer_dir(currentSide.trainer.parent_path().string());

    apps::ComparisonSide &base = *record.mutable_baseline();
    base.set_label(baseline.label);
    base.set_version(baseline.version);
    base.set_commit(baseline.shortCommit);
    Side baselineSide{"baseline", trainerIn(baselineBuild, spec.app), &base};
    base.set_trainer_dir(baselineSide.trainer.parent_path().string());
    base.set_status(apps::pb::SIDE_MEASURED);
    if (!baselineFailure.empty()) {
      base.set_status(apps::pb::SIDE_FAILED);
      base.set_detail(baselineFailure);
    } else if (!std::filesystem::exists(baselineSide.trainer)) {
      base.set_status(apps::pb::SIDE_NEW);
      base.set_detail("the baseline has no " + spec.app + " trainer (" +
                      baselineSide.trainer.string() + " absent)");
    } else if (baselineSource && baselineSuiteKnows(*baselineSource, spec.name) == false) {
      base.set_status(apps::pb::SIDE_NEW);
      base.set_detail("the baseline's tessera-bench does not know it");
    }

    for (unsigned round = 1; round <= o.rounds; ++round) {
      // A B, B A, A B …: each side runs first in every other round.
      std::array<Side *, 2> order = {&currentSide, &baselineSide};
      if (round % 2 == 0)
        std::swap(order[0], order[1]);
      for (unsigned position = 1; position <= 2; ++position) {
        Side &side = *order[position - 1];
        if (!side.active())
          continue;
        out << "tessera-bench: " << spec.name << " round " << round << "/" << o.rounds << ": "
            << side.name << " (" << side.record->commit() << ")\n"
            << std::flush;
        try {
          addRun(side, runBenchmarkMeasured(spec, side.trainer, o.trainerArgs), round, position,
                 o.trainerArgs);
        } catch (const apps::app_error &e) {
          side.record->set_status(apps::pb::SIDE_FAILED);
          side.record->set_detail(e.what());
          out << "tessera-bench: " << side.name << " failed: " << e.what() << "\n";
          complete = false;
        }
      }
    }

    summarise(current);
    summarise(base);
    record.set_interval_method(intervalMethod(o.bootstrap));
    record.set_confidence(o.bootstrap.confidence);
    record.set_resamples(o.bootstrap.resamples);
    record.set_seed(o.bootstrap.seed);
    out << "\n"
        << spec.name << " (" << o.rounds << (o.rounds == 1 ? " round" : " rounds, alternating")
        << "):\n";
    printSide(out, current, "current");
    printSide(out, base, "baseline");
    if (current.status() == apps::pb::SIDE_MEASURED && base.status() == apps::pb::SIDE_MEASURED) {
      const SpeedupEstimate e =
          estimateSpeedup(throughputs(current), throughputs(base), o.bootstrap);
      record.set_speedup(e.speedup);
      out << "  speedup " << fixed(e.speedup, 2) << "×";
      if (e.low && e.high) {
        record.set_interval_low(*e.low);
        record.set_interval_high(*e.high);
        record.set_significant(e.significant);
        out << " " << apps::intervalText(*e.low, *e.high) << " "
            << (e.significant ? "significant" : "not significant") << " ("
            << record.interval_method() << ")";
      } else {
        out << " (one round: no interval)";
      }
      out << "\n";
    }
    if (price)
      printPerDollar(out, record, *price, priceSource);
    record.set_timestamp(utcNow());
    const std::filesystem::path file = o.recordsDir / apps::comparisonRecordFileName(record);
    apps::saveComparisonRecord(file, record);
    out << "  record: " << file.string() << "\n\n" << std::flush;
  }
  return complete ? 0 : 1;
}

} // namespace tessera::bench
