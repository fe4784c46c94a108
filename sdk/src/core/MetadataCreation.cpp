#include <poplar/MetadataCreation.hpp>

#include <string>
#include <vector>

#include <poplar/exceptions.hpp>

#include "core/GraphData.hpp"

namespace poplar {

namespace {

// The documented range of a metadata tensor's scale (QuarterMetadata itself packs -32 too).
constexpr int kMinScale = -31;
constexpr int kMaxScale = 31;

unsigned char packedMetadata(const char *function, QuarterMetadata::Format format, int scale) {
  if (scale < kMinScale || scale > kMaxScale)
    throw index_error(std::string(function) + ": fp8Scale " + std::to_string(scale) +
                      " is out of range; it must lie in [" + std::to_string(kMinScale) + ", " +
                      std::to_string(kMaxScale) + "]");
  return QuarterMetadata(format, static_cast<signed char>(scale)).getBinary();
}

} // namespace

Tensor createConstantMetadataTensor(Graph &graph, QuarterMetadata::Format fp8Format, int fp8Scale,
                                    const DebugContext &dc) {
  const unsigned char packed = packedMetadata("createConstantMetadataTensor", fp8Format, fp8Scale);
  Tensor t = graph.addConstant<unsigned char>(QUARTER_METADATA, {}, packed, {dc, "metadata"});
  graph.setTileMapping(t, 0);
  return t;
}

Tensor createVariableMetadataTensor(Graph &graph, QuarterMetadata::Format fp8Format, int fp8Scale,
                                    const DebugContext &dc) {
  const unsigned char packed = packedMetadata("createVariableMetadataTensor", fp8Format, fp8Scale);
  Tensor t = graph.addVariable(QUARTER_METADATA, {}, {dc, "metadata"});
  graph.setTileMapping(t, 0);
  graph.setInitialValue(t, packed);
  return t;
}

Tensor createVariableMetadataTensor(Graph &graph, QuarterMetadata::Format fp8Format,
                                    const Tensor &fp8Scale, program::Sequence &prog,
                                    const DebugContext &dc) {
  Tensor t = graph.addVariable(QUARTER_METADATA, {}, {dc, "metadata"});
  graph.setTileMapping(t, 0);
  setMetadataTensor(graph, fp8Format, fp8Scale, t, prog, dc);
  return t;
}

void setMetadataTensor(Graph &graph, QuarterMetadata::Format fp8Format, const Tensor &fp8Scale,
                       const Tensor &metadataOut, program::Sequence &prog, const DebugContext &dc) {
  if (!metadataOut.valid() || metadataOut.elementType() != QUARTER_METADATA ||
      metadataOut.numElements() != 1)
    throw type_error("setMetadataTensor: metadataOut " + core::describe(metadataOut) +
                     " must be one element of type quarter_metadata");
  if (!fp8Scale.valid() || fp8Scale.numElements() != 1 ||
      fp8Scale.elementType().isFloatingPoint() || fp8Scale.elementType().requiresMetadata() ||
      fp8Scale.elementType() == QUARTER_METADATA)
    throw type_error("setMetadataTensor: fp8Scale " + core::describe(fp8Scale) +
                     " must be one element of an integer type");
  // No vertex needed: a Switch on the scale copies the packed byte from a table of the 63
  // possible values (one constant of 63 bytes).
  std::vector<unsigned char> table;
  for (int scale = kMinScale; scale <= kMaxScale; ++scale)
    table.push_back(QuarterMetadata(fp8Format, static_cast<signed char>(scale)).getBinary());
  Tensor packed = graph.addConstant<unsigned char>(QUARTER_METADATA, {table.size()}, table.data(),
                                                   {dc, "metadataTable"});
  graph.setTileMapping(packed, 0);
  program::Switch choose(
      fp8Scale.reshape({}),
      program::Abort("setMetadataTensor: the scale in " + core::describe(fp8Scale) +
                     " is out of range; it must lie in [" + std::to_string(kMinScale) + ", " +
                     std::to_string(kMaxScale) + "]"),
      {dc, "setMetadata"});
  for (int scale = kMinScale; scale <= kMaxScale; ++scale)
    choose.add(scale,
               program::Copy(packed[scale - kMinScale].reshape(metadataOut.shape()), metadataOut));
  prog.add(choose);
}

} // namespace poplar
