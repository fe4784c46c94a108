#include <popops/Cast.hpp>

#include <algorithm>
#include <iterator>
#include <string>

#include <popops/ElementWise.hpp>
#include <poputil/Describe.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "MapExprCompiler.hpp"
#include "TileRegions.hpp"

namespace popops {

namespace {

/// The types a cast converts between (QUARTER with any of them but the long long types).
const poplar::Type kCastTypes[] = {
    poplar::FLOAT,  poplar::HALF,           poplar::INT,         poplar::UNSIGNED_INT,
    poplar::BOOL,   poplar::CHAR,           poplar::SIGNED_CHAR, poplar::UNSIGNED_CHAR,
    poplar::SHORT,  poplar::UNSIGNED_SHORT, poplar::LONGLONG,    poplar::UNSIGNED_LONGLONG,
    poplar::QUARTER};
const char *const kCastTypeList = "float, half, int, unsigned int, bool, char, signed char, "
                                  "unsigned char, short, unsigned short, long long (from "
                                  "integers), unsigned long long (from integers), quarter";

bool isCastType(const poplar::Type &t) {
  return std::find(std::begin(kCastTypes), std::end(kCastTypes), t) != std::end(kCastTypes);
}

bool isLongLong(const poplar::Type &t) {
  return t == poplar::LONGLONG || t == poplar::UNSIGNED_LONGLONG;
}

/// The 8-, 16- and 64-bit integer types, which popops::Cast1D vertices convert (the fused map
/// handles the rest).
bool isSmallInteger(const poplar::Type &t) {
  return t == poplar::CHAR || t == poplar::SIGNED_CHAR || t == poplar::UNSIGNED_CHAR ||
         t == poplar::SHORT || t == poplar::UNSIGNED_SHORT || isLongLong(t);
}

/// 64-bit integers convert only from integer types, and only to 64-bit integers (PopLibs'
/// rule).
void checkLongLongPair(const poplar::Tensor &src, const poplar::Type &to) {
  const poplar::Type from = src.elementType();
  const bool fromInteger =
      from != poplar::FLOAT && from != poplar::HALF && !from.requiresMetadata();
  if ((isLongLong(to) && !fromInteger) || (isLongLong(from) && !isLongLong(to)))
    throw poputil::poplibs_error("popops::cast of " + poputil::describe(src) + " to " +
                                 to.toString() +
                                 ": long long types convert only from integer types and only "
                                 "to long long types");
}

void checkCastType(const poplar::Tensor &src, const poplar::Type &t) {
  if (!isCastType(t))
    throw poputil::poplibs_error(
        "popops::cast of " + poputil::describe(src) + " to " + t.toString() +
        ": unsupported destination type (supported: " + kCastTypeList + ")");
  if (src.valid())
    checkLongLongPair(src, t);
}

bool involvesQuarter(const poplar::Type &a, const poplar::Type &b) {
  return a.requiresMetadata() || b.requiresMetadata();
}

/// "'name' (quarter[4])": the tensor's debug name, type and shape, for messages.
std::string named(const poplar::Tensor &t) { return poputil::describe(t); }

void checkMetadataTensor(const poplar::Tensor &metadata, const std::string &what) {
  if (!metadata.valid() || metadata.elementType() != poplar::QUARTER_METADATA ||
      metadata.numElements() != 1)
    throw poputil::poplibs_error(what + ": the metadata tensor " + named(metadata) +
                                 " must be one element of type quarter_metadata");
}

void checkHasMetadata(const poplar::Tensor &t, const std::string &what) {
  if (!t.hasMetadata())
    throw poputil::poplibs_error(what + ": the quarter tensor " + named(t) +
                                 " has no metadata to read it under");
}

/// A QUARTER variable read under `metadata`, with `like`'s shape and tile mapping.
poplar::Tensor quarterLike(poplar::Graph &graph, const poplar::Tensor &like,
                           const poplar::Tensor &metadata, const poplar::DebugContext &dc) {
  poplar::Tensor out = graph.addVariable(poplar::QUARTER, metadata, {like.numElements()}, dc);
  graph.setTileMapping(out, graph.getTileMapping(like, false));
  return out.reshape(like.shape());
}

/// Adds to `cs` the vertices computing `dst` from `src` (same shape) where one or both are
/// QUARTER and the other QUARTER, FLOAT, HALF or a 32-, 16- or 8-bit integer type (through
/// float inside the vertex): one per run of `dst` on each tile.
void addQuarterCastVertices(poplar::Graph &graph, const poplar::Tensor &src,
                            const poplar::Tensor &dst, poplar::ComputeSet cs) {
  const poplar::Type from = src.elementType(), to = dst.elementType();
  const bool toQuarter = to.requiresMetadata(), fromQuarter = from.requiresMetadata();
  std::string vertexType = "popops::CastQuarterToQuarter";
  if (!fromQuarter)
    vertexType = "popops::CastToQuarter<" + from.toString() + ">";
  else if (!toQuarter)
    vertexType = "popops::CastFromQuarter<" + to.toString() + ">";
  const poplar::Tensor srcFlat = src.flatten(), dstFlat = dst.flatten();
  const auto runs = detail::contiguousRunsPerTile(graph, dst);
  for (unsigned tile = 0; tile < runs.size(); ++tile)
    for (const auto &run : runs[tile]) {
      const poplar::Tensor in = srcFlat.slice(run), out = dstFlat.slice(run);
      auto v = graph.addVertex(cs, vertexType);
      graph.connect(v["in"], in);
      graph.connect(v["out"], out);
      if (fromQuarter && toQuarter) {
        graph.connect(v["inMetadata"], src.getMetadata().reshape({}));
        graph.connect(v["outMetadata"], dst.getMetadata().reshape({}));
      } else {
        const poplar::Tensor &q = toQuarter ? dst : src;
        graph.connect(v["metadata"], q.getMetadata().reshape({}));
      }
      graph.setTileMapping(v, tile);
    }
}

/// Adds to `cs` one popops::Cast1D<src type, dst type> vertex per run of `dst` on each tile,
/// for a pair where one side is a small integer type.
void addSmallIntegerCastVertices(poplar::Graph &graph, const poplar::Tensor &src,
                                 const poplar::Tensor &dst, poplar::ComputeSet cs) {
  const std::string vertexType =
      poputil::templateVertex("popops::Cast1D", src.elementType(), dst.elementType());
  const poplar::Tensor srcFlat = src.flatten(), dstFlat = dst.flatten();
  const auto runs = detail::contiguousRunsPerTile(graph, dst);
  for (unsigned tile = 0; tile < runs.size(); ++tile)
    for (const auto &run : runs[tile]) {
      auto v = graph.addVertex(cs, vertexType);
      graph.connect(v["src"], srcFlat.slice(run));
      graph.connect(v["dst"], dstFlat.slice(run));
      graph.setTileMapping(v, tile);
    }
}

void checkSourceType(const poplar::Tensor &src) {
  if (!isCastType(src.elementType()))
    throw poputil::poplibs_error("popops::cast of " + poputil::describe(src) +
                                 ": unsupported source type (supported: " + kCastTypeList + ")");
}

/// dst = cast(src) for non-QUARTER types of the same shape, appended to `prog`.
void castPlain(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
               poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  checkSourceType(src);
  checkLongLongPair(src, dst.elementType());
  if (!isSmallInteger(src.elementType()) && !isSmallInteger(dst.elementType())) {
    mapWithOutput(graph, expr::Cast(expr::_1, dst.elementType()), {src}, dst, prog, dc);
    return;
  }
  poplar::ComputeSet cs = graph.addComputeSet(dc);
  addSmallIntegerCastVertices(graph, src, dst, cs);
  prog.add(poplar::program::Execute(cs, dc));
}

/// cast(src) into a new tensor of `type` for non-QUARTER types.
poplar::Tensor castPlain(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Type &type,
                         poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  checkSourceType(src);
  checkLongLongPair(src, type);
  if (!isSmallInteger(src.elementType()) && !isSmallInteger(type))
    return map(graph, expr::Cast(expr::_1, type), {src}, prog, dc);
  poplar::Tensor out = graph.clone(type, src, dc);
  castPlain(graph, src, out, prog, dc);
  return out;
}

/// `src` as FLOAT or HALF (or QUARTER) so a quarter vertex can take it: other types go through
/// FLOAT first.
poplar::Tensor quarterVertexInput(poplar::Graph &graph, const poplar::Tensor &src,
                                  poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const poplar::Type t = src.elementType();
  if (t == poplar::FLOAT || t == poplar::HALF || t.requiresMetadata())
    return src;
  return castPlain(graph, src, poplar::FLOAT, prog, {dc, "ToFloat"});
}

/// dst = src where src or dst is QUARTER (dst's metadata for a QUARTER dst).
void castWithQuarter(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
                     poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const std::string what = "popops::cast from " + named(src) + " to " + named(dst);
  if (src.shape() != dst.shape())
    throw poputil::poplibs_error(what + ": shapes differ");
  if (src.elementType().requiresMetadata())
    checkHasMetadata(src, what);
  if (dst.elementType().requiresMetadata())
    checkHasMetadata(dst, what);
  const poplar::Type to = dst.elementType();
  if (!to.requiresMetadata() && to != poplar::FLOAT && to != poplar::HALF) {
    // QUARTER to an integer type: decode to FLOAT on the tiles, then cast as usual.
    poplar::Tensor asFloat = graph.clone(poplar::FLOAT, dst, {dc, "AsFloat"});
    castWithQuarter(graph, src, asFloat, prog, dc);
    castPlain(graph, asFloat, dst, prog, {dc, "Cast"});
    return;
  }
  const poplar::Tensor in = quarterVertexInput(graph, src, prog, dc);
  poplar::ComputeSet cs = graph.addComputeSet({dc, "Cast"});
  addQuarterCastVertices(graph, in, dst, cs);
  prog.add(poplar::program::Execute(cs, {dc, "Cast"}));
}

/// The element type of a MapExpr input field (0: 32-bit, 1: 16-bit, 2: 8-bit).
poplar::Type mapFieldType(unsigned field) {
  return field == 0   ? poplar::UNSIGNED_INT
         : field == 1 ? poplar::UNSIGNED_SHORT
                      : poplar::UNSIGNED_CHAR;
}

/// Adds to `cs` the vertices computing dst = cast(src) for non-QUARTER types: the fused map
/// vertex (popops::MapExpr<dst type>) running the one-instruction program Cast(_1, dst type),
/// one vertex per run of `dst` on each tile, so the conversion rounds exactly as map's does.
void addPlainCastVertices(poplar::Graph &graph, const poplar::Tensor &src,
                          const poplar::Tensor &dst, poplar::ComputeSet cs,
                          const std::string &what) {
  const poplar::Type to = dst.elementType();
  const detail::CompiledMapExpr code =
      detail::compileMapExpr(expr::Cast(expr::_1, to), {src}, {named(src)}, what);
  const std::string vertexType = poputil::templateVertex("popops::MapExpr", to);
  const poplar::Tensor dstFlat = dst.flatten();
  const auto runs = detail::contiguousRunsPerTile(graph, dst);
  for (unsigned tile = 0; tile < runs.size(); ++tile)
    for (const auto &run : runs[tile]) {
      std::vector<poplar::Tensor> fields[3];
      for (const auto &use : code.inputs) {
        // A one-element source is read as a scalar: it is the whole (one-element) output.
        const poplar::Tensor piece = use.isScalar ? src.flatten() : src.flatten().slice(run);
        fields[use.field].push_back(piece.reinterpret(mapFieldType(use.field)));
      }
      poplar::VertexRef v = graph.addVertex(cs, vertexType);
      graph.setInitialValue(v["code"], poplar::ArrayRef<std::uint32_t>(code.code));
      graph.setInitialValue(v["consts"], poplar::ArrayRef<std::uint32_t>(code.consts));
      graph.connect(v["in4"], fields[0]);
      graph.connect(v["in2"], fields[1]);
      graph.connect(v["in1"], fields[2]);
      graph.connect(v["out"], dstFlat.slice(run));
      graph.setTileMapping(v, tile);
    }
}

/// cast(graph, src, dst, cs): the vertices for any supported pair into the given compute set.
void castIntoComputeSet(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
                        poplar::ComputeSet cs) {
  const std::string what = "popops::cast from " + named(src) + " to " + named(dst);
  if (!src.valid() || !dst.valid())
    throw poputil::poplibs_error(what + ": both tensors must be valid");
  checkCastType(src, dst.elementType());
  if (!isCastType(src.elementType()))
    throw poputil::poplibs_error(what + ": unsupported source type " +
                                 src.elementType().toString() + " (supported: " + kCastTypeList +
                                 ")");
  if (src.shape() != dst.shape())
    throw poputil::poplibs_error(what + ": shapes differ");
  const poplar::Type from = src.elementType(), to = dst.elementType();
  if (!involvesQuarter(from, to)) {
    if (isSmallInteger(from) || isSmallInteger(to))
      addSmallIntegerCastVertices(graph, src, dst, cs);
    else
      addPlainCastVertices(graph, src, dst, cs, what);
    return;
  }
  // QUARTER with an integer type (long long is refused above) converts through float inside
  // the vertex, so it fits one compute set as well.
  if (from.requiresMetadata())
    checkHasMetadata(src, what);
  if (to.requiresMetadata())
    checkHasMetadata(dst, what);
  addQuarterCastVertices(graph, src, dst, cs);
}

} // namespace

poplar::Tensor cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Type &dstType,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkCastType(src, dstType);
  if (involvesQuarter(src.elementType(), dstType)) {
    if (dstType.requiresMetadata()) {
      if (!src.elementType().requiresMetadata())
        throw poputil::poplibs_error(
            "popops::cast of " + named(src) + " to " + dstType.toString() +
            ": the destination needs metadata; use the cast that takes a QUARTER_METADATA tensor");
      // quarter to quarter: a copy under the same metadata.
      checkHasMetadata(src, "popops::cast of " + named(src));
      poplar::Tensor out = graph.clone(src, {debugContext, "Cast"});
      prog.add(poplar::program::Copy(src, out, false, {debugContext, "Cast"}));
      return out;
    }
    poplar::Tensor out = graph.clone(dstType, src, {debugContext, "Cast"});
    castWithQuarter(graph, src, out, prog, {debugContext, "Cast"});
    return out;
  }
  return castPlain(graph, src, dstType, prog, {debugContext, "Cast"});
}

