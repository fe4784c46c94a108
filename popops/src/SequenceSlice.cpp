// sequenceSlice: one SequenceSlice vertex per batch of the tOut regions a tile holds; each reads
// all of tIn and the entry tensors (their rows are only known at run time).
#include <popops/SequenceSlice.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "TileRegions.hpp"

namespace popops {

namespace {

constexpr std::size_t kRegionsPerVertex = 1024;

[[noreturn]] void fail(const std::string &what) {
  throw poputil::poplibs_error("popops::sequenceSlice: " + what);
}

void checkEntries(const poplar::Tensor &t, const char *name, const poplar::Tensor &tN) {
  if (t.rank() != 1 || t.elementType() != poplar::UNSIGNED_INT)
    fail(std::string(name) + " must be a rank-1 UNSIGNED_INT tensor, got " + t.shortString());
  if (t.dim(0) != tN.dim(0))
    fail(std::string(name) + " has " + std::to_string(t.dim(0)) + " entries but tN has " +
         std::to_string(tN.dim(0)));
}

} // namespace

void sequenceSlice(poplar::Graph &graph, const poplar::Tensor &tIn, const poplar::Tensor &tOut,
                   const poplar::Tensor &tN, const poplar::Tensor &tInOffset,
                   const poplar::Tensor &tOutOffset, bool zeroUnused,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  if (tIn.rank() < 2)
    fail("tIn must have rank >= 2, got " + tIn.shortString());
  if (tOut.rank() < 2)
    fail("tOut must have rank >= 2, got " + tOut.shortString());
  const poplar::Type type = tOut.elementType();
  if (type != poplar::FLOAT && type != poplar::HALF && type != poplar::INT &&
      type != poplar::UNSIGNED_INT)
    fail("tOut must be FLOAT, HALF, INT or UNSIGNED_INT, got " + tOut.shortString());
  if (tIn.elementType() != type)
    fail("tIn " + tIn.shortString() + " must have tOut's type " + type.toString());
  std::size_t outInner = 1, inInner = 1;
  for (unsigned d = 1; d < tOut.rank(); ++d)
    outInner *= tOut.dim(d);
  for (unsigned d = 1; d < tIn.rank(); ++d)
    inInner *= tIn.dim(d);
  if (inInner != outInner)
    fail("tIn " + tIn.shortString() + " has " + std::to_string(inInner) +
         " elements per row but tOut " + tOut.shortString() + " has " + std::to_string(outInner));
  if (tN.rank() != 1 || tN.elementType() != poplar::UNSIGNED_INT)
    fail("tN must be a rank-1 UNSIGNED_INT tensor, got " + tN.shortString());
  checkEntries(tInOffset, "tInOffset", tN);
  checkEntries(tOutOffset, "tOutOffset", tN);

  poplar::ComputeSet cs = graph.addComputeSet({debugContext, "SequenceSlice"});
  if (tOut.numElements() != 0 && outInner != 0) {
    const std::string vertexType = poputil::templateVertex("popops::SequenceSlice", type);
    const poplar::Tensor flatOut = tOut.flatten(), flatIn = tIn.flatten();
    auto runs = detail::contiguousRunsPerTile(graph, tOut);
    for (unsigned tile = 0; tile < runs.size(); ++tile) {
      auto &tileRuns = runs[tile];
      for (std::size_t first = 0; first < tileRuns.size(); first += kRegionsPerVertex) {
        const std::size_t last = std::min(tileRuns.size(), first + kRegionsPerVertex);
        std::vector<poplar::Tensor> regions;
        std::vector<unsigned> starts;
        for (std::size_t r = first; r < last; ++r) {
          regions.push_back(flatOut.slice(tileRuns[r]));
          starts.push_back(static_cast<unsigned>(tileRuns[r].begin()));
        }
        poplar::Tensor startsT = graph.addConstant<unsigned>(
            poplar::UNSIGNED_INT, {starts.size()}, starts.data(), {debugContext, "regionStarts"});
        graph.setTileMapping(startsT, tile);
        auto v = graph.addVertex(cs, vertexType,
                                 {{"regionStarts", startsT},
                                  {"in", flatIn},
                                  {"n", tN},
                                  {"inOffset", tInOffset},
                                  {"outOffset", tOutOffset}});
        graph.connect(v["regions"], regions);
        graph.setInitialValue(v["rowSize"], static_cast<unsigned>(outInner));
        graph.setInitialValue(v["inRows"], static_cast<unsigned>(tIn.dim(0)));
        graph.setInitialValue(v["zeroUnused"], zeroUnused);
        graph.setTileMapping(v, tile);
      }
    }
  }
  prog.add(poplar::program::Execute(cs, {debugContext, "SequenceSlice"}));
}

} // namespace popops
