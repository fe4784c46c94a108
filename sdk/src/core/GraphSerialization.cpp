// Graph::serializeTensors / deserializeTensors and Graph::serialize (proto/tensors.proto).
//
// Both formats carry a checksum so that damaged data is refused before anything is built:
// Binary is a fixed header (magic, payload length, FNV-1a 64 checksum of the payload) and a
// Protocol Buffers payload; JSON is the Protocol Buffers JSON mapping of a file message whose
// checksum covers its body's deterministic binary encoding. Everything read is checked against
// itself and against this graph (types, element ranges, tile numbers) before the first
// variable is added, so a bad stream throws a poplar_error and leaves the graph unchanged.
#include <poplar/Graph.hpp>

#include <algorithm>
#include <cstdio>
#include <istream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <string_view>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/json_util.h>

#include "core/GraphChecks.hpp"
#include "core/GraphData.hpp"
#include "core/TensorData.hpp"
#include "tensors.pb.h"

namespace poplar {

namespace {

namespace pb = tessera::tensors::pb;

constexpr std::string_view kTensorMagic = "TSRTNSR1";
constexpr std::string_view kGraphMagic = "TSRGRPH1";
constexpr std::size_t kHeaderBytes = 8 + 8 + 8;
constexpr const char *kTensorFormat = "tessera-tensors";
constexpr const char *kGraphFormat = "tessera-graph";
constexpr std::uint32_t kVersion = 1;
/// Larger element counts are refused: no tile memory holds them, and a corrupt count must not
/// make later look-ups allocate per element.
constexpr std::uint64_t kMaxElements = std::uint64_t(1) << 40;

/// FNV-1a, 64 bits: the checksum of both formats.
std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hex16(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

void putU64(std::string &out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
std::uint64_t getU64(std::string_view in) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}

std::string deterministicBytes(const google::protobuf::Message &m) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream raw(&bytes);
    google::protobuf::io::CodedOutputStream coded(&raw);
    coded.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&coded);
  }
  return bytes;
}

std::string readAll(std::istream &in) {
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return bytes;
}

std::optional<Type> typeFromName(const std::string &name) {
  for (unsigned i = 1; i < kNumTypeIds; ++i) {
    Type t{static_cast<TypeId>(i)};
    if (t.toString() == name)
      return t;
  }
  return std::nullopt;
}

/// Writes `body` in `format` behind its checksum.
template <class File, class Body>
void writeSealed(std::ostream &out, const Body &body, SerializationFormat format,
                 std::string_view magic, const char *formatName, const char *what) {
  if (format == SerializationFormat::Binary) {
    const std::string payload = deterministicBytes(body);
    std::string header(magic);
    putU64(header, payload.size());
    putU64(header, fnv1a64(payload));
    out.write(header.data(), std::streamsize(header.size()));
    out.write(payload.data(), std::streamsize(payload.size()));
  } else if (format == SerializationFormat::JSON) {
    File file;
    file.set_format(formatName);
    file.set_version(kVersion);
    file.set_checksum(hex16(fnv1a64(deterministicBytes(body))));
    *file.mutable_body() = body;
    std::string json;
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = true;
    options.preserve_proto_field_names = true;
    const auto status = google::protobuf::util::MessageToJsonString(file, &json, options);
    if (!status.ok())
      throw poplar_error(std::string(what) + ": cannot write JSON (" + status.ToString() + ")");
    out << json;
  } else {
    throw poplar_error(std::string(what) + ": unknown serialization format " +
                       std::to_string(static_cast<int>(format)));
  }
  if (!out)
    throw runtime_error(std::string(what) + ": writing to the stream failed");
}

