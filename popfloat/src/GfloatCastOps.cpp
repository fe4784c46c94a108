// GfloatCast's graph operations: the params tensor, and the casts planned over tiles — one
// vertex per tile holding the input's regions on that tile, each region with its first
// row-major index (the counter of stochastic rounding's noise).
#include <popfloat/experimental/CastToGfloat.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <poputil/Describe.hpp>
#include <poputil/VertexTemplates.hpp>

namespace popfloat {
namespace experimental {

namespace {

using poplar::Tensor;
using poplar::program::Sequence;

constexpr std::size_t kParamCount = 4;
/// The graph's poprand seed state (poprand/RandomGen.hpp): found by its reserved debug name,
/// created with poprand's default seed when no poprand call made it yet.
constexpr const char *kSeedStateName = "poprand/seedState";

[[noreturn]] void fail(const std::string &where, const std::string &what) {
  throw poputil::poplibs_error("popfloat::experimental::GfloatCast::" + where + ": " + what);
}

Tensor seedState(poplar::Graph &graph) {
  for (unsigned id = 0;; ++id) {
    poplar::VariableRef ref;
    ref.id = id;
    std::string name;
    try {
      name = graph.getDebugStr(ref);
    } catch (const poplar::index_error &) {
      break;
    }
    if (name == kSeedStateName)
      return graph.getVariable(ref);
  }
  Tensor state = graph.addVariable(poplar::UNSIGNED_INT, {2}, kSeedStateName);
  graph.setTileMapping(state, 0);
  const std::vector<unsigned> defaultSeed{0xAA99330Fu, 0xCC55E1B4u};
  graph.setInitialValue<unsigned>(state, defaultSeed);
  return state;
}

void checkCalculationType(const char *where, poplar::Type calculationType) {
  if (calculationType != poplar::FLOAT && calculationType != poplar::HALF)
    fail(where, "calculationType " + calculationType.toString() + " must be FLOAT or HALF");
}

void checkParam(const char *where, const Tensor &param) {
  if (param.elementType() != poplar::INT || param.numElements() != kParamCount)
    fail(where, "param " + poputil::describe(param) +
                    " must be the INT params tensor of 4 elements createCastOpParamsTensor makes");
}

bool isNative(const poplar::Type &t) { return t == poplar::FLOAT || t == poplar::HALF; }

/// Per tile with elements of `t`: its intervals of t's flattened elements.
std::vector<std::vector<poplar::Interval>> tileIntervals(poplar::Graph &graph, const Tensor &t) {
  return graph.getTileMapping(t); // throws naming an incompletely mapped tensor
}

/// Adds the native-to-gfloat vertices for `in` (-> `out`, or in place when out is null) to cs.
void addCastVertices(poplar::Graph &graph, const Tensor &in, const Tensor *out, const Tensor &param,
                     const poplar::ComputeSet &cs, const GfloatCast::CastConfig &cfg) {
  const RoundType mode = cfg.getRoundMode();
  const bool stochastic = mode == RoundType::SR || mode == RoundType::SX;
  const Tensor seed = stochastic ? seedState(graph) : Tensor();
  const std::string vertexType =
      out ? poputil::templateVertex("popfloat::experimental::CastToGfloat", in.elementType(),
                                    out->elementType(), mode)
          : poputil::templateVertex("popfloat::experimental::CastToGfloatInPlace", in.elementType(),
                                    mode);
  const Tensor flatIn = in.flatten();
  const Tensor flatOut = out ? out->flatten() : Tensor();
  const auto mapping = tileIntervals(graph, flatIn);
  const SRDensityType density = cfg.getSRNoiseDensity();
  const unsigned long long roundDownThreshold = [&] {
    const double scaled = std::nearbyint(double(cfg.getBernoulliProbability()) * 4294967296.0);
    return scaled <= 0.0 ? 0ull : static_cast<unsigned long long>(scaled);
  }();
  for (unsigned tile = 0; tile < mapping.size(); ++tile) {
    if (mapping[tile].empty())
      continue;
    std::vector<unsigned long long> firstIndices;
    for (const auto &interval : mapping[tile])
      firstIndices.push_back(interval.begin());
    auto v = graph.addVertex(cs, vertexType, {{"param", param}});
    if (out) {
      graph.connect(v["in"], flatIn.slices(mapping[tile]));
      graph.connect(v["out"], flatOut.slices(mapping[tile]));
    } else {
      graph.connect(v["inOut"], flatIn.slices(mapping[tile]));
    }
    if (stochastic)
      graph.connect(v["seed"], seed);
    graph.setInitialValue<unsigned long long>(v["baseIndex"], firstIndices);
    graph.setInitialValue(v["enableNanoo"], cfg.isNanooModeEnabled() ? 1u : 0u);
    graph.setInitialValue(v["numSRBits"], cfg.getNumSRBits());
    graph.setInitialValue(v["srDensity"], static_cast<unsigned>(density));
    graph.setInitialValue(v["srNoiseMin"], cfg.getSRNoiseMin());
    graph.setInitialValue(v["srNoiseMax"], cfg.getSRNoiseMax());
    graph.setInitialValue(v["srNoiseOffset"], cfg.getSRNoiseOffset());
    graph.setInitialValue(v["srNoiseScale"], cfg.getSRNoiseScale());
    graph.setInitialValue(v["roundDownThreshold"], roundDownThreshold);
    graph.setTileMapping(v, tile);
  }
}

void checkNativeToGfloat(const char *where, const Tensor &input, const Tensor &param,
                         const GfloatCast::CastConfig &cfg) {
  if (!isNative(input.elementType()))
    fail(where, "input " + poputil::describe(input) + " must be FLOAT or HALF");
  checkParam(where, param);
  if (cfg.getRoundMode() == RoundType::INV)
    fail(where, "gfCastCfg has no rounding mode (roundMode INV): make it with "
                "CastConfig::createCastNativeToGF");
  const poplar::Type s = cfg.getStorageType();
  if (!isNative(s) && s != poplar::CHAR && s != poplar::SHORT)
    fail(where, "gfCastCfg's storage type " + s.toString() + " must be FLOAT, HALF, CHAR or SHORT");
}

Tensor nativeToGfloat(poplar::Graph &graph, const Tensor &input, const Tensor &param,
                      const poplar::ComputeSet &cs, const GfloatCast::CastConfig &cfg,
                      const poplar::DebugContext &dc) {
  checkNativeToGfloat("castNativeToGfloat", input, param, cfg);
  Tensor out = graph.clone(cfg.getStorageType(), input, {dc, "gfloat"});
  addCastVertices(graph, input, &out, param, cs, cfg);
  return out;
}

void nativeToGfloatInPlace(poplar::Graph &graph, const Tensor &input, const Tensor &param,
                           const poplar::ComputeSet &cs, const GfloatCast::CastConfig &cfg) {
  checkNativeToGfloat("castNativeToGfloatInPlace", input, param, cfg);
  if (!cfg.inPlaceOp(input.elementType()))
    fail("castNativeToGfloatInPlace", "input " + poputil::describe(input) +
                                          " must be of the cast's storage type " +
                                          cfg.getStorageType().toString() + " to be cast in place");
  addCastVertices(graph, input, nullptr, param, cs, cfg);
}

Tensor gfloatToNative(poplar::Graph &graph, const Tensor &input, const Tensor &param,
                      const poplar::ComputeSet &cs, const GfloatCast::CastConfig &cfg,
                      const poplar::DebugContext &dc) {
  const char *where = "castGfloatToNative";
  const poplar::Type inType = input.elementType();
  if (!isNative(inType) && inType != poplar::CHAR && inType != poplar::SHORT)
    fail(where, "input " + poputil::describe(input) +
                    " must be CHAR or SHORT codes, or FLOAT or HALF values");
  checkParam(where, param);
  const poplar::Type outType = cfg.getStorageType();
  if (!isNative(outType))
    fail(where, "gfCastCfg's storage type " + outType.toString() +
                    " must be FLOAT or HALF: make it with CastConfig::createCastGFToNative");
  Tensor out = graph.clone(outType, input, {dc, "native"});
  const std::string vertexType =
      poputil::templateVertex("popfloat::experimental::CastGfloatToNative", inType, outType);
  const Tensor flatIn = input.flatten(), flatOut = out.flatten();
  const auto mapping = tileIntervals(graph, flatIn);
  for (unsigned tile = 0; tile < mapping.size(); ++tile) {
    if (mapping[tile].empty())
      continue;
    auto v = graph.addVertex(cs, vertexType,
                             {{"in", flatIn.slices(mapping[tile])},
                              {"out", flatOut.slices(mapping[tile])},
                              {"param", param}});
    graph.setTileMapping(v, tile);
  }
  return out;
}

Tensor paramsTensor(poplar::Graph &graph, const poplar::ComputeSet &cs,
                    poplar::Type calculationType, const Tensor *packed, unsigned packedWord,
                    const poplar::DebugContext &dc) {
  const char *where = "createCastOpParamsTensor";
  checkCalculationType(where, calculationType);
  if (packed &&
      ((packed->elementType() != poplar::INT && packed->elementType() != poplar::UNSIGNED_INT) ||
       packed->numElements() != 1))
    fail(where, "gfPacked " + poputil::describe(*packed) +
                    " must hold one INT or UNSIGNED_INT (the packed format parameters)");
  Tensor param = graph.addVariable(poplar::INT, {kParamCount}, {dc, "gfloatParams"});
  graph.setTileMapping(param, 0);
  poplar::VertexRef v;
  if (packed) {
    v = graph.addVertex(
        cs,
        poputil::templateVertex("popfloat::experimental::CastToGfloatParamsFromTensor",
                                packed->elementType()),
        {{"gfPacked", packed->flatten()}, {"param", param}});
  } else {
    v = graph.addVertex(cs, "popfloat::experimental::CastToGfloatParams", {{"param", param}});
    graph.setInitialValue(v["gfPacked"], packedWord);
  }
  graph.setTileMapping(v, 0);
  return param;
}

} // namespace

// ---- params tensors ----------------------------------------------------------------------------

Tensor GfloatCast::createCastOpParamsTensor(poplar::Graph &graph, const poplar::ComputeSet &cs,
                                            poplar::Type calculationType, const unsigned gfPacked,
                                            const poplar::DebugContext &debugContext) {
  return paramsTensor(graph, cs, calculationType, nullptr, gfPacked, debugContext);
}

Tensor GfloatCast::createCastOpParamsTensor(poplar::Graph &graph, const poplar::ComputeSet &cs,
                                            poplar::Type calculationType, Tensor gfPacked,
                                            const poplar::DebugContext &debugContext) {
  return paramsTensor(graph, cs, calculationType, &gfPacked, 0, debugContext);
}

Tensor GfloatCast::createCastOpParamsTensor(poplar::Graph &graph, Sequence &prog,
                                            poplar::Type calculationType, const unsigned gfStruct,
                                            const poplar::DebugContext &debugContext) {
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "gfloatParams"});
  Tensor param = paramsTensor(graph, cs, calculationType, nullptr, gfStruct, debugContext);
  prog.add(poplar::program::Execute(cs, {debugContext, "gfloatParams"}));
  return param;
}

