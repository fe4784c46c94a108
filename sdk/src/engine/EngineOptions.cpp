#include "engine/EngineOptions.hpp"

#include <cstdlib>
#include <thread>
#include <vector>

#include <poplar/exceptions.hpp>
#include <poputil/OptionParsing.hpp>

namespace poplar::engine {

namespace {

/// Values of the options Poplar documents that tune IPU hardware or features that run the same
/// way on CPU: checked, then ignored.
struct IgnoredValues {
  bool flag = false;
  unsigned count = 0;
  std::string text;
};

} // namespace

EngineOptions parseEngineOptions(const OptionFlags &flags) {
  OptionFlags all = flags;
  if (const char *env = std::getenv("POPLAR_ENGINE_OPTIONS"); env && *env) {
    OptionFlags fromEnv;
    try {
      readJSON(env, fromEnv);
    } catch (const parse_error &e) {
      throw invalid_option(std::string("POPLAR_ENGINE_OPTIONS: ") + e.what());
    }
    for (const auto &[k, v] : fromEnv)
      all.set(k, v);
  }
  EngineOptions out;
  bool reportAll = false;
  IgnoredValues ignored;
  std::string cacheMaxBytes;
  using H = poputil::OptionHandler;
  std::vector<poputil::OptionSpec::value_type> table = {
      {"target.hostThreads", H::createWithUnsigned(out.hostThreads, 1)},
      {"debug.allowOutOfMemory", H::createWithBool(out.allowOutOfMemory)},
      {"debug.runtimeVerify", H::createWithBool(out.runtimeVerify)},
      {"autoReport.all", H::createWithBool(reportAll)},
      {"autoReport.directory", H::createWithString(out.reportDirectory)},
      {"autoReport.outputGraphProfile", H::createWithBool(out.outputGraphProfile)},
      {"autoReport.outputExecutionProfile", H::createWithBool(out.outputExecutionProfile)},
      {"debug.instrument", H::createWithBool(out.instrument)},
      {"exchange.enablePrefetch", H::createWithBool(out.prefetch)},
      {"executableCache.enable", H::createWithBool(out.executableCache)},
      {"executableCache.directory", H::createWithString(out.executableCacheDirectory)},
      {"executableCache.maxBytes", H::createWithString(cacheMaxBytes)},
      // Accepted and ignored from here on.
      {"target.saveArchive", H::createWithString(ignored.text)},
      {"debug.computeInstrumentationLevel",
       H::createWithChoice(ignored.text, {"vertex", "tile", "device", "ipu"})},
      {"target.deterministicWorkers",
       H::createWithChoice(ignored.text, {"true", "false", "portable"})},
      {"opt.internalExchangeOptimisationTarget",
       H::createWithChoice(ignored.text, {"balanced", "cycles", "memory"})},
      {"exchange.streamBufferOverlap",
       H::createWithChoice(ignored.text, {"none", "hostRearrangeOnly", "any"})},
      {"profiler.format", H::createWithChoice(ignored.text, {"v1", "v2", "experimental"})},
  };
  for (const char *name :
       {"autoReport.executionProfileProgramRunCount", "opt.maxCompilationThreads",
        "opt.maxCopyMergeSize", "profiler.replicaToProfile"})
    table.emplace_back(name, H::createWithUnsigned(ignored.count));
  for (const char *name :
       {"autoReport.outputLoweredVars", "autoReport.outputArchive",
        "autoReport.outputSerializedGraph", "autoReport.outputDebugInfo",
        "autoReport.streamAtEachRun", "debug.instrumentCompute", "debug.instrumentExternalExchange",
        "debug.instrumentControlFlow", "debug.retainDebugInformation", "debug.verify",
        "debug.floatPointOpException", "debug.nanOverflowException", "debug.outputAllSymbols",
        "target.syncReplicasIndependently", "opt.enableSwSyncs", "opt.useAutoloader",
        "opt.enableMultiAccessCopies", "opt.limitVertexStateToLower256K",
        "profiler.includeFlopEstimates"})
    table.emplace_back(name, H::createWithBool(ignored.flag));
  poputil::OptionSpec("engine", std::move(table)).parse(all);
  if (!cacheMaxBytes.empty()) { // bytes: beyond what an unsigned option holds
    if (cacheMaxBytes.size() > 19 ||
        cacheMaxBytes.find_first_not_of("0123456789") != std::string::npos)
      throw invalid_option("engine: option 'executableCache.maxBytes' has value '" + cacheMaxBytes +
                           "'; expected a non-negative integer (bytes)");
    out.executableCacheMaxBytes = std::stoull(cacheMaxBytes);
  }
  if (out.reportDirectory.empty())
    out.reportDirectory.push_back('.'); // "" means the working directory

  // autoReport.all turns every report on; explicit "false" settings of the parts win.
  if (reportAll) {
    auto unlessFalse = [&](const char *key) {
      return !all.contains(key) || all.at(key) == StringRef("true");
    };
    out.outputGraphProfile = unlessFalse("autoReport.outputGraphProfile");
    out.outputExecutionProfile = unlessFalse("autoReport.outputExecutionProfile");
    out.instrument = unlessFalse("debug.instrument");
  }
  if (out.hostThreads == 0)
    out.hostThreads = std::max(1u, std::thread::hardware_concurrency());
  return out;
}

} // namespace poplar::engine
