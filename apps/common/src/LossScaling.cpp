#include <tessera/apps/LossScaling.hpp>

#include <cfloat>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <popops/ElementWise.hpp>
#include <popops/Fill.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>

#include <tessera/apps/Errors.hpp>

namespace tessera::apps {
namespace pe = popops::expr;

namespace {

void checkOption(bool ok, const std::string &field, double value, const std::string &expected) {
  if (ok)
    return;
  std::ostringstream text;
  text << "loss scaling option " << field << " = " << value << " must be " << expected;
  throw app_error(text.str());
}

} // namespace

LossScaler::LossScaler(BuildContext &ctx, LossScalingOptions options)
    : ctx_(ctx), options_(options) {
  const LossScalingOptions &o = options_;
  checkOption(o.initialScale > 0 && std::isfinite(o.initialScale), "initialScale", o.initialScale,
              "finite and > 0");
  checkOption(o.accumulationSteps >= 1, "accumulationSteps", o.accumulationSteps, ">= 1");
  if (o.dynamic) {
    checkOption(o.growthInterval >= 1, "growthInterval", o.growthInterval, ">= 1");
    checkOption(o.minScale > 0 && o.minScale <= o.initialScale, "minScale", o.minScale,
                "in (0, initialScale]");
    checkOption(o.maxScale >= o.initialScale && std::isfinite(o.maxScale), "maxScale", o.maxScale,
                "finite and >= initialScale");
  }
  poplar::Graph &g = ctx.graph;
  auto scalar = [&](const std::string &name, bool state) {
    poplar::Tensor t = g.addVariable(poplar::FLOAT, {1}, name);
    g.setTileMapping(t, 0);
    if (state)
      ctx.addState(name, t);
    return t;
  };
  scale_ = scalar("lossScale", true);
  skippedSteps_ = scalar("skippedSteps", true);
  goodSteps_ = scalar("lossScale/goodSteps", true);
  gradientScale_ = scalar("lossScale/gradientScale", false);
  g.createHostRead("lossScale", scale_);
  g.createHostWrite("lossScale", scale_);
  g.createHostRead("skippedSteps", skippedSteps_);

  popops::fill(g, scale_, ctx.initialise, o.initialScale, "lossScale/init");
  popops::zero(g, skippedSteps_, ctx.initialise, "skippedSteps/init");
  popops::zero(g, goodSteps_, ctx.initialise, "lossScale/goodStepsInit");
  popops::fill(g, gradientScale_, ctx.initialise,
               1.0f / (o.initialScale * float(o.accumulationSteps)), "lossScale/gradientScaleInit");
}

poplar::Tensor LossScaler::allGradientsFinite(poplar::program::Sequence &prog) const {
  poplar::Graph &g = ctx_.graph;
  // One map per gradient type over all that type's gradients: |g| <= FLT_MAX in FLOAT is
  // false exactly for ±inf and NaN (HALF is widened first, so its inf stays inf).
  std::map<std::string, std::vector<poplar::Tensor>> byType;
  for (const auto &p : ctx_.parameters()) {
    if (!p->gradient.valid())
      throw app_error("loss scaling: parameter '" + p->name +
                      "' has no gradient: build backward() first");
    byType[p->gradient.elementType().toString()].push_back(p->gradient.flatten());
  }
  if (byType.empty()) {
    poplar::Tensor yes = g.addConstant(poplar::BOOL, {1}, true, "lossScale/noGradients");
    g.setTileMapping(yes, 0);
    return yes;
  }
  std::vector<poplar::Tensor> finite;
  for (const auto &[type, gradients] : byType)
    finite.push_back(popops::map(g, pe::Abs(pe::Cast(pe::_1, poplar::FLOAT)) <= pe::Const(FLT_MAX),
                                 {poplar::concat(gradients)}, prog, "lossScale/finite" + type));
  return popops::reduce(g, poplar::concat(finite), poplar::BOOL, {0},
                        popops::Operation::LOGICAL_AND, prog, "lossScale/allFinite");
}

void LossScaler::guardedUpdate(poplar::program::Sequence &prog,
                               const poplar::program::Sequence &update) {
  poplar::Graph &g = ctx_.graph;
  const LossScalingOptions &o = options_;
  popops::mapWithOutput(g, pe::Const(1.0f / float(o.accumulationSteps)) / pe::_1, {scale_},
                        gradientScale_, prog, "lossScale/gradientScale");
  if (!o.dynamic) {
    prog.add(update);
    return;
  }
  const poplar::Tensor finite = allGradientsFinite(prog);

  // Good step: update, count it, double the scale after growthInterval of them.
  poplar::program::Sequence good;
  good.add(update);
  const pe::Const interval(float(o.growthInterval));
  popops::mapInPlace(g, pe::_1 + pe::Const(1.0f), {goodSteps_}, good, "lossScale/countGood");
  popops::mapInPlace(g,
                     pe::Select(pe::Min(pe::_1 * pe::Const(2.0f), pe::Const(o.maxScale)), pe::_1,
                                pe::_2 >= interval),
                     {scale_, goodSteps_}, good, "lossScale/grow");
  popops::mapInPlace(g, pe::Select(pe::Const(0.0f), pe::_1, pe::_1 >= interval), {goodSteps_}, good,
                     "lossScale/restartGood");

  // Overflow: skip the update, halve the scale, count the skip.
  poplar::program::Sequence skip;
  popops::mapInPlace(g, pe::Max(pe::_1 * pe::Const(0.5f), pe::Const(o.minScale)), {scale_}, skip,
                     "lossScale/backOff");
  popops::mapInPlace(g, pe::_1 + pe::Const(1.0f), {skippedSteps_}, skip, "lossScale/countSkip");
  popops::zero(g, goodSteps_, skip, "lossScale/goodStepsReset");

  prog.add(poplar::program::If(finite, good, skip, "lossScale/guard"));
}

} // namespace tessera::apps