Tensor GfloatCast::createCastOpParamsTensor(poplar::Graph &graph, Sequence &prog,
                                            poplar::Type calculationType, Tensor gfStruct,
                                            const poplar::DebugContext &debugContext) {
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "gfloatParams"});
  Tensor param = paramsTensor(graph, cs, calculationType, &gfStruct, 0, debugContext);
  prog.add(poplar::program::Execute(cs, {debugContext, "gfloatParams"}));
  return param;
}

void GfloatCast::createCastOpParamsTensor(poplar::Graph &graph, Sequence &prog,
                                          const poplar::DebugContext &debugContext) {
  gfParams.reset(new Tensor(createCastOpParamsTensor(
      graph, prog, getCalculationType(), formatCfg.getPackedFloatParameters(), debugContext)));
  castOpParamSet = true;
}

void GfloatCast::createCastOpParamsTensor(poplar::Graph &graph, const poplar::ComputeSet &cs) {
  gfParams.reset(new Tensor(createCastOpParamsTensor(graph, cs, getCalculationType(),
                                                     formatCfg.getPackedFloatParameters())));
  castOpParamSet = true;
}

// ---- native -> gfloat --------------------------------------------------------------------------

Tensor GfloatCast::castNativeToGfloat(poplar::Graph &graph, Tensor input, const Tensor &param,
                                      Sequence &prog, const CastConfig &gfCastCfg,
                                      const poplar::DebugContext &debugContext) {
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "castNativeToGfloat"});
  Tensor out = nativeToGfloat(graph, input, param, cs, gfCastCfg, debugContext);
  prog.add(poplar::program::Execute(cs, {debugContext, "castNativeToGfloat"}));
  return out;
}

