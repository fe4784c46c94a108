#include <tessera/apps/GradientAccumulator.hpp>

#include <popops/ElementWise.hpp>
#include <popops/Zero.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {
namespace pe = popops::expr;

GradientAccumulator::GradientAccumulator(BuildContext &ctx) : ctx_(ctx) {
  for (const auto &p : ctx.parameters())
    if (!p->gradient.valid())
      throw app_error("gradient accumulation: parameter '" + p->name +
                      "' has no gradient: build backward() before the accumulator");
  for (const auto &p : ctx.parameters()) {
    const std::string name = p->name + "/accumulated";
    poplar::Tensor acc = ctx.graph.clone(poplar::FLOAT, p->value, name);
    popops::zero(ctx.graph, acc, ctx.initialise, name + "Init");
    ctx.addState(name, acc);
    raw_.push_back(p->gradient);
    accumulated_.push_back(acc);
    p->gradient = acc;
  }
}

void GradientAccumulator::accumulate(poplar::program::Sequence &prog) const {
  for (std::size_t i = 0; i < raw_.size(); ++i)
    popops::mapInPlace(ctx_.graph, pe::_1 + pe::Cast(pe::_2, poplar::FLOAT),
                       {accumulated_[i], raw_[i]}, prog,
                       ctx_.parameters().at(i)->name + "/accumulate");
}

void GradientAccumulator::reset(poplar::program::Sequence &prog) const {
  for (std::size_t i = 0; i < accumulated_.size(); ++i)
    popops::zero(ctx_.graph, accumulated_[i], prog,
                 ctx_.parameters().at(i)->name + "/accumulatedReset");
}

} // namespace tessera::apps