/// Reads what writeSealed wrote; throws parse_error for anything damaged.
template <class File, class Body>
Body readSealed(std::istream &in, SerializationFormat format, std::string_view magic,
                const char *formatName, const char *what) {
  const std::string bytes = readAll(in);
  const std::string prefix = std::string(what) + ": ";
  if (bytes.empty())
    throw parse_error(prefix + "the stream is empty");
  Body body;
  if (format == SerializationFormat::Binary) {
    if (bytes.size() < kHeaderBytes)
      throw parse_error(prefix + "the stream is truncated (" + std::to_string(bytes.size()) +
                        " bytes, shorter than the " + std::to_string(kHeaderBytes) +
                        "-byte header)");
    const std::string_view view(bytes);
    if (view.substr(0, 8) != magic) {
      const bool json = bytes.find_first_not_of(" \t\r\n") != std::string::npos &&
                        bytes[bytes.find_first_not_of(" \t\r\n")] == '{';
      throw parse_error(prefix + "the stream does not start with the Tessera " +
                        (magic == kTensorMagic ? "tensor" : "graph") + " header" +
                        (json ? " (it looks like JSON: pass SerializationFormat::JSON)" : ""));
    }
    const std::uint64_t length = getU64(view.substr(8, 8));
    const std::uint64_t checksum = getU64(view.substr(16, 8));
    const std::size_t have = bytes.size() - kHeaderBytes;
    if (length != have)
      throw parse_error(prefix + "the stream is " + (length > have ? "truncated" : "too long") +
                        ": the header announces " + std::to_string(length) + " payload bytes but " +
                        std::to_string(have) + " follow");
    const std::string_view payload = view.substr(kHeaderBytes);
    if (fnv1a64(payload) != checksum)
      throw parse_error(prefix + "checksum mismatch: the payload is corrupt (expected " +
                        hex16(checksum) + ", computed " + hex16(fnv1a64(payload)) + ")");
    if (!body.ParseFromArray(payload.data(), static_cast<int>(payload.size())))
      throw parse_error(prefix + "the payload does not decode");
  } else if (format == SerializationFormat::JSON) {
    File file;
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = false;
    const auto status = google::protobuf::util::JsonStringToMessage(bytes, &file, options);
    if (!status.ok())
      throw parse_error(prefix + "the JSON does not parse (" + std::string(status.message()) + ")");
    if (file.format() != formatName)
      throw parse_error(prefix + "the JSON's \"format\" is '" + file.format() + "', not '" +
                        formatName + "'");
    if (file.version() != kVersion)
      throw parse_error(prefix + "format version " + std::to_string(file.version()) +
                        " is not this SDK's (" + std::to_string(kVersion) + ")");
    const std::string computed = hex16(fnv1a64(deterministicBytes(file.body())));
    if (file.checksum() != computed)
      throw parse_error(prefix +
                        "checksum mismatch: the JSON's body is corrupt (\"checksum\" is '" +
                        file.checksum() + "', the body's is '" + computed + "')");
    body = file.body();
  } else {
    throw poplar_error(prefix + "unknown serialization format " +
                       std::to_string(static_cast<int>(format)));
  }
  return body;
}

/// Product of `shape`, or nullopt when it overflows kMaxElements.
std::optional<std::uint64_t>
checkedProduct(const google::protobuf::RepeatedField<std::uint64_t> &shape) {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) {
    if (d != 0 && n > kMaxElements / d)
      return std::nullopt;
    n *= d;
  }
  return n > kMaxElements ? std::nullopt : std::optional<std::uint64_t>(n);
}

std::string shapeText(const google::protobuf::RepeatedField<std::uint64_t> &shape) {
  std::string s = "{";
  for (int i = 0; i < shape.size(); ++i) {
    if (i)
      s += ',';
    s += std::to_string(shape[i]);
  }
  return s + "}";
}

void setShape(google::protobuf::RepeatedField<std::uint64_t> *out,
              const std::vector<std::size_t> &shape) {
  for (auto d : shape)
    out->Add(d);
}

/// `v` as written: mapping in this graph's tile numbers.
pb::Variable encodeVariable(const core::VariableData &v, unsigned varId, unsigned tileBase,
                            unsigned numTiles) {
  pb::Variable m;
  m.set_type(v.type.toString());
  setShape(m.mutable_shape(), v.shape);
  m.set_name(v.name);
  m.set_is_constant(v.isConstant);
  for (const auto &e : v.mapping.entries()) {
    if (e.tile < tileBase || e.tile - tileBase >= numTiles)
      throw invalid_tile_mapping("serializing variable " + std::to_string(varId) + " '" + v.name +
                                 "': elements [" + std::to_string(e.begin) + ", " +
                                 std::to_string(e.end) +
                                 ") are mapped to a tile outside this graph");
    m.add_map_begin(e.begin);
    m.add_map_end(e.end);
    m.add_map_tile(e.tile - tileBase);
  }
  if (!v.initialValue.empty())
    m.set_initial_value(v.initialValue.data(), v.initialValue.size());
  return m;
}

pb::TensorView encodeView(const Tensor &t, const std::function<unsigned(unsigned)> &varIndex) {
  pb::TensorView m;
  const auto &d = t.data();
  m.set_type(d.type.toString());
  setShape(m.mutable_shape(), d.shape);
  core::forEachUnitRun(d.regions, [&](unsigned var, std::size_t b, std::size_t e) {
    m.add_region_var(varIndex(var));
    m.add_region_begin(b);
    m.add_region_end(e);
  });
  return m;
}

/// A variable checked and ready to add.
struct CheckedVariable {
  Type type;
  std::vector<std::size_t> shape;
  std::uint64_t numElements;
};

} // namespace

