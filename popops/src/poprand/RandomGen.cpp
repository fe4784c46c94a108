#include <poprand/RandomGen.hpp>

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <poplar/Half.hpp>
#include <poputil/Describe.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "../TileRegions.hpp"
#include "SeedState.hpp"
#include "poprand/kernels/RandomReference.hpp"

namespace poprand {
namespace {

using poplar::Graph;
using poplar::Tensor;
using poplar::Type;
using poplar::program::Sequence;

/// The shortest text that reads back as x.
std::string number(double x) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, x);
  return std::string(text, result.ptr);
}

[[noreturn]] void fail(const char *function, const std::string &message) {
  throw poputil::poplibs_error(std::string("poprand::") + function + ": " + message);
}

void requireType(const char *function, const Type &t, std::initializer_list<Type> allowed) {
  for (const Type &a : allowed)
    if (t == a)
      return;
  std::string list;
  for (const Type &a : allowed)
    list += (list.empty() ? "" : ", ") + a.toString();
  fail(function, "type " + t.toString() + " is not supported (expected one of " + list + ")");
}

/// What one generator call needs besides its parameters.
struct GeneratorCall {
  const char *function;          ///< Public name, for errors.
  const char *vertexBase;        ///< "poprand::Uniform", …
  const Tensor *seed;            ///< nullptr: the graph's seed state.
  std::uint32_t seedModifier;    ///< Into every element's counter.
  const Tensor *input = nullptr; ///< dropout's input, connected as "in".
  std::function<void(poplar::VertexRef)> setParameters;
};

/// Adds one compute set generating a tensor laid out like `reference`: one vertex per tile, given
/// the tile's regions of the output, their runs' lengths and each run's first row-major index.
Tensor generate(Graph &graph, const GeneratorCall &call, const Tensor &reference,
                const Type &outType, Sequence &prog, const poplar::DebugContext &debugContext) {
  if (call.seed)
    detail::checkSeedTensor(*call.seed, call.function, "seed");
  graph.getTileMapping(reference); // throws invalid_tile_mapping naming an unmapped reference
  const Tensor seed = call.seed ? *call.seed : detail::seedState(graph);
  Tensor out = graph.clone(outType, reference, {debugContext, "out"});
  const Tensor flatOut = out.flatten();
  const Tensor flatIn = call.input ? call.input->flatten() : Tensor();
  const std::string vertexType = poputil::templateVertex(call.vertexBase, outType);
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, call.function});
  // Per tile, the runs of the output grouped as they lie back to back in tile memory: one region
  // per group, however many runs (a table laid out column block by column block has one per
  // row), and each run's length and first row-major index.
  const auto groups = popops::detail::memoryOrderedRunsPerTile(graph, out);
  for (unsigned tile = 0; tile < groups.size(); ++tile) {
    if (groups[tile].empty())
      continue;
    const std::vector<Tensor> outs = flatOut.slices(groups[tile]);
    std::vector<unsigned> lengths;
    std::vector<unsigned long long> firstIndices;
    for (const auto &group : groups[tile])
      for (const auto &run : group) {
        lengths.push_back(static_cast<unsigned>(run.size()));
        firstIndices.push_back(run.begin());
      }
    auto v = graph.addVertex(cs, vertexType, {{"out", outs}, {"seed", seed}});
    if (call.input)
      graph.connect(v["in"], flatIn.slices(groups[tile]));
    graph.setInitialValue<unsigned>(v["runLength"], lengths);
    graph.setInitialValue<unsigned long long>(v["baseIndex"], firstIndices);
    // PopLibs ignores the modifier of seedless calls; so do we.
    graph.setInitialValue(v["seedModifier"], call.seed ? call.seedModifier : 0u);
    call.setParameters(v);
    graph.setTileMapping(v, tile);
  }
  prog.add(poplar::program::Execute(cs, {debugContext, call.function}));
  if (!call.seed) {
    // Seedless calls advance the graph's seed state, so the next one draws new numbers.
    poplar::ComputeSet advance = graph.addComputeSet({debugContext, "advanceSeedState"});
    auto v = graph.addVertex(advance, "poprand::AdvanceSeedState", {{"state", seed}});
    graph.setTileMapping(v, 0); // where the seed state lives
    prog.add(poplar::program::Execute(advance, {debugContext, "advanceSeedState"}));
  }
  return out;
}

void requireFinite(const char *function, const char *what, double x) {
  if (!std::isfinite(x))
    fail(function, std::string(what) + " must be finite (got " + number(x) + ")");
}

} // namespace

