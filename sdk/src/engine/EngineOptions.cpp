#include "engine/EngineOptions.hpp"

#include <cstdlib>
#include <thread>
#include <vector>

#include <poplar/exceptions.hpp>

#include "core/Suggest.hpp"

namespace poplar::engine {

namespace {

enum class Kind { Bool, Unsigned, String, Enum };

struct OptionSpec {
  const char *name;
  Kind kind;
  const char *choices; ///< Enum: '|'-separated allowed values.
};

// Options Tessera reads first, then Poplar's documented options it accepts and ignores
// (they tune IPU hardware or features that run the same way on CPU).
constexpr OptionSpec kOptions[] = {
    {"target.hostThreads", Kind::Unsigned, nullptr},
    {"debug.allowOutOfMemory", Kind::Bool, nullptr},
    {"autoReport.all", Kind::Bool, nullptr},
    {"autoReport.directory", Kind::String, nullptr},
    {"autoReport.outputGraphProfile", Kind::Bool, nullptr},
    {"executableCache.enable", Kind::Bool, nullptr},
    {"executableCache.directory", Kind::String, nullptr},
    {"executableCache.maxBytes", Kind::String, nullptr},
    {"autoReport.outputExecutionProfile", Kind::Bool, nullptr},
    {"autoReport.outputLoweredVars", Kind::Bool, nullptr},
    {"autoReport.outputArchive", Kind::Bool, nullptr},
    {"autoReport.outputSerializedGraph", Kind::Bool, nullptr},
    {"autoReport.outputDebugInfo", Kind::Bool, nullptr},
    {"autoReport.streamAtEachRun", Kind::Bool, nullptr},
    {"autoReport.executionProfileProgramRunCount", Kind::Unsigned, nullptr},
    {"debug.instrument", Kind::Bool, nullptr},
    {"debug.instrumentCompute", Kind::Bool, nullptr},
    {"debug.instrumentExternalExchange", Kind::Bool, nullptr},
    {"debug.instrumentControlFlow", Kind::Bool, nullptr},
    {"debug.computeInstrumentationLevel", Kind::Enum, "vertex|tile|device|ipu"},
    {"debug.retainDebugInformation", Kind::Bool, nullptr},
    {"debug.runtimeVerify", Kind::Bool, nullptr},
    {"debug.verify", Kind::Bool, nullptr},
    {"debug.floatPointOpException", Kind::Bool, nullptr},
    {"debug.nanOverflowException", Kind::Bool, nullptr},
    {"debug.outputAllSymbols", Kind::Bool, nullptr},
    {"target.saveArchive", Kind::String, nullptr},
    {"target.deterministicWorkers", Kind::Enum, "true|false|portable"},
    {"target.syncReplicasIndependently", Kind::Bool, nullptr},
    {"opt.maxCompilationThreads", Kind::Unsigned, nullptr},
    {"opt.internalExchangeOptimisationTarget", Kind::Enum, "balanced|cycles|memory"},
    {"opt.enableSwSyncs", Kind::Bool, nullptr},
    {"opt.maxCopyMergeSize", Kind::Unsigned, nullptr},
    {"opt.useAutoloader", Kind::Bool, nullptr},
    {"opt.enableMultiAccessCopies", Kind::Bool, nullptr},
    {"opt.limitVertexStateToLower256K", Kind::Bool, nullptr},
    {"exchange.streamBufferOverlap", Kind::Enum, "none|hostRearrangeOnly|any"},
    {"exchange.enablePrefetch", Kind::Bool, nullptr},
    {"profiler.format", Kind::Enum, "v1|v2|experimental"},
    {"profiler.includeFlopEstimates", Kind::Bool, nullptr},
    {"profiler.replicaToProfile", Kind::Unsigned, nullptr},
};

const OptionSpec *find(const std::string &key) {
  for (const auto &o : kOptions)
    if (key == o.name)
      return &o;
  return nullptr;
}

void checkValue(const OptionSpec &spec, const std::string &value) {
  auto bad = [&](const std::string &expected) {
    throw invalid_option("engine option '" + std::string(spec.name) + "' has value '" + value +
                         "'; expected " + expected);
  };
  switch (spec.kind) {
  case Kind::Bool:
    if (value != "true" && value != "false")
      bad("'true' or 'false'");
    break;
  case Kind::Unsigned: {
    if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos ||
        value.size() > 9)
      bad("a non-negative integer");
    break;
  }
  case Kind::Enum: {
    std::string choices = spec.choices;
    std::string token;
    for (std::size_t i = 0; i <= choices.size(); ++i) {
      if (i == choices.size() || choices[i] == '|') {
        if (token == value)
          return;
        token.clear();
      } else {
        token += choices[i];
      }
    }
    std::string list = choices;
    for (auto &c : list)
      if (c == '|')
        c = ',';
    bad("one of " + list);
    break;
  }
  case Kind::String:
    break;
  }
}

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
  std::vector<std::string> names;
  for (const auto &o : kOptions)
    names.push_back(o.name);
  EngineOptions out;
  bool all_ = false;
  for (const auto &[key, value] : all) {
    const OptionSpec *spec = find(key);
    if (!spec)
      throw invalid_option("unknown engine option '" + key + "'" + core::didYouMean(key, names));
    checkValue(*spec, value);
    if (key == "target.hostThreads") {
      out.hostThreads = static_cast<unsigned>(std::stoul(value));
      if (out.hostThreads == 0)
        throw invalid_option("engine option 'target.hostThreads' must be at least 1");
    } else if (key == "debug.allowOutOfMemory") {
      out.allowOutOfMemory = value == "true";
    } else if (key == "debug.runtimeVerify") {
      out.runtimeVerify = value == "true";
    } else if (key == "autoReport.all") {
      all_ = value == "true";
    } else if (key == "autoReport.outputGraphProfile") {
      out.outputGraphProfile = value == "true";
    } else if (key == "autoReport.outputExecutionProfile") {
      out.outputExecutionProfile = value == "true";
    } else if (key == "debug.instrument") {
      out.instrument = value == "true";
    } else if (key == "autoReport.directory") {
      out.reportDirectory = value.empty() ? "." : value;
    } else if (key == "executableCache.enable") {
      out.executableCache = value == "true";
    } else if (key == "executableCache.directory") {
      out.executableCacheDirectory = value;
    } else if (key == "executableCache.maxBytes") {
      if (value.empty() || value.size() > 19 ||
          value.find_first_not_of("0123456789") != std::string::npos)
        throw invalid_option("engine option 'executableCache.maxBytes' has value '" + value +
                             "'; expected a non-negative integer (bytes)");
      out.executableCacheMaxBytes = std::stoull(value);
    }
  }
  // autoReport.all turns every report on; explicit "false" settings of the parts win.
  if (all_) {
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
