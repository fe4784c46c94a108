#include "compiler/CycleEstimates.hpp"

#include "profile/CostModel.hpp"

namespace poplar::compiler {

void estimateVertexCycles(CompilerContext &ctx) {
  const auto &graph = ctx.graph;
  auto &out = ctx.result.defaultVertexCycles;
  out.clear();
  out.reserve(ctx.result.vertexObjects.size());
  for (const auto &obj : ctx.result.vertexObjects) {
    const auto &v = graph.vertices[obj.vertexId];
    std::uint64_t elements = 0;
    for (std::size_t f = 0; f < v.fields.size(); ++f) {
      const auto &field = v.fields[f];
      for (const auto &t : field.tensors)
        if (t.valid())
          elements += t.numElements();
      const auto &info = v.type->fields[f];
      if (info.kind == tessera::FieldKind::PlainVector && info.elementType.size())
        elements += field.value.size() / info.elementType.size();
    }
    out.push_back(profile::defaultVertexCycles(elements));
  }
}

} // namespace poplar::compiler