Tensor GfloatCast::castNativeToGfloat(poplar::Graph &graph, Tensor input, const Tensor &param,
                                      const poplar::ComputeSet &cs, const CastConfig &gfCastCfg,
                                      const poplar::DebugContext &debugContext) {
  return nativeToGfloat(graph, input, param, cs, gfCastCfg, debugContext);
}

namespace {
void needParams(GfloatCast &cast, poplar::Graph &graph, Sequence &prog,
                const poplar::DebugContext &dc) {
  if (!cast.isCastOpParamSet())
    cast.createCastOpParamsTensor(graph, prog, dc);
}
} // namespace

Tensor GfloatCast::castNativeToGfloat(poplar::Graph &graph, Tensor input, Sequence &prog,
                                      const poplar::DebugContext &debugContext) {
  if (!gfParams)
    needParams(*this, graph, prog, debugContext);
  return castNativeToGfloat(graph, input, *gfParams, prog, nativeToGFCastCfg, debugContext);
}

void GfloatCast::castNativeToGfloatInPlace(poplar::Graph &graph, Tensor input, const Tensor &param,
                                           Sequence &prog, const CastConfig &gfCastCfg,
                                           const poplar::DebugContext &debugContext) {
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "castNativeToGfloatInPlace"});
  nativeToGfloatInPlace(graph, input, param, cs, gfCastCfg);
  prog.add(poplar::program::Execute(cs, {debugContext, "castNativeToGfloatInPlace"}));
}