Tensor uniform(Graph &graph, const Tensor *seed, uint32_t seedModifier, const Tensor &reference,
               const Type &outType, double minVal, double maxVal, Sequence &prog,
               const poplar::DebugContext &debugContext) {
  const char *fn = "uniform";
  requireType(fn, outType, {poplar::FLOAT, poplar::HALF, poplar::INT});
  requireFinite(fn, "minVal", minVal);
  requireFinite(fn, "maxVal", maxVal);
  if (minVal > maxVal)
    fail(fn, "minVal (" + number(minVal) + ") is greater than maxVal (" + number(maxVal) + ")");
  GeneratorCall call{fn, "poprand::Uniform", seed, seedModifier, nullptr, {}};
  if (outType == poplar::INT) {
    constexpr double lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
    if (minVal != std::floor(minVal) || maxVal != std::floor(maxVal) || minVal < lo || maxVal > hi)
      fail(fn, "for INT output minVal (" + number(minVal) + ") and maxVal (" + number(maxVal) +
                   ") must be integers in the int range");
    const int min = static_cast<int>(minVal);
    const auto range = static_cast<unsigned long long>(static_cast<long long>(maxVal) -
                                                       static_cast<long long>(minVal) + 1);
    call.setParameters = [&graph, min, range](poplar::VertexRef v) {
      graph.setInitialValue(v["minVal"], min);
      graph.setInitialValue(v["range"], range);
    };
  } else {
    const float min = static_cast<float>(minVal), range = static_cast<float>(maxVal - minVal);
    call.setParameters = [&graph, min, range](poplar::VertexRef v) {
      graph.setInitialValue(v["minVal"], min);
      graph.setInitialValue(v["range"], range);
    };
  }
  return generate(graph, call, reference, outType, prog, {debugContext, "uniform"});
}

namespace {

/// [lower, upper]: [minVal, maxVal] squeezed inward to values `type` represents.
std::pair<float, float> representableBounds(const Type &type, double minVal, double maxVal) {
  if (type == poplar::INT)
    return {static_cast<float>(std::ceil(minVal)), static_cast<float>(std::floor(maxVal))};
  float lo = static_cast<float>(minVal), hi = static_cast<float>(maxVal);
  if (lo < minVal)
    lo = std::nextafter(lo, std::numeric_limits<float>::infinity());
  if (hi > maxVal)
    hi = std::nextafter(hi, 0.0f);
  if (type == poplar::HALF) { // positive values: the next half up is the next bit pattern
    poplar::half l(lo), h(hi);
    if (static_cast<float>(l) < lo)
      l = poplar::half::fromBits(static_cast<std::uint16_t>(l.bits + 1));
    if (static_cast<float>(h) > hi)
      h = poplar::half::fromBits(static_cast<std::uint16_t>(h.bits - 1));
    return {static_cast<float>(l), static_cast<float>(h)};
  }
  return {lo, hi};
}

} // namespace

Tensor logUniform(Graph &graph, const Tensor *seed, uint32_t seedModifier, const Tensor &reference,
                  const Type &outType, double minVal, double maxVal, Sequence &prog, double base,
                  const poplar::DebugContext &debugContext) {
  const char *fn = "logUniform";
  requireType(fn, outType, {poplar::FLOAT, poplar::HALF, poplar::INT});
  requireFinite(fn, "maxVal", maxVal);
  if (!(minVal >= 1.0))
    fail(fn, "minVal (" + number(minVal) + ") must be at least 1");
  if (!(maxVal > minVal))
    fail(fn,
         "maxVal (" + number(maxVal) + ") must be greater than minVal (" + number(minVal) + ")");
  if (!(base > 0.0) || base == 1.0 || !std::isfinite(base))
    fail(fn, "base (" + number(base) + ") must be positive, finite and not 1");
  if (outType == poplar::INT && maxVal > std::numeric_limits<int>::max())
    fail(fn, "maxVal (" + number(maxVal) + ") is beyond the int range");
  const auto [lower, upper] = representableBounds(outType, minVal, maxVal);
  if (lower > upper)
    fail(fn, "no " + outType.toString() + " value lies in [" + number(minVal) + ", " +
                 number(maxVal) + "]");
  const float minLog = static_cast<float>(std::log(minVal));
  const float rangeLog = static_cast<float>(std::log(maxVal) - std::log(minVal));
  GeneratorCall call{fn,
                     "poprand::LogUniform",
                     seed,
                     seedModifier,
                     nullptr,
                     [&graph, minLog, rangeLog, lower, upper](poplar::VertexRef v) {
                       graph.setInitialValue(v["minLog"], minLog);
                       graph.setInitialValue(v["rangeLog"], rangeLog);
                       graph.setInitialValue(v["lower"], lower);
                       graph.setInitialValue(v["upper"], upper);
                     }};
  return generate(graph, call, reference, outType, prog, {debugContext, "logUniform"});
}

