// What a poplar::Executable holds, and how it is written and read.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include <poplar/Executable.hpp>
#include <tessera/profile/Profile.hpp>

#include "compiler/CompiledGraph.hpp"

namespace poplar {

struct Executable::Impl {
  compiler::CompiledGraph plan;
  /// The graph as the profiler describes it (variables, compute sets, steps), taken at compile
  /// time so an Engine built from a deserialized executable still profiles without the graph.
  tessera::profile::GraphProfile description;
};

} // namespace poplar

namespace poplar::executable {

/// This SDK build's identity as executables record it: the poplar library's GNU build id
/// (which changes with its code, never with a commit), or a hash of the library file.
const std::string &sdkBuildId();
/// The build id of the loaded object containing `address` (see tessera::buildIdOf).
std::string computeBuildIdOf(const void *address);

/// "ipu2: 1 IPU x 1472 tiles, 6 workers, 638976 bytes per tile": how messages name a target.
std::string describeTarget(const tessera::profile::TargetInfo &target);

/// Writes `exe` (Protocol Buffers). Throws runtime_error when the stream fails.
void write(const Executable::Impl &exe, std::ostream &out);

/// `exe` encoded, ready to be written later (possibly by another thread) with `bytes()`. The
/// encoding copies what it needs: `exe` may change or go once it returns.
class Encoded {
public:
  explicit Encoded(const Executable::Impl &exe);
  Encoded(Encoded &&) noexcept;
  ~Encoded();
  std::string bytes() const;

private:
  struct Message;
  std::unique_ptr<Message> message_;
};
/// Reads an executable; throws poplar_error for a stream that is empty, truncated, corrupt, not
/// an executable, or from another SDK build (naming both build ids), and when a vertex type it
/// uses cannot be found or has another layout than when it was compiled (naming the type).
Executable::Impl read(std::istream &in);

} // namespace poplar::executable
