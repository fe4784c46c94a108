// How the trainers turn their graph into a running Engine: compiled, or loaded from the
// executable cache when the same graph was compiled before, saying which and how long it took.
#pragma once

#include <memory>
#include <ostream>
#include <vector>

#include <poplar/Engine.hpp>

namespace tessera::apps {

/// Builds the Engine for `programs` and loads it on `device`. Compiles that take more than a
/// couple of seconds report each stage on `log` as they finish; the last line says whether the
/// graph was compiled or loaded from the executable cache, and how long it took.
std::unique_ptr<poplar::Engine> startEngine(const poplar::Graph &graph,
                                            const std::vector<poplar::program::Program> &programs,
                                            const poplar::OptionFlags &options,
                                            const poplar::Device &device, std::ostream &log);

/// Engine options for a graph compiled to be priced, not run (--estimate-ipu): compile even
/// when tiles overflow (a full-size model planned for an IPU may), and keep its executable —
/// tens of gigabytes of host structures — out of the executable cache.
void setEstimateOnlyOptions(poplar::OptionFlags &options);

} // namespace tessera::apps