poplar::Tensor cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Type &dstType,
                    const poplar::Tensor &metadata, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext) {
  if (!dstType.requiresMetadata()) // the metadata describes only a QUARTER destination
    throw poputil::poplibs_error("popops::cast of " + named(src) + " to " + dstType.toString() +
                                 ": a metadata tensor is only taken for a quarter destination");
  checkMetadataTensor(metadata, "popops::cast of " + named(src) + " to " + dstType.toString());
  poplar::Tensor out = quarterLike(graph, src, metadata, {debugContext, "Cast"});
  castWithQuarter(graph, src, out, prog, {debugContext, "Cast"});
  return out;
}

void castWithOutput(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkCastType(src, dst.elementType());
  if (involvesQuarter(src.elementType(), dst.elementType())) {
    castWithQuarter(graph, src, dst, prog, {debugContext, "Cast"});
    return;
  }
  if (src.shape() != dst.shape())
    throw poputil::poplibs_error("popops::cast from " + poputil::describe(src) + " to " +
                                 poputil::describe(dst) + ": shapes differ");
  castPlain(graph, src, dst, prog, {debugContext, "Cast"});
}

void cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  castWithOutput(graph, src, dst, prog, debugContext);
}

poplar::program::Program cast(poplar::Graph &graph, poplar::Tensor src, poplar::Tensor dst,
                              const poplar::DebugContext &debugContext) {
  poplar::program::Sequence prog;
  castWithOutput(graph, src, dst, prog, debugContext);
  return prog;
}