void GfloatCast::castNativeToGfloatInPlace(poplar::Graph &graph, Tensor input, Sequence &prog,
                                           const poplar::DebugContext &debugContext) {
  if (!gfParams)
    needParams(*this, graph, prog, debugContext);
  castNativeToGfloatInPlace(graph, input, *gfParams, prog, nativeToGFCastCfg, debugContext);
}

void GfloatCast::castNativeToGfloatInPlace(poplar::Graph &graph, Tensor input, const Tensor &param,
                                           const poplar::ComputeSet &cs,
                                           const CastConfig &gfCastCfg,
                                           const poplar::DebugContext &) {
  nativeToGfloatInPlace(graph, input, param, cs, gfCastCfg);
}

void GfloatCast::castNativeToGfloatInPlace(poplar::Graph &graph, Tensor input,
                                           const poplar::ComputeSet &cs) {
  if (!gfParams)
    fail("castNativeToGfloatInPlace",
         "this cast has no params tensor yet: call createCastOpParamsTensor first");
  nativeToGfloatInPlace(graph, input, *gfParams, cs, nativeToGFCastCfg);
}

// ---- gfloat -> native --------------------------------------------------------------------------

Tensor GfloatCast::castGfloatToNative(poplar::Graph &graph, Tensor input, const Tensor &param,
                                      Sequence &prog, const CastConfig &gfCastCfg,
                                      const poplar::DebugContext &debugContext) {
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "castGfloatToNative"});
  Tensor out = gfloatToNative(graph, input, param, cs, gfCastCfg, debugContext);
  prog.add(poplar::program::Execute(cs, {debugContext, "castGfloatToNative"}));
  return out;
}

Tensor GfloatCast::castGfloatToNative(poplar::Graph &graph, Tensor input, Sequence &prog,
                                      const poplar::DebugContext &debugContext) {
  if (!gfParams)
    needParams(*this, graph, prog, debugContext);
  return castGfloatToNative(graph, input, *gfParams, prog, gfToNativeCastCfg, debugContext);
}

Tensor GfloatCast::castGfloatToNative(poplar::Graph &graph, Tensor input, const Tensor &param,
                                      const poplar::ComputeSet &cs, const CastConfig &gfCastCfg,
                                      const poplar::DebugContext &debugContext) {
  return gfloatToNative(graph, input, param, cs, gfCastCfg, debugContext);
}

Tensor GfloatCast::castGfloatToNative(poplar::Graph &graph, Tensor input,
                                      const poplar::ComputeSet &cs) {
  if (!gfParams)
    fail("castGfloatToNative",
         "this cast has no params tensor yet: call createCastOpParamsTensor first");
  return gfloatToNative(graph, input, *gfParams, cs, gfToNativeCastCfg, {});
}

} // namespace experimental
} // namespace popfloat
