#include <tessera/apps/Optimiser.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Zero.hpp>

#include <sstream>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {
namespace pe = popops::expr;

namespace {

/// FLOAT [1] on tile 0 with host handle "learningRate" (write and read).
poplar::Tensor learningRateVariable(BuildContext &ctx) {
  poplar::Tensor lr = ctx.graph.addVariable(poplar::FLOAT, {1}, "learningRate");
  ctx.graph.setTileMapping(lr, 0);
  ctx.graph.createHostWrite("learningRate", lr);
  ctx.graph.createHostRead("learningRate", lr);
  return lr;
}

/// A FLOAT state tensor laid out like `p`'s value, filled with `init` at initialisation.
poplar::Tensor stateLike(BuildContext &ctx, const Parameter &p, const std::string &suffix,
                         float init) {
  poplar::Graph &g = ctx.graph;
  poplar::Tensor t = g.clone(poplar::FLOAT, p.value, p.name + suffix);
  if (init == 0.0f) {
    popops::zero(g, t, ctx.initialise, p.name + suffix + "Init");
  } else {
    poplar::Tensor value = g.addConstant(poplar::FLOAT, {1}, init, p.name + suffix + "Value");
    g.setTileMapping(value, 0);
    ctx.initialise.add(
        poplar::program::Copy(value.broadcast(t.numElements(), 0).reshape(t.shape()), t));
  }
  ctx.addState(p.name + suffix, t);
  return t;
}

void checkRmsPropOption(bool ok, const char *field, float value, const char *expected) {
  if (ok)
    return;
  std::ostringstream text;
  text << "RMSprop option " << field << " = " << value << " must be " << expected;
  throw app_error(text.str());
}

} // namespace

SgdOptimiser::SgdOptimiser(BuildContext &ctx, SgdOptions options)
    : options_(options), learningRate_(learningRateVariable(ctx)) {}

void SgdOptimiser::update(BuildContext &ctx, poplar::program::Sequence &prog) {
  poplar::Graph &g = ctx.graph;
  const bool create = velocities_.empty();
  std::size_t i = 0;
  for (const auto &p : ctx.parameters()) {
    if (!p->gradient.valid())
      throw app_error("parameter '" + p->name + "' has no gradient: build backward() first");
    if (create)
      velocities_.push_back(stateLike(ctx, *p, "/velocity", 0.0f));
    const poplar::Tensor &v = velocities_.at(i++);
    const float m = options_.momentum;
    const float wd = p->decay ? options_.weightDecay : 0.0f;
    // v ← m·v + (∇ + wd·w): _1 = v, _2 = ∇, _3 = w (fp32 arithmetic whatever w's type).
    const auto grad = [&](const pe::PlaceHolder &gradient, const pe::PlaceHolder &weight) {
      return pe::Cast(gradient, poplar::FLOAT) + pe::Const(wd) * pe::Cast(weight, poplar::FLOAT);
    };
    popops::mapInPlace(g, pe::Const(m) * pe::_1 + grad(pe::_2, pe::_3), {v, p->gradient, p->value},
                       prog, p->name + "/velocityUpdate");
    // w ← w − lr·v ({w, v, lr}), or w − lr·(∇ + wd·w + m·v) with Nesterov ({w, ∇, v, lr}).
    const poplar::Type type = p->value.elementType();
    if (options_.nesterov)
      popops::mapInPlace(g,
                         pe::Cast(pe::Cast(pe::_1, poplar::FLOAT) -
                                      pe::_4 * (grad(pe::_2, pe::_1) + pe::Const(m) * pe::_3),
                                  type),
                         {p->value, p->gradient, v, learningRate_}, prog,
                         p->name + "/weightUpdate");
    else
      popops::mapInPlace(g, pe::Cast(pe::Cast(pe::_1, poplar::FLOAT) - pe::_2 * pe::_3, type),
                         {p->value, v, learningRate_}, prog, p->name + "/weightUpdate");
  }
}

RmsPropOptimiser::RmsPropOptimiser(BuildContext &ctx, RmsPropOptions options) : options_(options) {
  checkRmsPropOption(options.decay >= 0 && options.decay < 1, "decay", options.decay, "in [0, 1)");
  checkRmsPropOption(options.momentum >= 0 && options.momentum < 1, "momentum", options.momentum,
                     "in [0, 1)");
  checkRmsPropOption(options.epsilon > 0, "epsilon", options.epsilon, "> 0");
  checkRmsPropOption(options.weightDecay >= 0, "weightDecay", options.weightDecay, ">= 0");
  checkRmsPropOption(options.initialMeanSquare >= 0, "initialMeanSquare", options.initialMeanSquare,
                     ">= 0");
  learningRate_ = learningRateVariable(ctx);
}

void RmsPropOptimiser::update(BuildContext &ctx, poplar::program::Sequence &prog) {
  poplar::Graph &g = ctx.graph;
  const bool create = meanSquares_.empty();
  const pe::Const rho(options_.decay), mu(options_.momentum), eps(options_.epsilon);
  std::size_t i = 0;
  for (const auto &p : ctx.parameters()) {
    if (!p->gradient.valid())
      throw app_error("parameter '" + p->name + "' has no gradient: build backward() first");
    if (create) {
      meanSquares_.push_back(stateLike(ctx, *p, "/rms", options_.initialMeanSquare));
      momenta_.push_back(stateLike(ctx, *p, "/momentum", 0.0f));
    }
    const poplar::Tensor &ms = meanSquares_.at(i), &mom = momenta_.at(i);
    ++i;
    const float wd = p->decay ? options_.weightDecay : 0.0f;
    // g = ∇ + wd·w in FLOAT, for placeholders ∇ and w.
    const auto grad = [&](const pe::PlaceHolder &gradient, const pe::PlaceHolder &weight) {
      return pe::Cast(gradient, poplar::FLOAT) + pe::Const(wd) * pe::Cast(weight, poplar::FLOAT);
    };
    // ms ← ρ·ms + (1 − ρ)·g²  ({ms, ∇, w})
    popops::mapInPlace(
        g, rho * pe::_1 + pe::Const(1 - options_.decay) * pe::Square(grad(pe::_2, pe::_3)),
        {ms, p->gradient, p->value}, prog, p->name + "/rmsUpdate");
    // mom ← μ·mom + lr·g / sqrt(ms + ε)  ({mom, ∇, w, ms, lr})
    popops::mapInPlace(g, mu * pe::_1 + pe::_5 * grad(pe::_2, pe::_3) / pe::Sqrt(pe::_4 + eps),
                       {mom, p->gradient, p->value, ms, learningRate_}, prog,
                       p->name + "/momentumUpdate");
    // w ← w − mom, rounded once to w's type.
    const poplar::Type type = p->value.elementType();
    popops::mapInPlace(g, pe::Cast(pe::Cast(pe::_1, poplar::FLOAT) - pe::_2, type), {p->value, mom},
                       prog, p->name + "/weightUpdate");
  }
}

} // namespace tessera::apps