void cast(poplar::Graph &graph, poplar::Tensor src, poplar::Tensor dst, poplar::ComputeSet cs) {
  castIntoComputeSet(graph, src, dst, cs);
}

poplar::Tensor cast(poplar::Graph &graph, poplar::Tensor src, const poplar::Type &dstType,
                    poplar::ComputeSet cs, const poplar::DebugContext &debugContext) {
  checkCastType(src, dstType);
  if (dstType.requiresMetadata())
    throw poputil::poplibs_error("popops::cast of " + named(src) + " to " + dstType.toString() +
                                 ": the destination needs metadata; use the cast that takes a "
                                 "QUARTER_METADATA tensor");
  poplar::Tensor out = graph.clone(dstType, src, {debugContext, "Cast"});
  castIntoComputeSet(graph, src, out, cs);
  return out;
}

poplar::Tensor cast(poplar::Graph &graph, poplar::Tensor src, const poplar::Type &dstType,
                    const poplar::Tensor &metadata, poplar::ComputeSet cs,
                    const poplar::DebugContext &debugContext) {
  const std::string what = "popops::cast of " + named(src) + " to " + dstType.toString();
  if (!dstType.requiresMetadata())
    throw poputil::poplibs_error(what +
                                 ": a metadata tensor is only taken for a quarter destination");
  checkMetadataTensor(metadata, what);
  poplar::Tensor out = quarterLike(graph, src, metadata, {debugContext, "Cast"});
  castIntoComputeSet(graph, src, out, cs);
  return out;
}