// ---- tensors -------------------------------------------------------------------------------

void Graph::serializeTensors(std::ostream &out, ArrayRef<Tensor> tensors,
                             SerializationFormat format) const {
  pb::TensorSet set;
  set.set_num_tiles(target_.getNumTiles());
  std::map<unsigned, unsigned> index; // graph variable id -> position in set.variables
  auto varIndex = [&](unsigned var) {
    auto [it, added] = index.emplace(var, static_cast<unsigned>(index.size()));
    if (added)
      *set.add_variables() =
          encodeVariable(data_->variables[var], var, tileBase_, target_.getNumTiles());
    return it->second;
  };
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    core::requireSameGraphLazy(*data_, tensors[i],
                               [&] { return "serializeTensors: tensor " + std::to_string(i); });
    *set.add_tensors() = encodeView(tensors[i], varIndex);
  }
  writeSealed<pb::TensorFile>(out, set, format, kTensorMagic, kTensorFormat, "serializeTensors");
}

std::vector<Tensor> Graph::deserializeTensors(std::istream &in, SerializationFormat format) {
  const pb::TensorSet set = readSealed<pb::TensorFile, pb::TensorSet>(
      in, format, kTensorMagic, kTensorFormat, "deserializeTensors");
  const std::string prefix = "deserializeTensors: ";

  // Check everything before adding anything.
  std::vector<CheckedVariable> vars;
  vars.reserve(set.variables_size());
  for (int i = 0; i < set.variables_size(); ++i) {
    const auto &v = set.variables(i);
    const std::string name = "variable " + std::to_string(i) + " '" + v.name() + "'";
    const auto type = typeFromName(v.type());
    if (!type || !type->isDeviceType())
      throw parse_error(prefix + name + " has element type '" + v.type() +
                        "', which is not a device type");
    const auto n = checkedProduct(v.shape());
    if (!n)
      throw parse_error(prefix + name + " has shape " + shapeText(v.shape()) +
                        ", more elements than any device holds");
    if (v.map_begin_size() != v.map_end_size() || v.map_begin_size() != v.map_tile_size())
      throw parse_error(prefix + name + ": its tile mapping lists are of different lengths");
    std::uint64_t previousEnd = 0;
    for (int k = 0; k < v.map_begin_size(); ++k) {
      const std::uint64_t b = v.map_begin(k), e = v.map_end(k);
      if (b >= e || e > *n || b < previousEnd)
        throw parse_error(prefix + name + ": tile mapping interval [" + std::to_string(b) + ", " +
                          std::to_string(e) + ") is empty, out of order or outside its " +
                          std::to_string(*n) + " elements");
      if (v.map_tile(k) >= target_.getNumTiles())
        throw invalid_tile_mapping(prefix + name + " has elements [" + std::to_string(b) + ", " +
                                   std::to_string(e) + ") on tile " +
                                   std::to_string(v.map_tile(k)) + " but this graph has " +
                                   std::to_string(target_.getNumTiles()) + " tiles");
      previousEnd = e;
    }
    if (!v.initial_value().empty() && v.initial_value().size() != *n * type->size())
      throw parse_error(prefix + name + ": its initial value has " +
                        std::to_string(v.initial_value().size()) + " bytes, not " +
                        std::to_string(*n * type->size()));
    vars.push_back({*type, std::vector<std::size_t>(v.shape().begin(), v.shape().end()), *n});
  }
  std::vector<Type> tensorTypes;
  for (int i = 0; i < set.tensors_size(); ++i) {
    const auto &t = set.tensors(i);
    const std::string name = "tensor " + std::to_string(i);
    const auto type = typeFromName(t.type());
    if (!type || !type->isDeviceType())
      throw parse_error(prefix + name + " has element type '" + t.type() +
                        "', which is not a device type");
    const auto n = checkedProduct(t.shape());
    if (!n)
      throw parse_error(prefix + name + " has shape " + shapeText(t.shape()) +
                        ", more elements than any device holds");
    if (t.region_var_size() != t.region_begin_size() || t.region_var_size() != t.region_end_size())
      throw parse_error(prefix + name + ": its region lists are of different lengths");
    std::uint64_t total = 0;
    for (int k = 0; k < t.region_var_size(); ++k) {
      const std::uint32_t var = t.region_var(k);
      if (var >= vars.size())
        throw parse_error(prefix + name + " refers to variable " + std::to_string(var) +
                          " but only " + std::to_string(vars.size()) + " were written");
      const std::uint64_t b = t.region_begin(k), e = t.region_end(k);
      if (b >= e || e > vars[var].numElements)
        throw parse_error(prefix + name + ": region [" + std::to_string(b) + ", " +
                          std::to_string(e) + ") of variable " + std::to_string(var) +
                          " is empty or outside its " + std::to_string(vars[var].numElements) +
                          " elements");
      if (vars[var].type.size() != type->size())
        throw parse_error(prefix + name + " is of type " + t.type() + " but variable " +
                          std::to_string(var) + " holds " + vars[var].type.toString() +
                          ", of another size");
      total += e - b;
      if (total > kMaxElements)
        break;
    }
    if (total != *n)
      throw parse_error(prefix + name + " has shape " + shapeText(t.shape()) + " (" +
                        std::to_string(*n) + " elements) but its regions cover " +
                        std::to_string(total));
    tensorTypes.push_back(*type);
  }

  // Build.
  std::vector<unsigned> newIds;
  for (int i = 0; i < set.variables_size(); ++i) {
    const auto &v = set.variables(i);
    Tensor t = addVariable(vars[i].type, vars[i].shape, DebugContext(v.name()));
    (void)t;
    const auto id = static_cast<unsigned>(data_->variables.size() - 1);
    auto &var = data_->variables[id];
    var.isConstant = v.is_constant();
    for (int k = 0; k < v.map_begin_size(); ++k)
      var.mapping.assign(v.map_begin(k), v.map_end(k), v.map_tile(k) + tileBase_);
    if (!v.initial_value().empty())
      var.initialValue.assign(v.initial_value().begin(), v.initial_value().end());
    newIds.push_back(id);
  }
  std::vector<Tensor> out;
  out.reserve(set.tensors_size());
  for (int i = 0; i < set.tensors_size(); ++i) {
    const auto &t = set.tensors(i);
    auto d = std::make_shared<core::TensorData>();
    d->graph = data_.get();
    d->type = tensorTypes[i];
    d->shape.assign(t.shape().begin(), t.shape().end());
    d->numElements = core::product(d->shape);
    core::RegionList regions;
    for (int k = 0; k < t.region_var_size(); ++k)
      core::appendRegion(regions, core::Region::contiguous(newIds[t.region_var(k)],
                                                           t.region_begin(k), t.region_end(k)));
    d->regions = std::move(regions);
    out.emplace_back(std::move(d));
  }
  return out;
}

