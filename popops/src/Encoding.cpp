// encodeOneHot: each tile writes the runs of the encoded matrix mapped to it with one
// EncodeOneHot vertex per run, reading the indices of the rows the run covers.
#include <popops/Encoding.hpp>

#include <string>

#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "TileRegions.hpp"

namespace popops {

namespace {

bool isEncodedType(const poplar::Type &t) {
  return t == poplar::FLOAT || t == poplar::HALF || t == poplar::INT || t == poplar::UNSIGNED_INT;
}

void checkEncodeArgs(const poplar::Tensor &indices, const poplar::Tensor &encoded) {
  if (encoded.rank() != 2)
    throw poputil::poplibs_error("popops::encodeOneHot: encoded must be rank 2 ([indices][classes])"
                                 ", got " +
                                 encoded.shortString());
  if (!isEncodedType(encoded.elementType()))
    throw poputil::poplibs_error("popops::encodeOneHot: encoded must be FLOAT, HALF, INT or "
                                 "UNSIGNED_INT, got " +
                                 encoded.shortString());
  if (indices.rank() != 1)
    throw poputil::poplibs_error("popops::encodeOneHot: indices must be rank 1, got " +
                                 indices.shortString());
  if (indices.elementType() != poplar::UNSIGNED_INT && indices.elementType() != poplar::INT)
    throw poputil::poplibs_error("popops::encodeOneHot: indices must be an integer tensor "
                                 "(UNSIGNED_INT or INT), got " +
                                 indices.shortString());
  if (indices.dim(0) != encoded.dim(0))
    throw poputil::poplibs_error("popops::encodeOneHot: indices has " +
                                 std::to_string(indices.dim(0)) + " elements but encoded " +
                                 encoded.shortString() + " has " + std::to_string(encoded.dim(0)) +
                                 " rows");
}

void checkValue(const poplar::Tensor &value, const char *name, const poplar::Tensor &encoded) {
  if (value.numElements() != 1)
    throw poputil::poplibs_error(std::string("popops::encodeOneHot: ") + name +
                                 " must have exactly one element, got " + value.shortString());
  if (value.elementType() != encoded.elementType())
    throw poputil::poplibs_error(std::string("popops::encodeOneHot: ") + name + " is " +
                                 value.elementType().toString() + ", expected encoded's type " +
                                 encoded.elementType().toString());
}

void addEncodeOneHot(poplar::Graph &graph, const poplar::Tensor &indices,
                     const poplar::Tensor &encoded, poplar::program::Sequence &prog,
                     const poplar::Tensor &on, const poplar::Tensor &off,
                     const poplar::DebugContext &dc) {
  poplar::ComputeSet cs = graph.addComputeSet({dc, "EncodeOneHot"});
  const std::size_t classes = encoded.dim(1);
  if (encoded.numElements() != 0) {
    const std::string vertexType = poputil::templateVertex(
        "popops::EncodeOneHot", indices.elementType(), encoded.elementType());
    const poplar::Tensor flat = encoded.flatten();
    const poplar::Tensor onScalar = on.reshape({}), offScalar = off.reshape({});
    const auto runs = detail::contiguousRunsPerTile(graph, encoded);
    for (unsigned tile = 0; tile < runs.size(); ++tile)
      for (const auto &run : runs[tile]) {
        const std::size_t firstRow = run.begin() / classes, lastRow = (run.end() - 1) / classes;
        auto v = graph.addVertex(cs, vertexType,
                                 {{"indices", indices.slice(firstRow, lastRow + 1)},
                                  {"out", flat.slice(run)},
                                  {"on", onScalar},
                                  {"off", offScalar}});
        graph.setInitialValue(v["offset"], static_cast<unsigned>(run.begin() - firstRow * classes));
        graph.setInitialValue(v["numClasses"], static_cast<unsigned>(classes));
        graph.setTileMapping(v, tile);
      }
  }
  prog.add(poplar::program::Execute(cs, {dc, "EncodeOneHot"}));
}

} // namespace

void encodeOneHot(poplar::Graph &graph, const poplar::Tensor &indices,
                  const poplar::Tensor &encoded, poplar::program::Sequence &prog,
                  const poplar::DebugContext &debugContext) {
  checkEncodeArgs(indices, encoded);
  const poplar::Type type = encoded.elementType();
  poplar::Tensor on = graph.addConstant(type, {}, 1, {debugContext, "on"});
  poplar::Tensor off = graph.addConstant(type, {}, 0, {debugContext, "off"});
  graph.setTileMapping(on, 0);
  graph.setTileMapping(off, 0);
  addEncodeOneHot(graph, indices, encoded, prog, on, off, debugContext);
}

void encodeOneHot(poplar::Graph &graph, const poplar::Tensor &indices,
                  const poplar::Tensor &encoded, poplar::program::Sequence &prog,
                  const poplar::Tensor &on, const poplar::Tensor &off,
                  const poplar::DebugContext &debugContext) {
  checkEncodeArgs(indices, encoded);
  checkValue(on, "on", encoded);
  checkValue(off, "off", encoded);
  addEncodeOneHot(graph, indices, encoded, prog, on, off, debugContext);
}

} // namespace popops