Tensor bernoulli(Graph &graph, const Tensor *seed, uint32_t seedModifier, const Tensor &reference,
                 const Type &outType, double prob, Sequence &prog,
                 const poplar::DebugContext &debugContext) {
  const char *fn = "bernoulli";
  requireType(fn, outType, {poplar::FLOAT, poplar::HALF, poplar::INT});
  if (!(prob >= 0.0 && prob <= 1.0))
    fail(fn, "prob (" + number(prob) + ") must be in [0, 1]");
  const auto threshold = tessera::codelets::poprand::probabilityThreshold(prob);
  GeneratorCall call{fn,
                     "poprand::Bernoulli",
                     seed,
                     seedModifier,
                     nullptr,
                     [&graph, threshold](poplar::VertexRef v) {
                       graph.setInitialValue(v["threshold"], threshold);
                     }};
  return generate(graph, call, reference, outType, prog, {debugContext, "bernoulli"});
}

Tensor normal(Graph &graph, const Tensor *seed, uint32_t seedModifier, const Tensor &reference,
              const Type &outType, double mean, double stdDev, Sequence &prog,
              const poplar::DebugContext &debugContext) {
  const char *fn = "normal";
  requireType(fn, outType, {poplar::FLOAT, poplar::HALF});
  requireFinite(fn, "mean", mean);
  requireFinite(fn, "stdDev", stdDev);
  if (stdDev < 0.0)
    fail(fn, "stdDev (" + number(stdDev) + ") must not be negative");
  const float m = static_cast<float>(mean), s = static_cast<float>(stdDev);
  GeneratorCall call{
      fn, "poprand::Normal", seed, seedModifier, nullptr, [&graph, m, s](poplar::VertexRef v) {
        graph.setInitialValue(v["mean"], m);
        graph.setInitialValue(v["stdDev"], s);
      }};
  return generate(graph, call, reference, outType, prog, {debugContext, "normal"});
}

Tensor truncatedNormal(Graph &graph, const Tensor *seed, uint32_t seedModifier,
                       const Tensor &reference, const Type &outType, double mean, double stdDev,
                       double alpha, Sequence &prog, const poplar::DebugContext &debugContext) {
  const char *fn = "truncatedNormal";
  requireType(fn, outType, {poplar::FLOAT, poplar::HALF});
  requireFinite(fn, "mean", mean);
  requireFinite(fn, "stdDev", stdDev);
  if (stdDev < 0.0)
    fail(fn, "stdDev (" + number(stdDev) + ") must not be negative");
  if (!(alpha > 0.0) || !std::isfinite(alpha))
    fail(fn, "alpha (" + number(alpha) + ") must be positive and finite");
  const float m = static_cast<float>(mean), s = static_cast<float>(stdDev);
  const float a = static_cast<float>(alpha);
  GeneratorCall call{fn,
                     "poprand::TruncatedNormal",
                     seed,
                     seedModifier,
                     nullptr,
                     [&graph, m, s, a](poplar::VertexRef v) {
                       graph.setInitialValue(v["mean"], m);
                       graph.setInitialValue(v["stdDev"], s);
                       graph.setInitialValue(v["alpha"], a);
                     }};
  return generate(graph, call, reference, outType, prog, {debugContext, "truncatedNormal"});
}

Tensor dropout(Graph &graph, const Tensor *seed, uint32_t seedModifier, const Tensor &input,
               const Tensor &reference, double keepProbability, double scale, bool outputClonesRef,
               Sequence &prog, const poplar::DebugContext &debugContext) {
  const char *fn = "dropout";
  requireType(fn, input.elementType(), {poplar::FLOAT, poplar::HALF});
  if (input.shape() != reference.shape())
    fail(fn, "input " + poputil::describe(input) + " and reference " +
                 poputil::describe(reference) + " must have the same shape");
  if (!(keepProbability > 0.0 && keepProbability <= 1.0))
    fail(fn, "keepProbability (" + number(keepProbability) + ") must be in (0, 1]");
  requireFinite(fn, "scale", scale);
  const auto threshold = tessera::codelets::poprand::probabilityThreshold(keepProbability);
  const float s = static_cast<float>(scale);
  GeneratorCall call{fn,
                     "poprand::Dropout",
                     seed,
                     seedModifier,
                     &input,
                     [&graph, threshold, s](poplar::VertexRef v) {
                       graph.setInitialValue(v["threshold"], threshold);
                       graph.setInitialValue(v["scale"], s);
                     }};
  return generate(graph, call, outputClonesRef ? reference : input, input.elementType(), prog,
                  {debugContext, "dropout"});
}

