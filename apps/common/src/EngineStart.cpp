#include <tessera/apps/EngineStart.hpp>

#include <chrono>

namespace tessera::apps {

namespace {
using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
/// Short compiles stay quiet; a long one shows it is alive.
constexpr double kQuietSeconds = 2.0;
} // namespace

std::unique_ptr<poplar::Engine> startEngine(const poplar::Graph &graph,
                                            const std::vector<poplar::program::Program> &programs,
                                            const poplar::OptionFlags &options,
                                            const poplar::Device &device, std::ostream &log) {
  const auto start = Clock::now();
  auto progress = [&](int done, int total) {
    if (done > 0 && done < total && secondsSince(start) > kQuietSeconds)
      log << "  compiling: stage " << done << " of " << total << " done after "
          << secondsSince(start) << " s" << std::endl;
  };
  auto engine = std::make_unique<poplar::Engine>(graph, programs, options, progress);
  engine->load(device);
  log << (engine->loadedFromExecutableCache() ? "loaded from the executable cache" : "compiled")
      << " in " << secondsSince(start) << " s" << std::endl;
  return engine;
}

void setEstimateOnlyOptions(poplar::OptionFlags &options) {
  options.set("debug.allowOutOfMemory", "true");
  options.set("executableCache.enable", "false");
}

} // namespace tessera::apps
