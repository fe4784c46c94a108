// popnn::pooling: non-overlapping windows as one reduction over a reshaped view; other 1-D and
// 2-D windows as one popnn::PoolPlanes / PoolGradPlanes vertex per tile over whole (sample,
// channel) planes; 3-D windows as one in-place map per kernel offset over strided views. Padding
// is handled by clipping each offset's range of outputs, so no padded copy is ever made.
#include <popnn/Pooling.hpp>

#include <limits>
#include <ostream>

#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/VertexTemplates.hpp>

#include "NnChecks.hpp"

namespace popnn::pooling {
namespace {

using namespace popops::expr;
using poplar::Tensor;

std::size_t product(const std::vector<std::size_t> &v) {
  std::size_t p = 1;
  for (auto x : v)
    p *= x;
  return p;
}

void checkParams(const std::string &fn, const PoolParams &p) {
  const std::size_t d = p.inputFieldShape.size();
  auto bad = [&](const std::string &what) {
    throw poputil::poplibs_error(detail::cat(fn, ": bad PoolParams: ", what));
  };
  if (d < 1 || d > 3)
    bad(detail::cat("inputFieldShape has ", d, " dimensions (1, 2 or 3 supported)"));
  if (p.kernelShape.size() != d || p.stride.size() != d ||
      p.inputTruncationOrPaddingLower.size() != d || p.inputTruncationOrPaddingUpper.size() != d)
    bad(detail::cat("kernelShape, stride and padding must each have ", d, " entries"));
  if (p.dType != poplar::FLOAT && p.dType != poplar::HALF)
    bad(detail::cat("dType must be FLOAT or HALF, not ", p.dType.toString()));
  for (std::size_t i = 0; i < d; ++i) {
    if (p.kernelShape[i] == 0)
      bad(detail::cat("kernelShape[", i, "] is 0"));
    if (p.stride[i] == 0)
      bad(detail::cat("stride[", i, "] is 0"));
    const long padded = static_cast<long>(p.inputFieldShape[i]) +
                        p.inputTruncationOrPaddingLower[i] + p.inputTruncationOrPaddingUpper[i];
    if (padded < static_cast<long>(p.kernelShape[i]))
      bad(detail::cat("kernelShape[", i, "] = ", p.kernelShape[i],
                      " exceeds the padded field size ", padded));
  }
}

std::vector<std::size_t> fullShape(const PoolParams &p, const std::vector<std::size_t> &field) {
  std::vector<std::size_t> s{p.batchSize, p.numChannels};
  s.insert(s.end(), field.begin(), field.end());
  return s;
}

void checkTensor(const std::string &fn, const std::string &name, const Tensor &t,
                 const PoolParams &p, const std::vector<std::size_t> &field) {
  detail::requireShape(fn, name, t, fullShape(p, field));
  detail::requireSameType(fn, name, t, p.dType);
}

/// True when every input element is in exactly one window: no padding and either windows that
/// tile the field (stride == kernel dividing it) or one window covering it (global pooling).
bool nonOverlapping(const PoolParams &p) {
  for (std::size_t i = 0; i < p.getNumFieldDims(); ++i) {
    if (p.inputTruncationOrPaddingLower[i] != 0 || p.inputTruncationOrPaddingUpper[i] != 0)
      return false;
    const bool tiles =
        p.stride[i] == p.kernelShape[i] && p.inputFieldShape[i] % p.kernelShape[i] == 0;
    if (!tiles && p.kernelShape[i] != p.inputFieldShape[i])
      return false;
  }
  return true;
}

/// Sets every element of `t` to `value` (popops::fill does not take HALF yet).
void setAll(poplar::Graph &graph, const Tensor &t, double value, poplar::program::Sequence &prog,
            const poplar::DebugContext &dc) {
  popops::mapInPlace(graph, Select(Const(t.elementType(), value), _1, Const(true)), {t}, prog, dc);
}

/// [B][C][O1][K1][O2][K2]… view of a [B][C][F1][F2]… tensor (non-overlapping windows).
Tensor windowsView(const Tensor &t, const PoolParams &p) {
  std::vector<std::size_t> s{p.batchSize, p.numChannels};
  for (std::size_t i = 0; i < p.getNumFieldDims(); ++i) {
    s.push_back(p.inputFieldShape[i] / p.kernelShape[i]);
    s.push_back(p.kernelShape[i]);
  }
  return t.reshape(s);
}

std::vector<std::size_t> kernelDims(const PoolParams &p) {
  std::vector<std::size_t> dims;
  for (std::size_t i = 0; i < p.getNumFieldDims(); ++i)
    dims.push_back(3 + 2 * i);
  return dims;
}

/// A [B][C][O1][O2]… tensor viewed as [B][C][O1][1][O2][1]… and broadcast over the windows.
Tensor expandToWindows(const Tensor &t, const PoolParams &p) {
  std::vector<std::size_t> s{p.batchSize, p.numChannels};
  for (std::size_t i = 0; i < p.getNumFieldDims(); ++i) {
    s.push_back(p.inputFieldShape[i] / p.kernelShape[i]);
    s.push_back(1);
  }
  Tensor r = t.reshape(s);
  for (std::size_t i = 0; i < p.getNumFieldDims(); ++i)
    r = r.broadcast(static_cast<unsigned>(p.kernelShape[i]), static_cast<unsigned>(3 + 2 * i));
  return r;
}

/// One kernel offset: the strided view of the input it reads and the outputs it feeds.
struct OffsetViews {
  std::vector<std::size_t> outLo, outHi; ///< per field dimension
  bool empty = false;
};

OffsetViews offsetRange(const PoolParams &p, const std::vector<std::size_t> &k,
                        const std::vector<std::size_t> &outField) {
  OffsetViews r;
  for (std::size_t i = 0; i < p.getNumFieldDims(); ++i) {
    const long s = p.stride[i], pl = p.inputTruncationOrPaddingLower[i];
    const long f = static_cast<long>(p.inputFieldShape[i]), kk = static_cast<long>(k[i]);
    // Output o reads input o * s + k - pl, which must lie in [0, f).
    long lo = pl - kk > 0 ? (pl - kk + s - 1) / s : 0;
    long hi = f - 1 + pl - kk >= 0 ? (f - 1 + pl - kk) / s + 1 : 0;
    hi = std::min<long>(hi, static_cast<long>(outField[i]));
    if (lo >= hi)
      r.empty = true;
    r.outLo.push_back(static_cast<std::size_t>(std::max<long>(lo, 0)));
    r.outHi.push_back(static_cast<std::size_t>(std::max<long>(hi, lo)));
  }
  return r;
}

Tensor inputView(const Tensor &t, const PoolParams &p, const std::vector<std::size_t> &k,
                 const OffsetViews &r) {
  Tensor v = t;
  for (std::size_t i = 0; i < p.getNumFieldDims(); ++i) {
    const long s = p.stride[i], pl = p.inputTruncationOrPaddingLower[i];
    const long first = static_cast<long>(r.outLo[i]) * s + static_cast<long>(k[i]) - pl;
    const long last = static_cast<long>(r.outHi[i] - 1) * s + static_cast<long>(k[i]) - pl;
    const unsigned dim = static_cast<unsigned>(2 + i);
    v = v.slice(static_cast<std::size_t>(first), static_cast<std::size_t>(last + 1), dim)
            .subSample(static_cast<unsigned>(s), dim);
  }
  return v;
}

Tensor outputView(const Tensor &t, const OffsetViews &r) {
  Tensor v = t;
  for (std::size_t i = 0; i < r.outLo.size(); ++i)
    v = v.slice(r.outLo[i], r.outHi[i], static_cast<unsigned>(2 + i));
  return v;
}

/// Calls fn(offset) for every kernel offset, in row-major order.
template <class Fn> void forEachOffset(const PoolParams &p, Fn fn) {
  const std::size_t d = p.getNumFieldDims();
  std::vector<std::size_t> k(d, 0);
  for (std::size_t n = 0; n < product(p.kernelShape); ++n) {
    fn(k);
    for (std::size_t i = d; i-- > 0;) {
      if (++k[i] < p.kernelShape[i])
        break;
      k[i] = 0;
    }
  }
}

/// 1 / (number of real input elements in each output's window), as a [O1][O2]… constant.
Tensor inverseCounts(poplar::Graph &graph, const PoolParams &p,
                     const std::vector<std::size_t> &outField, const poplar::DebugContext &dc) {
  std::vector<float> inv(product(outField), 0.0f);
  std::vector<std::vector<std::size_t>> perDim(outField.size());
  for (std::size_t i = 0; i < outField.size(); ++i) {
    perDim[i].assign(outField[i], 0);
    for (std::size_t o = 0; o < outField[i]; ++o)
      for (std::size_t k = 0; k < p.kernelShape[i]; ++k) {
        const long pos =
            static_cast<long>(o * p.stride[i] + k) - p.inputTruncationOrPaddingLower[i];
        perDim[i][o] += pos >= 0 && pos < static_cast<long>(p.inputFieldShape[i]);
      }
  }
  for (std::size_t flat = 0; flat < inv.size(); ++flat) {
    std::size_t rem = flat, count = 1;
    for (std::size_t i = outField.size(); i-- > 0;) {
      count *= perDim[i][rem % outField[i]];
      rem /= outField[i];
    }
    inv[flat] = count ? 1.0f / static_cast<float>(count) : 0.0f;
  }
  Tensor t = graph.addConstant<float>(p.dType, outField, inv, {dc, "inverseCounts"});
  poputil::mapTensorLinearly(graph, t);
  return t;
}

/// The value max pooling starts each output from, broadcast over [B][C][O1][O2]…: -inf, or 0 for
/// a window that covers only padding (it has no maximum; PopLibs' reference gives 0 there).
Tensor maxInitial(poplar::Graph &graph, const PoolParams &p, const std::vector<std::size_t> &outField,
                  const poplar::DebugContext &dc) {
  std::vector<std::vector<bool>> covered(outField.size());
  for (std::size_t i = 0; i < outField.size(); ++i) {
    covered[i].assign(outField[i], false);
    for (std::size_t o = 0; o < outField[i]; ++o)
      for (std::size_t k = 0; k < p.kernelShape[i]; ++k) {
        const long pos =
            static_cast<long>(o * p.stride[i] + k) - p.inputTruncationOrPaddingLower[i];
        if (pos >= 0 && pos < static_cast<long>(p.inputFieldShape[i]))
          covered[i][o] = true;
      }
  }
  std::vector<float> init(product(outField));
  for (std::size_t flat = 0; flat < init.size(); ++flat) {
    bool any = true;
    for (std::size_t i = outField.size(), rem = flat; i-- > 0; rem /= outField[i])
      any = any && covered[i][rem % outField[i]];
    init[flat] = any ? -std::numeric_limits<float>::infinity() : 0.0f;
  }
  std::vector<std::size_t> shape{1, 1};
  shape.insert(shape.end(), outField.begin(), outField.end());
  Tensor t = graph.addConstant<float>(p.dType, shape, init, dc);
  poputil::mapTensorLinearly(graph, t);
  return t.broadcast(static_cast<unsigned>(p.batchSize), 0)
      .broadcast(static_cast<unsigned>(p.numChannels), 1);
}

Tensor newLike(poplar::Graph &graph, const PoolParams &p, const std::vector<std::size_t> &field,
               const poplar::DebugContext &dc) {
  Tensor t = graph.addVariable(p.dType, fullShape(p, field), dc);
  poputil::mapTensorLinearly(graph, t);
  return t;
}

// ---- Plane vertices (1-D and 2-D windows) --------------------------------------------------

/// Strided views cost one region per element (one vertex per element once a map splits them),
/// so 1-D and 2-D windows that overlap use vertices that walk whole planes instead.
bool usesPlaneVertices(const PoolParams &p) { return p.getNumFieldDims() <= 2; }

/// A [B][C][F…] tensor as [B·C][∏F]: one row per (sample, channel) plane.
Tensor planeRows(const Tensor &t) {
  const std::size_t planes = t.dim(0) * t.dim(1);
  return t.reshape({planes, planes ? t.numElements() / planes : 0});
}

/// For every plane of `t`, the tile holding most of its elements (the vertex goes where its
/// data is; a plane split over tiles is gathered by exchange).
std::vector<unsigned> planeTiles(const poplar::Graph &graph, const Tensor &t) {
  const Tensor rows = planeRows(t);
  const std::size_t planes = rows.dim(0), planeSize = rows.dim(1);
  std::vector<unsigned> tile(planes, 0);
  if (planes == 0 || planeSize == 0)
    return tile;
  std::vector<std::size_t> best(planes, 0), here(planes, 0);
  std::vector<std::size_t> touched;
  const auto mapping = graph.getTileMapping(rows);
  for (unsigned tl = 0; tl < mapping.size(); ++tl) {
    touched.clear();
    for (const auto &iv : mapping[tl])
      for (std::size_t e = iv.begin(); e < iv.end();) {
        const std::size_t plane = e / planeSize;
        const std::size_t end = std::min<std::size_t>(iv.end(), (plane + 1) * planeSize);
        if (here[plane] == 0)
          touched.push_back(plane);
        here[plane] += end - e;
        e = end;
      }
    for (std::size_t plane : touched) {
      if (here[plane] > best[plane]) {
        best[plane] = here[plane];
        tile[plane] = tl;
      }
      here[plane] = 0;
    }
  }
  return tile;
}

/// A new [B][C][field…] variable whose planes live on `tiles`.
Tensor planeVariable(poplar::Graph &graph, const PoolParams &p,
                     const std::vector<std::size_t> &field, const std::vector<unsigned> &tiles,
                     const poplar::DebugContext &dc) {
  const std::size_t planes = tiles.size();
  Tensor t = graph.addVariable(p.dType, {planes, product(field)}, dc);
  for (std::size_t a = 0; a < planes;) {
    std::size_t b = a + 1;
    while (b < planes && tiles[b] == tiles[a])
      ++b;
    graph.setTileMapping(t.slice(a, b), tiles[a]);
    a = b;
  }
  return t.reshape(fullShape(p, field));
}

/// One vertex of `type` per tile over that tile's planes; `fields` are the vertex's plane-list
/// fields and the [B][C][…] tensors they take a row of each (an invalid tensor: no rows).
void addPlaneVertices(poplar::Graph &graph, const PoolParams &p, const std::string &type,
                      unsigned mode, const std::vector<unsigned> &tiles,
                      const std::vector<std::pair<const char *, Tensor>> &fields,
                      poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const auto outField = p.getOutputFieldShape();
  const bool twoD = p.getNumFieldDims() == 2;
  // A 1-D field is a 2-D one of height 1.
  const std::size_t h = twoD ? 0 : 1, w = twoD ? 1 : 0;
  const unsigned inH = twoD ? static_cast<unsigned>(p.inputFieldShape[h]) : 1;
  const unsigned outH = twoD ? static_cast<unsigned>(outField[h]) : 1;
  const unsigned kernelH = twoD ? static_cast<unsigned>(p.kernelShape[h]) : 1;
  const unsigned strideH = twoD ? static_cast<unsigned>(p.stride[h]) : 1;
  const int padH = twoD ? p.inputTruncationOrPaddingLower[h] : 0;

  std::vector<std::vector<std::size_t>> planesOn(graph.getTarget().getNumTiles());
  for (std::size_t plane = 0; plane < tiles.size(); ++plane)
    planesOn[tiles[plane]].push_back(plane);
  std::vector<Tensor> rows;
  for (const auto &[name, t] : fields)
    rows.push_back(t.valid() ? planeRows(t) : Tensor());

  poplar::ComputeSet cs = graph.addComputeSet(dc);
  for (unsigned tile = 0; tile < planesOn.size(); ++tile) {
    if (planesOn[tile].empty())
      continue;
    poplar::VertexRef v = graph.addVertex(cs, poputil::templateVertex(type, p.dType));
    for (std::size_t f = 0; f < fields.size(); ++f) {
      std::vector<Tensor> list;
      if (rows[f].valid())
        for (std::size_t plane : planesOn[tile])
          list.push_back(rows[f][plane]);
      graph.connect(v[fields[f].first], list);
    }
    graph.setInitialValue(v["inH"], inH);
    graph.setInitialValue(v["inW"], static_cast<unsigned>(p.inputFieldShape[w]));
    graph.setInitialValue(v["outH"], outH);
    graph.setInitialValue(v["outW"], static_cast<unsigned>(outField[w]));
    graph.setInitialValue(v["kernelH"], kernelH);
    graph.setInitialValue(v["kernelW"], static_cast<unsigned>(p.kernelShape[w]));
    graph.setInitialValue(v["strideH"], strideH);
    graph.setInitialValue(v["strideW"], static_cast<unsigned>(p.stride[w]));
    graph.setInitialValue(v["padH"], padH);
    graph.setInitialValue(v["padW"], static_cast<int>(p.inputTruncationOrPaddingLower[w]));
    graph.setInitialValue(v["mode"], mode);
    graph.setTileMapping(v, tile);
  }
  prog.add(poplar::program::Execute(cs, dc));
}

/// Forward pooling with PoolPlanes: the output's planes sit with the input's.
Tensor poolWithPlanes(poplar::Graph &graph, const PoolParams &p, const Tensor &in,
                      poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const std::vector<unsigned> tiles = planeTiles(graph, in);
  Tensor out = planeVariable(graph, p, p.getOutputFieldShape(), tiles, {dc, "out"});
  const unsigned mode = p.poolingType == PoolingType::MAX   ? 0u
                        : p.poolingType == PoolingType::SUM ? 1u
                                                            : 2u;
  addPlaneVertices(graph, p, "popnn::PoolPlanes", mode, tiles, {{"in", in}, {"out", out}}, prog,
                   {dc, "window"});
  return out;
}

/// Input gradient with PoolGradPlanes: its planes sit with the forward input's (MAX) or the
/// pooled gradient's (AVG, SUM).
Tensor inputGradientWithPlanes(poplar::Graph &graph, const PoolParams &p, const Tensor *in,
                               const Tensor *pooled, const Tensor &pooledGradient, bool scaled,
                               poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const bool isMax = p.poolingType == PoolingType::MAX;
  const std::vector<unsigned> tiles = planeTiles(graph, isMax ? *in : pooledGradient);
  Tensor grad = planeVariable(graph, p, p.inputFieldShape, tiles, {dc, "inGrad"});
  const unsigned mode = isMax ? (scaled ? 1u : 0u) : p.poolingType == PoolingType::SUM ? 2u : 3u;
  addPlaneVertices(graph, p, "popnn::PoolGradPlanes", mode, tiles,
                   {{"in", isMax ? *in : Tensor()},
                    {"pooled", isMax ? *pooled : Tensor()},
                    {"pooledGradient", pooledGradient},
                    {"inGradient", grad}},
                   prog, {dc, isMax ? "maxGrad" : "accumulate"});
  return grad;
}

// ---- Per-offset maps (3-D windows) ----------------------------------------------------------

/// Input gradient for AVG/SUM (in unused) or MAX (in, pooled used).
Tensor inputGradient(poplar::Graph &graph, const PoolParams &p, const Tensor *in,
                     const Tensor *pooled, const Tensor &pooledGradient, bool scaled,
                     poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const auto outField = p.getOutputFieldShape();
  const float kernelInv = 1.0f / static_cast<float>(product(p.kernelShape));
  if (nonOverlapping(p)) {
    const Tensor g = expandToWindows(pooledGradient, p);
    Tensor r;
    if (p.poolingType == PoolingType::SUM)
      r = popops::map(graph, _1 + 0.0f, {g}, prog, {dc, "sumGrad"});
    else if (p.poolingType == PoolingType::AVG)
      r = popops::map(graph, _1 * kernelInv, {g}, prog, {dc, "avgGrad"});
    else {
      const Tensor x = windowsView(*in, p), y = expandToWindows(*pooled, p);
      if (scaled) {
        const Tensor hits = popops::map(graph, Cast(_1 == _2, p.dType), {x, y}, prog, {dc, "hits"});
        const Tensor count =
            popops::reduce(graph, hits, kernelDims(p), popops::Operation::ADD, prog, {dc, "count"});
        r = popops::map(graph, _1 * _2 / _3, {hits, g, expandToWindows(count, p)}, prog,
                        {dc, "maxGrad"});
      } else {
        r = popops::map(graph, Select(_1, Const(0.0f), _2 == _3), {g, x, y}, prog, {dc, "maxGrad"});
      }
    }
    return r.reshape(fullShape(p, p.inputFieldShape));
  }
  if (usesPlaneVertices(p))
    return inputGradientWithPlanes(graph, p, in, pooled, pooledGradient, scaled, prog, dc);
  Tensor grad = newLike(graph, p, p.inputFieldShape, {dc, "inGrad"});
  setAll(graph, grad, 0.0, prog, {dc, "zero"});
  Tensor g = pooledGradient;
  if (p.poolingType == PoolingType::MAX && scaled) {
    Tensor count = newLike(graph, p, outField, {dc, "count"});
    setAll(graph, count, 0.0, prog, {dc, "zeroCount"});
    forEachOffset(p, [&](const std::vector<std::size_t> &k) {
      const auto r = offsetRange(p, k, outField);
      if (!r.empty)
        popops::mapInPlace(graph, _1 + Cast(_2 == _3, p.dType),
                           {outputView(count, r), inputView(*in, p, k, r), outputView(*pooled, r)},
                           prog, {dc, "count"});
    });
    g = popops::map(graph, _1 / _2, {pooledGradient, count}, prog, {dc, "scaledGrad"});
  } else if (p.poolingType == PoolingType::AVG) {
    g = popops::map(graph, _1 * _2, {pooledGradient, inverseCounts(graph, p, outField, dc)}, prog,
                    {dc, "avgGrad"});
  }
  forEachOffset(p, [&](const std::vector<std::size_t> &k) {
    const auto r = offsetRange(p, k, outField);
    if (r.empty)
      return;
    const Tensor gv = inputView(grad, p, k, r), ov = outputView(g, r);
    if (p.poolingType == PoolingType::MAX)
      popops::mapInPlace(graph, _1 + Select(_2, Const(0.0f), _3 == _4),
                         {gv, ov, inputView(*in, p, k, r), outputView(*pooled, r)}, prog,
                         {dc, "maxGrad"});
    else
      popops::mapInPlace(graph, _1 + _2, {gv, ov}, prog, {dc, "accumulate"});
  });
  return grad;
}

} // namespace

std::vector<std::size_t> PoolParams::getOutputFieldShape() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < inputFieldShape.size(); ++i) {
    const long padded = static_cast<long>(inputFieldShape[i]) + inputTruncationOrPaddingLower[i] +
                        inputTruncationOrPaddingUpper[i];
    const long k = static_cast<long>(kernelShape[i]);
    out.push_back(padded < k || stride[i] == 0
                      ? 0
                      : static_cast<std::size_t>((padded - k) / static_cast<long>(stride[i]) + 1));
  }
  return out;
}

