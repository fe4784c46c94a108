// tessera::testing::runVertex: a one-tile graph around one vertex.
#include <tessera/testing/RunVertex.hpp>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <tessera/VertexType.hpp>

#include "core/Suggest.hpp"

namespace tessera::testing {

using namespace poplar;

const VertexResult::Field &VertexResult::find(const std::string &name, Type asType) const {
  auto it = fields.find(name);
  if (it == fields.end()) {
    std::vector<std::string> names;
    for (const auto &[n, _] : fields)
      names.push_back(n);
    throw unknown_field("runVertex result: no tensor field '" + name + "'" +
                        core::didYouMean(name, names) + " (plain members are not read back)");
  }
  if (it->second.type != asType)
    throw type_error("runVertex result: field '" + name + "' holds " + it->second.type.toString() +
                     ", not " + asType.toString());
  return it->second;
}

VertexResult runVertex(const std::string &vertexType,
                       const std::map<std::string, FieldData> &fields,
                       const RunVertexOptions &options) {
  IPUModel model;
  model.tilesPerIPU = 1;
  model.numWorkerContexts = options.numWorkerContexts;
  const Device device = model.createDevice();
  Graph graph(device.getTarget());
  for (const auto &file : options.codeletFiles)
    graph.addCodelets(file, CodeletFileType::Auto, options.compileFlags);

  ComputeSet cs = graph.addComputeSet("runVertex(" + vertexType + ")");
  VertexRef v = graph.addVertex(cs, vertexType);
  graph.setTileMapping(v, 0);
  const auto type = findVertexType(vertexType);

  struct Readback {
    std::string field;
    Type type;
    std::vector<std::string> handles;
  };
  std::vector<Readback> readbacks;
  for (const auto &[name, data] : fields) {
    const FieldInfo *info = type->findField(name);
    if (!info) {
      graph.setFieldSize(v[name], 0); // throws unknown_field, naming the vertex's fields
      continue;
    }
    if (info->kind == FieldKind::Plain || info->kind == FieldKind::PlainVector) {
      if (data.isList())
        throw graph_connection_error("runVertex: field '" + name + "' of '" + vertexType +
                                     "' is a " + toString(info->kind) +
                                     " but was given a list of runs");
      data.initField(graph, v[name]);
      continue;
    }
    const bool list = info->kind == FieldKind::VectorList;
    if (list != data.isList())
      throw graph_connection_error("runVertex: field '" + name + "' of '" + vertexType + "' is a " +
                                   toString(info->kind) + " field but was given " +
                                   (data.isList() ? "a list of runs" : "one run of values"));
    Readback rb{name, info->elementType, {}};
    std::vector<Tensor> tensors;
    for (std::size_t i = 0; i < data.runSizes().size(); ++i) {
      std::string label = name;
      if (list)
        label.append("[").append(std::to_string(i)).append("]");
      Tensor t = graph.addVariable(info->elementType, {data.runSizes()[i]}, label);
      graph.setTileMapping(t, 0);
      data.initTensor(graph, t, i);
      graph.createHostRead("runVertex." + label, t);
      rb.handles.push_back("runVertex." + label);
      tensors.push_back(t);
    }
    if (list)
      graph.connect(v[name], tensors);
    else
      graph.connect(v[name], tensors.front());
    readbacks.push_back(std::move(rb));
  }

  Engine engine(graph, program::Execute(cs), {{"target.hostThreads", "1"}});
  engine.load(device);
  engine.run(0);

  VertexResult result;
  for (const auto &rb : readbacks) {
    auto &field = result.fields[rb.field];
    field.type = rb.type;
    for (std::size_t i = 0; i < rb.handles.size(); ++i) {
      std::vector<unsigned char> bytes(fields.at(rb.field).runSizes()[i] * rb.type.size());
      if (!bytes.empty())
        engine.readTensor(rb.handles[i], bytes.data(), bytes.data() + bytes.size());
      field.runs.push_back(std::move(bytes));
    }
  }
  return result;
}

} // namespace tessera::testing
