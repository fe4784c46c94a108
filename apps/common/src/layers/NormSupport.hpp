// What the normalisation layers (BatchNorm, GroupNorm, …) share: per-channel FLOAT parameters on
// the activations' first tile, and moving a tensor into the layer's tile window.
#pragma once

#include <string>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>

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

/// `t` as `type`: itself when it already is, else a cast appended to `prog`.
poplar::Tensor asType(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Type &type,
                      poplar::program::Sequence &prog, const std::string &name);

/// A norm's backward pass from its whitened activations: γ and β gradients into `gamma` and
/// `beta`, and dL/dx when `needInputGradient` (else an empty tensor). `paramGradients(graph,
/// whitened, gradOut, prog, partialsType, name)` and `inputGradients(graph, whitened, gradOut,
/// invStdDev, gamma, prog, partialsType, name)` are the library's batch- or group-norm functions.
template <class ParamGradients, class InputGradients>
poplar::Tensor normBackward(poplar::Graph &graph, const std::string &name,
                            const poplar::Tensor &whitened, const poplar::Tensor &invStdDev,
                            const poplar::Tensor &gradIn, Parameter &gamma, Parameter &beta,
                            bool needInputGradient, poplar::program::Sequence &prog,
                            ParamGradients paramGradients, InputGradients inputGradients) {
  const poplar::Tensor gradOut = inWindow(graph, gradIn, whitened, prog, name + "/gradIn");
  auto [gammaDelta, betaDelta] =
      paramGradients(graph, whitened, gradOut, prog, poplar::FLOAT, name);
  gamma.gradient = gammaDelta;
  beta.gradient = betaDelta;
  if (!needInputGradient)
    return {};
  return inputGradients(graph, whitened, gradOut, invStdDev,
                        asType(graph, gamma.value, gradOut.elementType(), prog, name + "/cast"),
                        prog, poplar::FLOAT, name + "/grad");
}

} // namespace tessera::apps::detail
