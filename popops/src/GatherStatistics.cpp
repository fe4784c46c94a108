// histogram: HistogramCount vertices count, per batch of a tile's regions, into one row of a
// partial-count tensor on that tile; a HistogramSum vertex on tile 0 adds the rows up.
#include <popops/GatherStatistics.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <poputil/OptionParsing.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

#include "TileRegions.hpp"

namespace popops {

namespace {

constexpr std::size_t kRegionsPerVertex = 1024;

[[noreturn]] void fail(const std::string &what) {
  throw poputil::poplibs_error("popops::histogram: " + what);
}

void checkInputs(const poplar::Tensor &input, const poplar::Tensor &levels) {
  const poplar::Type type = input.elementType();
  if (type != poplar::FLOAT && type != poplar::HALF)
    fail("input must be FLOAT or HALF, got " + input.shortString());
  if (levels.elementType() != type)
    fail("levels " + levels.shortString() + " must have input's type " + type.toString());
  if (levels.rank() != 1)
    fail("levels must be rank 1, got " + levels.shortString());
}

void addHistogram(poplar::Graph &graph, const poplar::Tensor &input, const poplar::Tensor &output,
                  bool updateOutput, const poplar::Tensor &levels, bool absoluteOfInput,
                  poplar::program::Sequence &prog, const poplar::DebugContext &dc) {
  const poplar::Type outType = output.elementType();
  const std::size_t bins = levels.numElements() + 1;
  const std::string countType =
      poputil::templateVertex("popops::HistogramCount", input.elementType(), outType);
  // One partial row per HistogramCount vertex.
  std::vector<std::pair<unsigned, std::vector<poplar::Tensor>>> batches;
  if (input.numElements() != 0) {
    const poplar::Tensor flat = input.flatten();
    const auto runs = detail::contiguousRunsPerTile(graph, input);
    for (unsigned tile = 0; tile < runs.size(); ++tile)
      for (std::size_t first = 0; first < runs[tile].size(); first += kRegionsPerVertex) {
        const std::size_t last = std::min(runs[tile].size(), first + kRegionsPerVertex);
        std::vector<poplar::Tensor> regions;
        for (std::size_t r = first; r < last; ++r)
          regions.push_back(flat.slice(runs[tile][r]));
        batches.emplace_back(tile, std::move(regions));
      }
  }
  poplar::Tensor partials = graph.addVariable(
      outType, {std::max<std::size_t>(batches.size(), 1), bins}, {dc, "partials"});
  poplar::ComputeSet countSet = graph.addComputeSet({dc, "HistogramCount"});
  if (batches.empty()) { // nothing to count: one row of zeros from a vertex with no regions
    graph.setTileMapping(partials, 0);
    auto v = graph.addVertex(countSet, countType,
                             {{"levels", levels.flatten()}, {"counts", partials[0]}});
    graph.connect(v["regions"], std::vector<poplar::Tensor>{});
    graph.setInitialValue(v["absolute"], absoluteOfInput);
    graph.setTileMapping(v, 0);
  }
  for (std::size_t b = 0; b < batches.size(); ++b) {
    const unsigned tile = batches[b].first;
    graph.setTileMapping(partials[b], tile);
    auto v = graph.addVertex(countSet, countType,
                             {{"levels", levels.flatten()}, {"counts", partials[b]}});
    graph.connect(v["regions"], batches[b].second);
    graph.setInitialValue(v["absolute"], absoluteOfInput);
    graph.setTileMapping(v, tile);
  }
  prog.add(poplar::program::Execute(countSet, {dc, "HistogramCount"}));
  poplar::ComputeSet sumSet = graph.addComputeSet({dc, "HistogramSum"});
  auto v = graph.addVertex(sumSet, poputil::templateVertex("popops::HistogramSum", outType),
                           {{"partials", partials.flatten()}, {"out", output.flatten()}});
  graph.setInitialValue(v["update"], updateOutput);
  graph.setTileMapping(v, 0);
  prog.add(poplar::program::Execute(sumSet, {dc, "HistogramSum"}));
}

} // namespace

poplar::Tensor histogram(poplar::Graph &graph, const poplar::Tensor &input,
                         const poplar::Tensor &levels, bool absoluteOfInput,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                         const poplar::OptionFlags &options) {
  bool useFloatArithmetic = false;
  poputil::OptionSpec(
      "popops::histogram",
      {{"useFloatArithmetic", poputil::OptionHandler::createWithBool(useFloatArithmetic)}})
      .parse(options);
  checkInputs(input, levels);
  poplar::Tensor output =
      graph.addVariable(useFloatArithmetic ? poplar::FLOAT : poplar::UNSIGNED_INT,
                        {levels.numElements() + 1}, {debugContext, "histogram"});
  graph.setTileMapping(output, 0);
  addHistogram(graph, input, output, false, levels, absoluteOfInput, prog, debugContext);
  return output;
}

void histogram(poplar::Graph &graph, const poplar::Tensor &input, poplar::Tensor &output,
               bool updateOutput, const poplar::Tensor &levels, bool absoluteOfInput,
               poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkInputs(input, levels);
  if (output.elementType() != poplar::FLOAT && output.elementType() != poplar::UNSIGNED_INT)
    fail("output must be FLOAT or UNSIGNED_INT, got " + output.shortString());
  if (output.numElements() != levels.numElements() + 1)
    fail("output " + output.shortString() + " must have one element more than levels " +
         levels.shortString());
  addHistogram(graph, input, output, updateOutput, levels, absoluteOfInput, prog, debugContext);
}

} // namespace popops