Tensor dropout(Graph &graph, const Tensor *seed, uint32_t seedModifier, const Tensor &input,
               const Tensor &reference, double keepProbability, double scale, Sequence &prog,
               const poplar::DebugContext &debugContext) {
  return dropout(graph, seed, seedModifier, input, reference, keepProbability, scale, true, prog,
                 debugContext);
}

Tensor shapedDropout(Graph &graph, const Tensor *seed, uint32_t seedModifier, const Tensor &input,
                     const Tensor &reference, double keepProbability, double scale, Sequence &prog,
                     const poplar::DebugContext &debugContext) {
  const char *fn = "shapedDropout";
  requireType(fn, input.elementType(), {poplar::FLOAT, poplar::HALF});
  const auto &inShape = input.shape(), &refShape = reference.shape();
  bool broadcasts = refShape.size() <= inShape.size();
  for (std::size_t d = 0; broadcasts && d < refShape.size(); ++d) {
    const std::size_t r = refShape[refShape.size() - 1 - d], i = inShape[inShape.size() - 1 - d];
    broadcasts = r == i || r == 1;
  }
  if (!broadcasts)
    fail(fn, "reference " + poputil::describe(reference) + " does not broadcast to input " +
                 poputil::describe(input));
  if (!(keepProbability > 0.0 && keepProbability <= 1.0))
    fail(fn, "keepProbability (" + number(keepProbability) + ") must be in (0, 1]");
  requireFinite(fn, "scale", scale);
  const poplar::DebugContext dc{debugContext, "shapedDropout"};
  // The mask: dropout of ones over the reference (1 kept, 0 dropped).
  const Type type = input.elementType();
  Tensor one = type == poplar::HALF
                   ? graph.addConstantHalf(type, {1}, poplar::half(1.0f).bits, {dc, "one"})
                   : graph.addConstant<float>(type, {1}, 1.0f, {dc, "one"});
  graph.setTileMapping(one, 0);
  const Tensor ones =
      one.broadcast(static_cast<unsigned>(reference.numElements()), 0).reshape(refShape);
  Tensor mask =
      dropout(graph, seed, seedModifier, ones, reference, keepProbability, 1.0, prog, {dc, "mask"});
  // Broadcast it to the input's shape.
  std::vector<std::size_t> padded(inShape.size() - refShape.size(), 1);
  padded.insert(padded.end(), refShape.begin(), refShape.end());
  mask = mask.reshape(padded);
  for (unsigned d = 0; d < inShape.size(); ++d)
    if (padded[d] != inShape[d])
      mask = mask.broadcast(static_cast<unsigned>(inShape[d]), d);
  // Apply it where the input lives.
  Tensor out = graph.clone(input, {dc, "out"});
  const Tensor flatOut = out.flatten(), flatIn = input.flatten(), flatMask = mask.flatten();
  poplar::ComputeSet cs = graph.addComputeSet({dc, "applyMask"});
  const auto runs = popops::detail::contiguousRunsPerTile(graph, out);
  const std::string vertexType = poputil::templateVertex("poprand::ApplyMask", type);
  for (unsigned tile = 0; tile < runs.size(); ++tile) {
    if (runs[tile].empty())
      continue;
    std::vector<Tensor> ins, masks, outs;
    for (const auto &run : runs[tile]) {
      ins.push_back(flatIn.slice(run));
      masks.push_back(flatMask.slice(run));
      outs.push_back(flatOut.slice(run));
    }
    auto v = graph.addVertex(cs, vertexType, {{"in", ins}, {"mask", masks}, {"out", outs}});
    graph.setInitialValue(v["scale"], static_cast<float>(scale));
    graph.setTileMapping(v, tile);
  }
  prog.add(poplar::program::Execute(cs, {dc, "applyMask"}));
  return out;
}

void setSeed(Graph &graph, const Tensor &masterSeed, uint32_t seedModifier, Sequence &prog,
             const poplar::DebugContext &debugContext) {
  detail::checkSeedTensor(masterSeed, "setSeed", "masterSeed");
  const Tensor state = detail::seedState(graph);
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "setSeed"});
  auto v =
      graph.addVertex(cs, "poprand::SetSeedState", {{"masterSeed", masterSeed}, {"state", state}});
  graph.setInitialValue(v["seedModifier"], static_cast<unsigned>(seedModifier));
  graph.setTileMapping(v, 0);
  prog.add(poplar::program::Execute(cs, {debugContext, "setSeed"}));
}

} // namespace poprand