poplar::Tensor checkAccuracyWhenCast(poplar::Graph &graph, const poplar::Tensor &input,
                                     poplar::Type outputType, double tolerance,
                                     poplar::program::Sequence &prog,
                                     const poplar::DebugContext &debugContext) {
  const std::string what = "popops::checkAccuracyWhenCast of " + named(input);
  if (!input.valid() || input.elementType() != poplar::FLOAT || input.numElements() != 1)
    throw poputil::poplibs_error(what + " to " + outputType.toString() +
                                 ": the input must be a single float element");
  if (outputType != poplar::HALF)
    throw poputil::poplibs_error(what + " to " + outputType.toString() +
                                 ": only a cast from float to half can be checked");
  // The vertex sits with the input, so the check needs no exchange.
  const auto mapping = graph.getTileMapping(input, false);
  unsigned tile = 0;
  for (unsigned t = 0; t < mapping.size(); ++t)
    if (!mapping[t].empty()) {
      tile = t;
      break;
    }
  poplar::Tensor isAccurate = graph.addVariable(poplar::BOOL, {}, {debugContext, "isAccurate"});
  graph.setTileMapping(isAccurate, tile);
  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "checkAccuracyWhenCast"});
  auto v = graph.addVertex(
      cs, poputil::templateVertex("popops::CheckAccuracyWhenCast", poplar::FLOAT, poplar::HALF));
  graph.connect(v["input"], input.reshape({}));
  graph.connect(v["output"], isAccurate);
  graph.setInitialValue(v["tolerance"], static_cast<float>(tolerance));
  graph.setTileMapping(v, tile);
  prog.add(poplar::program::Execute(cs, {debugContext, "checkAccuracyWhenCast"}));
  return isAccurate;
}

} // namespace popops
