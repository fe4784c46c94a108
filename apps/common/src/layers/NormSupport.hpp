// What the normalisation layers (BatchNorm, GroupNorm, …) share: per-channel FLOAT parameters on
// the activations' first tile, and moving a tensor into the layer's tile window.
#pragma once

#include <string>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <tessera/apps/layers/Layer.hpp>

namespace tessera::apps::detail {

/// The first tile holding part of `x` (0 when none): the per-channel tensors of a norm (and the
/// small maps that update them) live there, so a network's many norms do not all crowd one tile.
unsigned firstTileOf(const poplar::Graph &graph, const poplar::Tensor &x);

/// A FLOAT [channels] variable on `tile`, set to `init` by ctx.initialise.
poplar::Tensor perChannelVariable(BuildContext &ctx, poplar::Graph &graph, const std::string &name,
                                  std::size_t channels, float init, unsigned tile);

/// `t` itself when all of it lies in `graph` (the layer's tile window), else a copy there,
/// mapped like `like` when that lies in the window.
poplar::Tensor inWindow(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &like,
                        poplar::program::Sequence &prog, const std::string &name);

} // namespace tessera::apps::detail