std::vector<std::size_t> getOutputFieldShape(const PoolParams &params) {
  return params.getOutputFieldShape();
}

const char *asString(const PoolingType &method) {
  switch (method) {
  case PoolingType::MAX:
    return "MAX";
  case PoolingType::AVG:
    return "AVG";
  case PoolingType::SUM:
    return "SUM";
  }
  return "?";
}

std::ostream &operator<<(std::ostream &o, const PoolParams &p) {
  o << "PoolParams{" << asString(p.poolingType) << ", field "
    << detail::shapeString(p.inputFieldShape) << ", kernel " << detail::shapeString(p.kernelShape)
    << ", channels " << p.numChannels << ", batch " << p.batchSize << ", " << p.dType.toString()
    << "}";
  return o;
}

std::uint64_t getFwdFlops(const PoolParams &p) {
  return p.batchSize * p.numChannels * product(p.getOutputFieldShape()) * product(p.kernelShape);
}

std::uint64_t getBwdFlops(const PoolParams &p) { return getFwdFlops(p); }

Tensor pool(poplar::Graph &graph, const PoolParams &params, const Tensor &in,
            poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
            const poplar::OptionFlags &) {
  const std::string fn = "popnn::pooling::pool";
  checkParams(fn, params);
  checkTensor(fn, "in", in, params, params.inputFieldShape);
  const poplar::DebugContext dc(debugContext, detail::cat("pool", asString(params.poolingType)));
  const auto outField = params.getOutputFieldShape();
  const bool isMax = params.poolingType == PoolingType::MAX;
  if (nonOverlapping(params)) {
    Tensor r = popops::reduce(graph, windowsView(in, params), kernelDims(params),
                              isMax ? popops::Operation::MAX : popops::Operation::ADD, prog,
                              {dc, "windows"});
    if (params.poolingType == PoolingType::AVG)
      popops::mapInPlace(graph, _1 * (1.0f / static_cast<float>(product(params.kernelShape))), {r},
                         prog, {dc, "average"});
    return r;
  }
  if (usesPlaneVertices(params))
    return poolWithPlanes(graph, params, in, prog, dc);
  Tensor out = newLike(graph, params, outField, {dc, "out"});
  if (isMax)
    popops::mapInPlace(graph, Select(_2, _1, Const(true)),
                       {out, maxInitial(graph, params, outField, {dc, "maxInitial"})}, prog,
                       {dc, "init"});
  else
    setAll(graph, out, 0.0, prog, {dc, "init"});
  forEachOffset(params, [&](const std::vector<std::size_t> &k) {
    const auto r = offsetRange(params, k, outField);
    if (r.empty)
      return;
    const Tensor ov = outputView(out, r), iv = inputView(in, params, k, r);
    if (isMax)
      popops::mapInPlace(graph, Max(_1, _2), {ov, iv}, prog, {dc, "window"});
    else
      popops::mapInPlace(graph, _1 + _2, {ov, iv}, prog, {dc, "window"});
  });
  if (params.poolingType == PoolingType::AVG)
    popops::mapInPlace(graph, _1 * _2, {out, inverseCounts(graph, params, outField, dc)}, prog,
                       {dc, "average"});
  return out;
}

