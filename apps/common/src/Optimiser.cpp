#include <tessera/apps/Optimiser.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Zero.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {
namespace pe = popops::expr;

SgdOptimiser::SgdOptimiser(BuildContext &ctx, SgdOptions options) : options_(options) {
  learningRate_ = ctx.graph.addVariable(poplar::FLOAT, {1}, "learningRate");
  ctx.graph.setTileMapping(learningRate_, 0);
  ctx.graph.createHostWrite("learningRate", learningRate_);
  ctx.graph.createHostRead("learningRate", learningRate_);
}

void SgdOptimiser::update(BuildContext &ctx, poplar::program::Sequence &prog) {
  poplar::Graph &g = ctx.graph;
  const bool create = velocities_.empty();
  std::size_t i = 0;
  for (const auto &p : ctx.parameters()) {
    if (!p->gradient.valid())
      throw app_error("parameter '" + p->name + "' has no gradient: build backward() first");
    if (create) {
      poplar::Tensor v = g.clone(poplar::FLOAT, p->value, p->name + "/velocity");
      popops::zero(g, v, ctx.initialise, p->name + "/velocityInit");
      ctx.addState(p->name + "/velocity", v);
      velocities_.push_back(v);
    }
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

} // namespace tessera::apps
