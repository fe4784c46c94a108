// The compute side of Graph: compute sets, vertices and their field connections.
#include <poplar/Graph.hpp>

#include <algorithm>

#include "core/ElementConversion.hpp"
#include "core/GraphChecks.hpp"
#include "core/GraphData.hpp"
#include "core/Suggest.hpp"

namespace poplar {

namespace {
using core::GraphData;
using core::requireSameGraph;
using tessera::FieldDirection;
using tessera::FieldKind;
} // namespace

ComputeSet Graph::addComputeSet(const DebugContext &dc) {
  const unsigned id = static_cast<unsigned>(data_->computeSets.size());
  data_->computeSets.push_back(
      {dc.getPathName().empty() ? "cs" + std::to_string(id) : dc.getPathName(), {}});
  return ComputeSet(data_.get(), id);
}

VertexRef Graph::addVertex(ComputeSet cs, StringRef vertexType) {
  if (cs.graph() != data_.get() || cs.getId() >= data_->computeSets.size())
    throw graph_object_creation_error("addVertex '" + vertexType.str() +
                                      "': the compute set does not belong to this graph");
  auto type = tessera::findVertexType(vertexType.str());
  if (!type)
    throw unknown_vertex_type(
        "unknown vertex type '" + vertexType.str() + "'" +
        core::didYouMean(vertexType.str(), tessera::registeredVertexTypeNames()) +
        "; add its codelets to the graph first");
  core::VertexData v;
  v.type = type;
  v.computeSet = cs.getId();
  v.fields.resize(type->fields.size());
  const unsigned id = static_cast<unsigned>(data_->vertices.size());
  data_->vertices.push_back(std::move(v));
  data_->computeSets[cs.getId()].vertices.push_back(id);
  return VertexRef(data_.get(), id);
}

VertexRef Graph::addVertex(ComputeSet cs, StringRef vertexType,
                           ArrayRef<ConnectionDesc> connections) {
  VertexRef v = addVertex(cs, vertexType);
  for (const auto &c : connections) {
    if (c.valueType.isValid())
      setFieldValueImpl(v[c.field], c.valueType, c.value.data(), 1);
    else if (c.isList)
      connect(v[c.field], c.tensors);
    else
      connect(v[c.field], c.tensors.front());
  }
  return v;
}

namespace {

struct ResolvedField {
  core::VertexData *vertex;
  const tessera::FieldInfo *info;
  core::FieldState *state;
};

ResolvedField resolve(GraphData &g, const FieldRef &f, const char *op) {
  const VertexRef &v = f.vertex();
  if (v.graph() != &g || v.getId() >= g.vertices.size())
    throw graph_connection_error(std::string(op) + " of field '" + f.name() +
                                 "': the vertex does not belong to this graph");
  auto &vd = g.vertices[v.getId()];
  const auto *info = vd.type->findField(f.name());
  if (!info) {
    std::vector<std::string> names;
    std::string list;
    for (const auto &fi : vd.type->fields) {
      names.push_back(fi.name);
      list += (list.empty() ? "" : ", ") + fi.name;
    }
    throw unknown_field(std::string(op) + ": " + core::describeVertex(g, v.getId()) +
                        " has no field '" + f.name() + "'" + core::didYouMean(f.name(), names) +
                        "; its fields are: " + (list.empty() ? "(none)" : list));
  }
  return {&vd, info, &vd.fields[info - vd.type->fields.data()]};
}

std::string fieldName(GraphData &g, const FieldRef &f) {
  return "field '" + f.name() + "' of " + core::describeVertex(g, f.vertex().getId());
}

void checkElement(GraphData &g, const FieldRef &f, const ResolvedField &r, const Tensor &t) {
  requireSameGraphLazy(g, t, [&] { return "connect " + fieldName(g, f); });
  // Codelets read QUARTER_METADATA as `MetadataType` (unsigned char, <poplar/QuarterFloat.hpp>).
  const bool metadataAsBytes =
      t.elementType() == QUARTER_METADATA && r.info->elementType == UNSIGNED_CHAR;
  if (t.elementType() != r.info->elementType && !metadataAsBytes)
    throw graph_connection_error("connect " + fieldName(g, f) + ": the field holds " +
                                 r.info->elementType.toString() + " but " + core::describe(t) +
                                 " holds " + t.elementType().toString());
  if (r.info->direction != FieldDirection::In && t.containsConstant())
    throw graph_connection_error("connect " + fieldName(g, f) + ": " +
                                 std::string(tessera::toString(r.info->direction)) +
                                 " field connected to constant " + core::describe(t));
}

} // namespace

void Graph::connect(FieldRef field, const Tensor &t) {
  auto r = resolve(*data_, field, "connect");
  switch (r.info->kind) {
  case FieldKind::Scalar:
    checkElement(*data_, field, r, t);
    if (t.numElements() != 1)
      throw graph_connection_error("connect " + fieldName(*data_, field) +
                                   ": a scalar field needs a one-element tensor, got " +
                                   core::describe(t));
    r.state->tensors = {t};
    r.state->connected = true;
    return;
  case FieldKind::Vector:
    checkElement(*data_, field, r, t);
    if (r.state->size && *r.state->size != t.numElements())
      throw graph_connection_error("connect " + fieldName(*data_, field) + ": setFieldSize gave " +
                                   std::to_string(*r.state->size) + " elements but " +
                                   core::describe(t) + " has " + std::to_string(t.numElements()));
    r.state->tensors = {t};
    r.state->connected = true;
    return;
  case FieldKind::VectorList: {
    if (!field.isIndexed())
      throw graph_connection_error("connect " + fieldName(*data_, field) +
                                   ": a VectorList field takes a list of tensors, or an index "
                                   "(v[\"field\"][i]) after setFieldSize");
    checkElement(*data_, field, r, t);
    if (!r.state->size)
      throw no_size_specified("connect " + fieldName(*data_, field) + "[" +
                              std::to_string(field.index()) +
                              "]: call setFieldSize on the VectorList field first");
    if (field.index() >= *r.state->size)
      throw index_error("connect " + fieldName(*data_, field) + ": index " +
                        std::to_string(field.index()) + " is out of range for its size " +
                        std::to_string(*r.state->size));
    r.state->tensors[field.index()] = t;
    r.state->connected = std::all_of(r.state->tensors.begin(), r.state->tensors.end(),
                                     [](const Tensor &x) { return x.valid(); });
    return;
  }
  case FieldKind::Plain:
  case FieldKind::PlainVector:
    throw graph_connection_error("connect " + fieldName(*data_, field) +
                                 ": it is a plain member, not a tensor field; set it with "
                                 "setInitialValue");
  }
}

void Graph::connect(FieldRef field, ArrayRef<Tensor> tensors) {
  auto r = resolve(*data_, field, "connect");
  if (r.info->kind != FieldKind::VectorList)
    throw graph_connection_error("connect " + fieldName(*data_, field) + ": a list of " +
                                 std::to_string(tensors.size()) +
                                 " tensors needs a VectorList field, but this field is a " +
                                 tessera::toString(r.info->kind));
  if (r.state->size && *r.state->size != tensors.size())
    throw graph_connection_error("connect " + fieldName(*data_, field) + ": setFieldSize gave " +
                                 std::to_string(*r.state->size) + " elements but " +
                                 std::to_string(tensors.size()) + " tensors were connected");
  for (const auto &t : tensors)
    checkElement(*data_, field, r, t);
  r.state->tensors.assign(tensors.begin(), tensors.end());
  r.state->size = tensors.size();
  r.state->connected = true;
}

void Graph::setFieldSize(FieldRef field, std::size_t size) {
  auto r = resolve(*data_, field, "setFieldSize");
  switch (r.info->kind) {
  case FieldKind::VectorList:
    if (r.state->size && *r.state->size != size && r.state->connected)
      throw graph_connection_error("setFieldSize " + fieldName(*data_, field) + " to " +
                                   std::to_string(size) + ": already connected with " +
                                   std::to_string(*r.state->size) + " elements");
    r.state->size = size;
    r.state->tensors.resize(size);
    r.state->connected = size == 0 || std::all_of(r.state->tensors.begin(), r.state->tensors.end(),
                                                  [](const Tensor &x) { return x.valid(); });
    return;
  case FieldKind::Vector:
    if (r.state->connected && r.state->tensors.front().numElements() != size)
      throw graph_connection_error("setFieldSize " + fieldName(*data_, field) + " to " +
                                   std::to_string(size) + ": it is connected to " +
                                   core::describe(r.state->tensors.front()));
    r.state->size = size;
    return;
  default:
    throw graph_connection_error("setFieldSize " + fieldName(*data_, field) + ": a " +
                                 tessera::toString(r.info->kind) + " field has no size to set");
  }
}

void Graph::setFieldValueImpl(FieldRef field, Type hostType, const void *values,
                              std::size_t count) {
  auto r = resolve(*data_, field, "setInitialValue");
  if (r.info->kind != FieldKind::Plain && r.info->kind != FieldKind::PlainVector)
    throw graph_connection_error("setInitialValue " + fieldName(*data_, field) + ": it is a " +
                                 std::string(tessera::toString(r.info->kind)) +
                                 " tensor field; connect a tensor to it instead");
  if (r.info->kind == FieldKind::Plain && count != 1)
    throw graph_connection_error("setInitialValue " + fieldName(*data_, field) +
                                 ": a plain scalar member takes one value, got " +
                                 std::to_string(count));
  const Type type = r.info->elementType;
  r.state->value.assign(count * type.size(), 0);
  core::convertElements(hostType, values, type, r.state->value.data(), count);
  r.state->size = count;
  r.state->connected = true;
}

void Graph::setPerfEstimate(const VertexRef &v, std::uint64_t cycles, std::uint64_t flops) {
  if (v.graph() != data_.get() || v.getId() >= data_->vertices.size())
    throw graph_connection_error("setPerfEstimate: the vertex does not belong to this graph");
  data_->vertices[v.getId()].perfEstimate = cycles;
  data_->vertices[v.getId()].flops = flops;
}

} // namespace poplar

namespace poplar {
void Graph::setPerfEstimate(const VertexRef &v, const VertexPerfEstimate &estimate) {
  setPerfEstimate(v, estimate.cycles, estimate.flops);
}
} // namespace poplar