// ---- the whole graph -----------------------------------------------------------------------

void Graph::serialize(std::ostream &out, SerializationFormat format) const {
  serialize(out, {}, format);
}

void Graph::serialize(std::ostream &out, ArrayRef<program::Program> progs,
                      SerializationFormat format) const {
  pb::GraphDescription g;
  g.set_target(target_.getTargetSystemString());
  g.set_num_tiles(target_.getNumTiles());
  g.set_replication_factor(data_->replicationFactor);
  const auto &vars = data_->variables;
  for (unsigned i = 0; i < vars.size(); ++i) {
    // A virtual graph describes the variables mapped elsewhere too; their tiles are left out.
    pb::Variable v;
    try {
      v = encodeVariable(vars[i], i, tileBase_, target_.getNumTiles());
    } catch (const invalid_tile_mapping &) {
      v = encodeVariable(vars[i], i, 0, ~0u);
      v.clear_map_begin();
      v.clear_map_end();
      v.clear_map_tile();
    }
    *g.add_variables() = std::move(v);
  }
  for (const auto &cs : data_->computeSets) {
    auto *m = g.add_compute_sets();
    m->set_name(cs.name);
    for (unsigned v : cs.vertices)
      m->add_vertices(v);
  }
  auto identity = [](unsigned var) { return var; };
  for (const auto &v : data_->vertices) {
    auto *m = g.add_vertices();
    m->set_type(v.type->name);
    m->set_compute_set(v.computeSet);
    m->set_tile(v.tile == core::kNoTile ? -1 : std::int64_t(v.tile) - std::int64_t(tileBase_));
    for (std::size_t f = 0; f < v.fields.size() && f < v.type->fields.size(); ++f)
      for (const auto &t : v.fields[f].tensors)
        if (t.valid()) {
          m->add_field(v.type->fields[f].name);
          *m->add_connection() = encodeView(t, identity);
        }
  }
  for (const auto &s : data_->streams) {
    auto *m = g.add_streams();
    m->set_handle(s.handle);
    m->set_type(s.type.toString());
    m->set_num_elements(s.numElements);
    m->set_to_device(s.toDevice);
  }
  g.set_num_programs(static_cast<std::uint32_t>(progs.size()));
  writeSealed<pb::GraphFile>(out, g, format, kGraphMagic, kGraphFormat, "Graph::serialize");
}

} // namespace poplar
