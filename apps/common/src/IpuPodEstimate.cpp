#include <tessera/apps/IpuPodEstimate.hpp>

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {

PodConfig podConfigFor(unsigned replicas, std::size_t microBatch, unsigned accumulation,
                       Precision precision) {
  PodConfig pod;
  pod.replicas = replicas;
  pod.microBatch = microBatch;
  pod.accumulation = accumulation;
  pod.gradientElementBytes = precision == Precision::Float32 ? 4 : 2;
  return pod;
}

PodEstimate estimatePod(const ReplicaStepCycles &cycles, const PodConfig &config) {
  if (cycles.stagePass.empty() || cycles.stagePass.size() != cycles.stageUpdate.size())
    throw app_error("estimatePod: " + std::to_string(cycles.stagePass.size()) +
                    " stage passes and " + std::to_string(cycles.stageUpdate.size()) +
                    " stage updates (need one of each per stage)");
  if (config.replicas == 0 || config.microBatch == 0 || config.accumulation == 0 ||
      config.clockHz <= 0 || config.linkBytesPerSecond <= 0)
    throw app_error("estimatePod: replicas, micro-batch, accumulation, clock and "
                    "link bandwidth must all be positive");
  const std::size_t stages = cycles.stagePass.size();
  PodEstimate e;
  e.passSeconds =
      static_cast<double>(*std::max_element(cycles.stagePass.begin(), cycles.stagePass.end())) /
      config.clockHz;
  e.updateSeconds =
      static_cast<double>(*std::max_element(cycles.stageUpdate.begin(), cycles.stageUpdate.end())) /
      config.clockHz;
  if (config.replicas > 1) {
    const double stageBytes = static_cast<double>(cycles.parameterElements) *
                              static_cast<double>(config.gradientElementBytes) /
                              static_cast<double>(stages);
    const double r = config.replicas;
    e.allReduceSeconds = 2.0 * (r - 1.0) / r * stageBytes / config.linkBytesPerSecond;
  }
  e.weightUpdateSeconds = static_cast<double>(config.accumulation + stages - 1) * e.passSeconds +
                          e.updateSeconds + e.allReduceSeconds;
  e.globalBatch = config.microBatch * config.accumulation * config.replicas;
  e.samplesPerSecond = static_cast<double>(e.globalBatch) / e.weightUpdateSeconds;
  return e;
}

namespace {

std::string millions(std::uint64_t cycles) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << static_cast<double>(cycles) / 1e6 << " M ";
  return s.str();
}

std::string ms(double seconds) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << seconds * 1e3 << " ms";
  return s.str();
}

} // namespace

void printPodEstimate(std::ostream &out, const std::string &model, const PodConfig &config,
                      const ReplicaStepCycles &cycles, const PodEstimate &estimate,
                      const PublishedFigure &published) {
  const std::size_t stages = cycles.stagePass.size();
  out << "IPU estimate for " << model << " (the IPU cost model's cycles; nothing ran):\n";
  for (std::size_t s = 0; s < stages; ++s)
    out << "  " << (stages > 1 ? "stage " + std::to_string(s) + ": " : "one IPU: ")
        << "forward + backward of " << config.microBatch << " samples "
        << millions(cycles.stagePass[s]) << "cycles, update " << millions(cycles.stageUpdate[s])
        << "cycles\n";
  out << "  at " << config.clockHz / 1e9 << " GHz: pass " << ms(estimate.passSeconds) << ", update "
      << ms(estimate.updateSeconds) << ", gradient all-reduce over " << config.replicas
      << " replicas " << ms(estimate.allReduceSeconds) << " (" << cycles.parameterElements
      << " parameters, " << config.gradientElementBytes << "-byte gradients, "
      << config.linkBytesPerSecond / 1e9 << " GB/s IPU-Link ring)\n";
  out << "  " << config.system << ": " << config.replicas << " replicas x " << stages
      << (stages > 1 ? " IPUs" : " IPU") << ", micro-batch " << config.microBatch << " x "
      << config.accumulation << " accumulated = " << estimate.globalBatch
      << " per weight update every " << ms(estimate.weightUpdateSeconds) << "\n";
  out << "  estimated " << std::fixed << std::setprecision(0) << estimate.samplesPerSecond << " "
      << published.unit;
  if (published.samplesPerSecond <= 0) {
    out << " (" << published.source << ")\n";
    out << "ipu-estimate: " << model << " " << config.system << " " << estimate.samplesPerSecond
        << " " << published.unit << " published - ratio -" << std::endl;
  } else {
    const double ratio = estimate.samplesPerSecond / published.samplesPerSecond;
    out << "; published " << published.samplesPerSecond << " " << published.unit << " ("
        << published.source << "); ratio " << std::setprecision(2) << ratio << "\n";
    out << "ipu-estimate: " << model << " " << config.system << " " << std::setprecision(0)
        << estimate.samplesPerSecond << " " << published.unit << " published "
        << published.samplesPerSecond << " ratio " << std::setprecision(3) << ratio << std::endl;
  }
  out.unsetf(std::ios::floatfield);
}

} // namespace tessera::apps
