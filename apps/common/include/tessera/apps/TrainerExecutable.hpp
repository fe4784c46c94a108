// Warm starts that skip building the graph.
//
// The engine's executable cache already skips *compiling* a graph it has seen, but finding the
// entry needs the graph, and building a trainer's graph is the larger part of a warm start. A
// trainer knows from its configuration which graph it is about to build, so it can look further
// ahead: after a cold start it writes a manifest — what it will need of the graph later (the
// host handles, types and shapes of its parameters and state) and the engine's cache key —
// under a name derived from its configuration, the build of its own program and the SDK build.
// A later run with the same identity finds the manifest, loads the executable by the key
// (tessera::ExecutableCache) and starts without a graph.
//
// A manifest or cache entry that is missing, stale, damaged or unwritable only means a cold
// start; it never stops training.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <poplar/Type.hpp>

namespace tessera::apps {

/// A tensor the trainer reaches through an Engine host handle.
struct HostTensorInfo {
  std::string name;
  poplar::Type type;
  std::vector<std::size_t> shape;
  std::size_t numElements() const;
};

struct ParameterInfo {
  HostTensorInfo value;
  HostTensorInfo gradient;
};

struct TrainerManifest {
  std::string identity;
  std::string engineKey;
  std::vector<ParameterInfo> parameters;
  std::vector<HostTensorInfo> states;
};

/// The identity text of a graph built from `config` (name → value, every setting the graph
/// depends on) by this program and this SDK build.
std::string trainerIdentity(const std::map<std::string, std::string> &config);

/// The build id of the trainer program (its code, not its path): see tessera::buildIdOf.
const std::string &programBuildId();

/// Manifests in `<cacheDirectory>/trainers/`.
class TrainerManifestStore {
public:
  explicit TrainerManifestStore(std::string cacheDirectory);

  /// The manifest written for `identity`, or nothing (none, another identity under the same
  /// name, or damaged — then it is removed).
  std::optional<TrainerManifest> find(const std::string &identity) const;
  /// Writes `manifest` atomically under its identity. A failure is reported once on stderr and
  /// otherwise ignored.
  void remember(const TrainerManifest &manifest) const;

  /// The file a manifest for `identity` lives in.
  std::string pathFor(const std::string &identity) const;

private:
  std::string directory_;
};

} // namespace tessera::apps