Tensor poolInputGradient(poplar::Graph &graph, const PoolParams &params, const Tensor &in,
                         const Tensor &pooled, const Tensor &pooledGradient, bool useScaledGradient,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                         const poplar::OptionFlags &) {
  const std::string fn = "popnn::pooling::poolInputGradient";
  checkParams(fn, params);
  const auto outField = params.getOutputFieldShape();
  checkTensor(fn, "in", in, params, params.inputFieldShape);
  checkTensor(fn, "pooled", pooled, params, outField);
  checkTensor(fn, "pooledGradient", pooledGradient, params, outField);
  return inputGradient(graph, params, &in, &pooled, pooledGradient, useScaledGradient, prog,
                       {debugContext, "poolInputGradient"});
}

Tensor poolInputGradient(poplar::Graph &graph, const PoolParams &params, const unsigned,
                         const Tensor &pooledGradient, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext, const poplar::OptionFlags &) {
  const std::string fn = "popnn::pooling::poolInputGradient";
  checkParams(fn, params);
  if (params.poolingType == PoolingType::MAX)
    throw poputil::poplibs_error(
        detail::cat(fn, ": MAX pooling needs the forward input and output; use the overload "
                        "taking `in` and `pooled`"));
  checkTensor(fn, "pooledGradient", pooledGradient, params, params.getOutputFieldShape());
  return inputGradient(graph, params, nullptr, nullptr, pooledGradient, false, prog,
                       {debugContext, "poolInputGradient"});
}

} // namespace popnn::pooling
