#include "Linalg.hpp"

#include <algorithm>
#include <cstdlib>

#include <poplar/exceptions.hpp>
#include <poputil/Describe.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "MatMulOptions.hpp"

namespace poplin::detail {

LinalgOptions parseLinalgOptions(const std::string &fn, const poplar::OptionFlags &options,
                                 std::size_t defaultBlockSize) {
  LinalgOptions out;
  out.blockSize = defaultBlockSize;
  for (const auto &[key, value] : options) {
    if (key == "blockSize") {
      char *end = nullptr;
      const long long v = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || v <= 0)
        throw poplar::invalid_option("poplin::" + fn + ": option blockSize must be a positive " +
                                     "integer, got '" + value + "'");
      out.blockSize = static_cast<std::size_t>(v);
    } else {
      out.matmul.set(key, value);
    }
  }
  parseMatMulOptions(out.matmul); // rejects unknown names now, not at the first multiply
  return out;
}

void checkSquare(const std::string &fn, const std::string &what,
                 const std::vector<std::size_t> &shape) {
  if (shape.size() < 2)
    throw poputil::poplibs_error("poplin::" + fn + ": " + what + " must have rank 2 or more " +
                                 "([..., N, N]) but has shape " + poputil::shapeString(shape));
  if (shape[shape.size() - 1] != shape[shape.size() - 2])
    throw poputil::poplibs_error("poplin::" + fn + ": " + what + " must be square in its two " +
                                 "minor dimensions ([..., N, N]) but has shape " +
                                 poputil::shapeString(shape));
}

void checkFloatingPoint(const std::string &fn, const std::string &what, const poplar::Type &type) {
  if (type != poplar::FLOAT && type != poplar::HALF)
    throw poputil::poplibs_error("poplin::" + fn + ": " + what + " has type " + type.toString() +
                                 "; expected float or half");
}

std::vector<std::size_t> groupedShape(const std::vector<std::size_t> &shape) {
  std::size_t g = 1;
  for (std::size_t i = 0; i + 2 < shape.size(); ++i)
    g *= shape[i];
  return {g, shape[shape.size() - 2], shape[shape.size() - 1]};
}

poplar::Tensor grouped(const poplar::Tensor &t) {
  if (t.rank() == 2)
    return t.expand({0});
  if (t.rank() == 3)
    return t;
  return t.reshape(groupedShape(t.shape()));
}

unsigned spreadTile(const poplar::Graph &graph, std::size_t index) {
  return static_cast<unsigned>(index % graph.getTarget().getNumTiles());
}

namespace {
/// Mask vertices over row chunks of `dst` ([G][N][N]); from `src` when given, else in place.
void mask(poplar::Graph &graph, const poplar::Tensor *src, const poplar::Tensor &dst, bool lower,
          bool unitDiagonal, poplar::program::Sequence &prog, const std::string &name) {
  const std::size_t n = dst.dim(2), rows = dst.dim(0) * dst.dim(1);
  // (dst may be rectangular: [G][R][N], the triangle taken from the top-left corner.)
  if (n == 0 || rows == 0)
    return;
  const poplar::Tensor flat = dst.reshape({rows, n});
  const std::size_t tiles = graph.getTarget().getNumTiles();
  const std::size_t chunks = std::min(rows, tiles);
  const std::string type = poputil::templateVertex(
      src ? "poplin::TriangularMask" : "poplin::TriangularMaskInPlace", dst.elementType());
  poplar::ComputeSet cs = graph.addComputeSet(name);
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t r0 = rows * c / chunks, r1 = rows * (c + 1) / chunks;
    const poplar::Tensor out = flat.slice(r0, r1).flatten();
    auto v =
        src ? graph.addVertex(
                  cs, type, {{"in", src->reshape({rows, n}).slice(r0, r1).flatten()}, {"out", out}})
            : graph.addVertex(cs, type, {{"data", out}});
    graph.setInitialValue(v["n"], unsigned(n));
    graph.setInitialValue(v["matrixRows"], unsigned(dst.dim(1)));
    graph.setInitialValue(v["firstRow"], unsigned(r0 % dst.dim(1)));
    graph.setInitialValue(v["lower"], unsigned(lower));
    graph.setInitialValue(v["unitDiagonal"], unsigned(unitDiagonal));
    graph.setTileMapping(v, unsigned(c * tiles / chunks));
  }
  prog.add(poplar::program::Execute(cs, name));
}
} // namespace

void maskInPlace(poplar::Graph &graph, const poplar::Tensor &t, bool lower, bool unitDiagonal,
                 poplar::program::Sequence &prog, const std::string &name) {
  mask(graph, nullptr, t, lower, unitDiagonal, prog, name);
}

void maskInto(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
              bool lower, bool unitDiagonal, poplar::program::Sequence &prog,
              const std::string &name) {
  mask(graph, &src, dst, lower, unitDiagonal, prog, name);
}

std::vector<poplar::Tensor>
triangularInverses(poplar::Graph &graph, const std::vector<poplar::Tensor> &blocks, bool lower,
                   bool unitDiagonal, poplar::program::Sequence &prog, const std::string &name) {
  std::vector<poplar::Tensor> out;
  if (blocks.empty())
    return out;
  poplar::ComputeSet cs = graph.addComputeSet(name);
  std::size_t work = 0;
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const poplar::Tensor &b = blocks[k];
    const std::size_t g = b.dim(0), n = b.dim(1);
    poplar::Tensor inv =
        graph.addVariable(b.elementType(), {g, n, n}, name + "/inverse" + std::to_string(k));
    const std::string type = poputil::templateVertex("poplin::TriangularInverse", b.elementType());
    for (std::size_t i = 0; i < g; ++i, ++work) {
      const unsigned tile = spreadTile(graph, work);
      auto v = graph.addVertex(cs, type, {{"a", b[i].flatten()}, {"inverse", inv[i].flatten()}});
      graph.setInitialValue(v["n"], unsigned(n));
      graph.setInitialValue(v["lower"], unsigned(lower));
      graph.setInitialValue(v["unitDiagonal"], unsigned(unitDiagonal));
      graph.setTileMapping(v, tile);
      graph.setTileMapping(inv[i], tile);
    }
    out.push_back(inv);
  }
  prog.add(poplar::program::Execute(cs, name));
  return out;
}

poplar::Tensor linearTensor(poplar::Graph &graph, const poplar::Type &type,
                            const std::vector<std::size_t> &shape, const std::string &name) {
  poplar::Tensor t = graph.addVariable(type, shape, name);
  poputil::mapTensorLinearly(graph, t);
  return t;
}

} // namespace poplin::detail
