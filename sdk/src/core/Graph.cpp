#include <poplar/Graph.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>

#include <poputil/TileMapping.hpp>

#include "core/ElementConversion.hpp"
#include "core/GraphChecks.hpp"
#include "core/GraphData.hpp"
#include "core/Suggest.hpp"
#include "core/TensorData.hpp"

namespace poplar {

namespace core {

std::string describe(const Tensor &t) {
  if (!t.valid())
    return "<invalid tensor>";
  const auto &d = t.data();
  std::string name;
  if (d.graph && !d.regions.empty()) {
    const auto &v = d.graph->variables[d.regions.front().var];
    name = v.name.empty() ? "var" + std::to_string(d.regions.front().var) : v.name;
    unsigned others = 0;
    for (const auto &r : d.regions)
      others += r.var != d.regions.front().var;
    if (others)
      name += " and other variables";
  }
  return (name.empty() ? std::string("tensor") : "'" + name + "'") + " (" + t.shortString() + ")";
}

std::string metadataHandle(const std::string &handle) { return "<metadata of '" + handle + "'>"; }

std::string describeVertex(const GraphData &g, unsigned vertexId) {
  const auto &v = g.vertices[vertexId];
  return "vertex " + std::to_string(vertexId) + " '" + v.type->name + "' in compute set '" +
         g.computeSets[v.computeSet].name + "'";
}

} // namespace core

namespace {

using core::GraphData;
using core::requireSameGraph;
using core::TensorData;

std::uint64_t nextGraphId() {
  static std::atomic<std::uint64_t> next{1};
  return next++;
}

} // namespace

Graph::Graph(const Target &target, replication_factor r)
    : data_(std::make_shared<GraphData>()), target_(target) {
  if (!target.isValid())
    throw invalid_machine_model("Graph needs a valid Target");
  if (r.value == 0)
    throw invalid_machine_model("replication factor must be at least 1");
  data_->id = nextGraphId();
  data_->replicationFactor = r.value;
  if (r.value > 1) {
    // A replica is whole IPUs when the device has enough of them, else a share of one IPU's
    // tiles (small IPU Models in tests and examples).
    const unsigned ipus = target.getNumIPUs(), tilesPerIpu = target.getTilesPerIPU();
    if (ipus % r.value == 0)
      target_ = target.createVirtualTarget(ipus / r.value, tilesPerIpu);
    else if (ipus == 1 && tilesPerIpu % r.value == 0)
      target_ = target.createVirtualTarget(1, tilesPerIpu / r.value);
    else
      throw invalid_machine_model(
          "replication factor " + std::to_string(r.value) + " does not divide the device: " +
          std::to_string(ipus) + " IPU(s) of " + std::to_string(tilesPerIpu) +
          " tiles (each replica needs the same whole number of IPUs, or of tiles on one IPU)");
  }
  data_->target = target_;
}
Graph::Graph(const Device &device, replication_factor r) : Graph(device.getTarget(), r) {}
Graph::Graph(std::shared_ptr<GraphData> data, Target target, unsigned tileBase)
    : data_(std::move(data)), target_(std::move(target)), tileBase_(tileBase) {}
Graph::Graph(Graph &&) noexcept = default;
Graph &Graph::operator=(Graph &&) noexcept = default;
Graph::~Graph() = default;

const Target &Graph::getTarget() const { return target_; }
unsigned Graph::getReplicationFactor() const { return data_->replicationFactor; }

Tensor Graph::addReplicationIndexConstant(const DebugContext &dc) {
  Tensor t = addVariable(UNSIGNED_INT, {}, {dc, "replicationIndex"});
  // Replica 0's value; the engine writes every other replica's index when it loads.
  setInitialValue(t, 0u);
  data_->replicationIndexTensors.push_back(t);
  return t;
}

unsigned Graph::absoluteTile(unsigned tile, const std::function<std::string()> &what) const {
  if (tile >= target_.getNumTiles())
    throw invalid_tile_mapping(what() + ": tile " + std::to_string(tile) +
                               " is out of range; this graph has " +
                               std::to_string(target_.getNumTiles()) + " tiles");
  return tile + tileBase_;
}

// ---- variables ---------------------------------------------------------------------------

namespace {
/// A new variable of `g` and the tensor over all of it (its type already checked).
Tensor newVariable(GraphData &g, const Type &type, ArrayRef<std::size_t> shape, std::string name,
                   Tensor metadata) {
  core::VariableData v;
  v.type = type;
  v.shape.assign(shape.begin(), shape.end());
  v.numElements = core::product(v.shape);
  v.name = std::move(name);
  v.metadata = std::move(metadata);
  const unsigned id = static_cast<unsigned>(g.variables.size());
  g.variables.push_back(std::move(v));
  auto d = std::make_shared<TensorData>();
  d->graph = &g;
  d->type = type;
  d->shape.assign(shape.begin(), shape.end());
  d->numElements = g.variables.back().numElements;
  if (d->numElements)
    d->regions = core::RegionList{core::Region::contiguous(id, 0, d->numElements)};
  return Tensor(std::move(d));
}
} // namespace

Tensor Graph::addVariable(const Type &type, ArrayRef<std::size_t> shape, const DebugContext &dc) {
  if (type.requiresMetadata()) {
    // Poplar gives a QUARTER variable made without metadata a metadata variable of its own.
    Tensor metadata = addVariable(QUARTER_METADATA, {}, {dc, "metadata"});
    setTileMapping(metadata, 0);
    setInitialValue(metadata, static_cast<unsigned char>(0)); // F152, scale 0
    return addVariable(type, metadata, shape, dc);
  }
  if (!type.isValid())
    throw type_error("addVariable '" + dc.getPathName() + "': invalid element type");
  if (!type.isDeviceType())
    throw type_error("addVariable '" + dc.getPathName() + "': element type " + type.toString() +
                     " exists only on the host; no device holds it (use " +
                     (type.isFloatingPoint() ? "FLOAT" : "LONGLONG, INT or UNSIGNED_INT") + ")");
  return newVariable(*data_, type, shape, dc.getPathName(), Tensor());
}

Tensor Graph::addVariable(const Type &type, const Tensor &metadata, ArrayRef<std::size_t> shape,
                          const DebugContext &dc) {
  const std::string what = "addVariable '" + dc.getPathName() + "' of type " + type.toString();
  if (!type.requiresMetadata())
    throw type_error(what + " with metadata " + core::describe(metadata) +
                     ": only types that require metadata (QUARTER) take a metadata tensor");
  if (!metadata.valid())
    throw type_error(what + ": the metadata tensor is invalid (default-constructed); a " +
                     type.toString() + " tensor needs a QUARTER_METADATA tensor to be read");
  requireSameGraph(*data_, metadata, what + " (its metadata)");
  if (metadata.elementType() != QUARTER_METADATA || metadata.numElements() != 1)
    throw type_error(what + ": the metadata " + core::describe(metadata) +
                     " must be one element of type quarter_metadata");
  return newVariable(*data_, type, shape, dc.getPathName(), metadata);
}

Tensor Graph::addVariable(const Type &type, const Tensor &metadata, ArrayRef<std::size_t> shape,
                          VariableMappingMethod mapping, const DebugContext &dc) {
  Tensor t = addVariable(type, metadata, shape, dc);
  if (mapping == VariableMappingMethod::LINEAR)
    poputil::mapTensorLinearly(*this, t);
  return t;
}

Tensor Graph::addVariable(const Type &type, ArrayRef<std::size_t> shape,
                          VariableMappingMethod mapping, const DebugContext &dc) {
  Tensor t = addVariable(type, shape, dc);
  if (mapping == VariableMappingMethod::LINEAR)
    poputil::mapTensorLinearly(*this, t);
  return t;
}

Tensor Graph::addConstantImpl(const Type &type, ArrayRef<std::size_t> shape, Type hostType,
                              const void *values, std::size_t count, bool broadcastOne,
                              const DebugContext &dc) {
  if (type.requiresMetadata())
    throw type_error("addConstant '" + dc.getPathName() + "' of type " + type.toString() +
                     ": host values cannot become " + type.toString() +
                     " without metadata; add a variable with a metadata tensor and write it, or "
                     "popops::cast a FLOAT or HALF constant with a QUARTER_METADATA tensor");
  Tensor t = addVariable(type, shape, dc);
  data_->variables.back().isConstant = true;
  setInitialValueImpl(t, hostType, values, count, broadcastOne);
  return t;
}

Tensor Graph::addConstantHalf(const Type &type, ArrayRef<std::size_t> shape, std::uint16_t bits,
                              const DebugContext &dc) {
  if (type != HALF)
    throw type_error("addConstantHalf '" + dc.getPathName() + "' needs type half, got " +
                     type.toString());
  float f = core::halfToFloat(bits);
  return addConstantImpl(type, shape, FLOAT, &f, 1, true, dc);
}

void Graph::setInitialValueImpl(const Tensor &t, Type hostType, const void *values,
                                std::size_t count, bool broadcastOne) {
  requireSameGraph(*data_, t, "setInitialValue");
  const auto &d = t.data();
  if (!broadcastOne && count != d.numElements)
    throw shape_error("setInitialValue of " + core::describe(t) + ": got " + std::to_string(count) +
                      " values for " + std::to_string(d.numElements) + " elements");
  const std::size_t elemSize = d.type.size();
  std::vector<unsigned char> converted(elemSize * (broadcastOne ? 1 : count));
  core::convertElements(hostType, values, d.type, converted.data(), broadcastOne ? 1 : count);
  std::size_t at = 0;
  for (const auto &r : d.regions) {
    auto &var = data_->variables[r.var];
    if (var.initialValue.empty())
      var.initialValue.assign(var.numElements * var.type.size(), 0);
    for (std::size_t k = 0; k < r.count; ++k, ++at)
      std::memcpy(var.initialValue.data() + r.at(k) * elemSize,
                  converted.data() + (broadcastOne ? 0 : at * elemSize), elemSize);
  }
}

Tensor Graph::clone(const Tensor &t, const DebugContext &dc, TensorCloneMethod method) {
  return clone(t.elementType(), t, dc, method);
}

Tensor Graph::clone(const Type &type, const Tensor &t, const DebugContext &dc,
                    TensorCloneMethod method) {
  requireSameGraph(*data_, t, "clone");
  const auto &src = t.data();
  // A clone of the same type is read under the same metadata as its source.
  const Tensor metadata = type == t.elementType() ? t.getMetadata() : Tensor();
  const auto newVariable = [&](std::size_t n) {
    return metadata.valid() ? addVariable(type, metadata, {n}, dc) : addVariable(type, {n}, dc);
  };
  const bool keepAliases = method == TensorCloneMethod::PRESERVE_ORDER_AND_ALIASES ||
                           method == TensorCloneMethod::GATHER_AND_PRESERVE_TILE_ORDER_AND_ALIASES;
  if (keepAliases && t.containsAliases()) {
    // One new element per distinct source element; the view repeats them as the source does.
    std::map<std::pair<unsigned, std::size_t>, std::size_t> slot;
    std::vector<std::size_t> order;
    order.reserve(src.numElements);
    for (const auto &r : src.regions)
      for (std::size_t k = 0; k < r.count; ++k)
        order.push_back(slot.emplace(std::make_pair(r.var, r.at(k)), slot.size()).first->second);
    Tensor flat = newVariable(slot.size());
    // Map each new element to the tile of its first source occurrence.
    std::vector<bool> mapped(slot.size(), false);
    auto mapping = getTileMapping(t, false);
    std::vector<unsigned> tileOf(src.numElements, core::kNoTile);
    for (unsigned tile = 0; tile < mapping.size(); ++tile)
      for (const auto &iv : mapping[tile])
        for (std::size_t i = iv.begin(); i < iv.end(); ++i)
          tileOf[i] = tile;
    // Decide every new element's tile first, then assign in ascending element order: the
    // interval map appends in O(1) that way, where out-of-order assigns cost O(entries) each.
    std::vector<unsigned> newTile(slot.size(), core::kNoTile);
    for (std::size_t i = 0; i < order.size(); ++i)
      if (!mapped[order[i]] && tileOf[i] != core::kNoTile) {
        newTile[order[i]] = tileOf[i];
        mapped[order[i]] = true;
      }
    auto &var = data_->variables[flat.data().regions.front().var];
    for (std::size_t i = 0; i < newTile.size(); ++i)
      if (newTile[i] != core::kNoTile)
        var.mapping.assign(i, i + 1, newTile[i] + tileBase_);
    core::RegionList regions;
    const unsigned vid = flat.data().regions.front().var;
    for (auto idx : order)
      core::appendRegion(regions, core::Region::contiguous(vid, idx, idx + 1));
    auto d = std::make_shared<TensorData>(src);
    d->type = type;
    d->regions = std::move(regions);
    return Tensor(std::move(d));
  }
  // The new variable stores the elements in the source's memory order, not its view order, so
  // a clone of a column-blocked table (or of any shuffled view) is laid out on each tile
  // exactly like the original and element-wise work over both stays contiguous.
  // Contiguous pieces (strided runs expanded): the order is by memory within a variable.
  const core::RegionList units = core::unitRuns(src.regions);
  std::vector<std::size_t> byMemory(units.size());
  for (std::size_t i = 0; i < byMemory.size(); ++i)
    byMemory[i] = i;
  std::stable_sort(byMemory.begin(), byMemory.end(), [&](std::size_t a, std::size_t b) {
    const auto &ra = units[a], &rb = units[b];
    return ra.var != rb.var ? ra.var < rb.var : ra.begin < rb.begin;
  });
  Tensor flat = newVariable(src.numElements);
  if (src.numElements == 0)
    return flat.reshape(src.shape.vec());
  const unsigned vid = flat.data().regions.front().var;
  std::vector<std::size_t> newBegin(units.size());
  std::size_t at = 0;
  for (std::size_t i : byMemory) {
    const core::Region &r = units[i];
    newBegin[i] = at;
    // Copy the source's tile for each element, in ascending order of the new variable.
    data_->variables[r.var].mapping.forEachOverlap(r.begin, r.next(), [&](const auto &e) {
      data_->variables[vid].mapping.assign(at + (e.begin - r.begin), at + (e.end - r.begin),
                                           e.tile);
    });
    at += r.size();
  }
  core::RegionList regions;
  for (std::size_t i = 0; i < units.size(); ++i)
    core::appendRegion(regions,
                       core::Region::contiguous(vid, newBegin[i], newBegin[i] + units[i].size()));
  auto d = std::make_shared<TensorData>(src);
  d->type = type;
  d->regions = std::move(regions);
  return Tensor(std::move(d));
}

Tensor Graph::cloneN(const Tensor &t, std::size_t N, const DebugContext &dc,
                     TensorCloneMethod method) {
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < N; ++i)
    parts.push_back(clone(t, DebugNameAndId(dc, std::to_string(i)), method).expand({0}));
  if (parts.empty()) {
    std::vector<std::size_t> shape = t.shape();
    shape.insert(shape.begin(), 0);
    return addVariable(t.elementType(), shape, dc);
  }
  return concat(parts, 0);
}

Tensor Graph::getVariable(VariableRef v) const {
  if (v.id >= data_->variables.size())
    throw index_error("no variable with id " + std::to_string(v.id));
  const auto &var = data_->variables[v.id];
  auto d = std::make_shared<TensorData>();
  d->graph = data_.get();
  d->type = var.type;
  d->shape = {var.numElements};
  d->numElements = var.numElements;
  if (var.numElements)
    d->regions = core::RegionList{core::Region::contiguous(v.id, 0, var.numElements)};
  return Tensor(std::move(d));
}

std::string Graph::getDebugStr(VariableRef v) const {
  if (v.id >= data_->variables.size())
    throw index_error("no variable with id " + std::to_string(v.id));
  return data_->variables[v.id].name;
}

bool Graph::isConstant(VariableRef v) const {
  if (v.id >= data_->variables.size())
    throw index_error("no variable with id " + std::to_string(v.id));
  return data_->variables[v.id].isConstant;
}

// ---- tile mapping ------------------------------------------------------------------------

void Graph::setTileMapping(const Tensor &t, unsigned tile) {
  requireSameGraph(*data_, t, "setTileMapping");
  const unsigned abs = absoluteTile(tile, [&] { return "setTileMapping of " + core::describe(t); });
  core::forEachUnitRun(t.data().regions, [&](unsigned var, std::size_t b, std::size_t e) {
    data_->variables[var].mapping.assign(b, e, abs);
  });
}

void Graph::setTileMapping(const Tensor &t, const TileToTensorMapping &mapping) {
  requireSameGraph(*data_, t, "setTileMapping");
  const auto &d = t.data();
  if (mapping.size() > target_.getNumTiles())
    throw invalid_tile_mapping("setTileMapping of " + core::describe(t) + ": the mapping lists " +
                               std::to_string(mapping.size()) + " tiles but the graph has " +
                               std::to_string(target_.getNumTiles()));
  core::RegionIndex index(d);
  struct Piece {
    unsigned var;
    std::size_t begin, end;
    unsigned tile;
  };
  std::vector<Piece> pieces;
  for (unsigned tile = 0; tile < mapping.size(); ++tile)
    for (const auto &iv : mapping[tile]) {
      if (iv.begin() > iv.end() || iv.end() > d.numElements)
        throw index_error("setTileMapping of " + core::describe(t) + ": interval [" +
                          std::to_string(iv.begin()) + ", " + std::to_string(iv.end()) +
                          ") for tile " + std::to_string(tile) + " is outside its " +
                          std::to_string(d.numElements) + " elements");
      core::RegionList regions;
      index.append(regions, iv.begin(), iv.end());
      core::forEachUnitRun(regions, [&](unsigned var, std::size_t b, std::size_t e) {
        pieces.push_back({var, b, e, tile + tileBase_});
      });
    }
  // The mapping arrives tile by tile; assigning in element order keeps each variable's interval
  // map on its O(1) append path. Overlapping intervals (later ones win) keep the given order.
  std::vector<Piece> sorted = pieces;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Piece &a, const Piece &b) {
    return a.var != b.var ? a.var < b.var : a.begin < b.begin;
  });
  bool overlaps = false;
  for (std::size_t i = 1; i < sorted.size() && !overlaps; ++i)
    overlaps = sorted[i].var == sorted[i - 1].var && sorted[i].begin < sorted[i - 1].end;
  for (const Piece &p : overlaps ? pieces : sorted)
    data_->variables[p.var].mapping.assign(p.begin, p.end, p.tile);
}

void Graph::setTileMapping(VertexRef v, unsigned tile) {
  if (v.graph() != data_.get() || v.getId() >= data_->vertices.size())
    throw graph_connection_error("setTileMapping: the vertex does not belong to this graph");
  data_->vertices[v.getId()].tile = absoluteTile(
      tile, [&] { return "setTileMapping of " + core::describeVertex(*data_, v.getId()); });
}

TileToTensorMapping Graph::getTileMapping(const Tensor &t, bool *isComplete) const {
  requireSameGraph(*data_, t, "getTileMapping");
  TileToTensorMapping out(target_.getNumTiles());
  bool complete = true;
  std::size_t at = 0;
  core::forEachUnitRun(t.data().regions, [&](unsigned v, std::size_t rb, std::size_t re) {
    const auto &var = data_->variables[v];
    std::size_t covered = 0;
    var.mapping.forEachOverlap(rb, re, [&](const core::TileIntervalMap::Entry &e) {
      covered += e.end - e.begin;
      if (e.tile < tileBase_ || e.tile - tileBase_ >= out.size()) {
        complete = false;
        return;
      }
      auto &list = out[e.tile - tileBase_];
      std::size_t b = at + (e.begin - rb), en = at + (e.end - rb);
      if (!list.empty() && list.back().end() == b)
        list.back() = Interval(list.back().begin(), en);
      else
        list.emplace_back(b, en);
    });
    if (covered != re - rb)
      complete = false;
    at += re - rb;
  });
  if (isComplete)
    *isComplete = complete;
  return out;
}

TileToTensorMapping Graph::getTileMapping(const Tensor &t, bool requireComplete) const {
  bool complete = true;
  auto m = getTileMapping(t, &complete);
  if (requireComplete && !complete) {
    std::vector<bool> mapped(t.numElements(), false);
    for (const auto &tile : m)
      for (const auto &iv : tile)
        std::fill(mapped.begin() + iv.begin(), mapped.begin() + iv.end(), true);
    const auto first = std::find(mapped.begin(), mapped.end(), false) - mapped.begin();
    throw invalid_tile_mapping("getTileMapping: " + core::describe(t) +
                               " has elements that are not mapped to a tile of this graph "
                               "(the first is element " +
                               std::to_string(first) + ")");
  }
  return m;
}

// ---- host I/O ----------------------------------------------------------------------------

namespace {
DataStream addStream(GraphData &g, StringRef handle, const Type &type, std::size_t n, bool toDevice,
                     ReplicatedStreamMode mode = ReplicatedStreamMode::REPLICATE) {
  if (!type.isValid())
    throw type_error("stream '" + handle.str() + "': invalid element type");
  if (!type.isDeviceType())
    throw type_error("stream '" + handle.str() + "': element type " + type.toString() +
                     " exists only on the host; no device holds it");
  if (g.streamByHandle.count(handle.str()))
    throw graph_object_creation_error("a data stream with handle '" + handle.str() +
                                      "' already exists");
  for (const auto &b : g.remoteBuffers) // one namespace of handles, as addRemoteBuffer checks
    if (b.handle == handle.str())
      throw graph_object_creation_error("stream '" + handle.str() +
                                        "': a remote buffer already has this handle");
  const unsigned id = static_cast<unsigned>(g.streams.size());
  g.streams.push_back({handle.str(), type, n, toDevice, mode});
  g.streamByHandle[handle.str()] = id;
  return DataStream(&g, id);
}
} // namespace

DataStream Graph::addHostToDeviceFIFO(StringRef handle, const Type &elementType,
                                      std::size_t numElements, ReplicatedStreamMode mode,
                                      const OptionFlags &) {
  return addStream(*data_, handle, elementType, numElements, true, mode);
}

DataStream Graph::addDeviceToHostFIFO(StringRef handle, const Type &elementType,
                                      std::size_t numElements, const OptionFlags &) {
  return addStream(*data_, handle, elementType, numElements, false);
}

void Graph::createHostWrite(StringRef handle, const Tensor &t, bool) {
  requireSameGraph(*data_, t, "createHostWrite '" + handle.str() + "'");
  if (!data_->hostWrites.emplace(handle.str(), t).second)
    throw graph_object_creation_error("createHostWrite: handle '" + handle.str() +
                                      "' is already used for another host write");
  if (t.hasMetadata()) // for Engine::writeTensor(handle, metadata, …)
    data_->hostWrites.emplace(core::metadataHandle(handle.str()), t.getMetadata());
}

void Graph::createHostRead(StringRef handle, const Tensor &t, bool) {
  requireSameGraph(*data_, t, "createHostRead '" + handle.str() + "'");
  if (!data_->hostReads.emplace(handle.str(), t).second)
    throw graph_object_creation_error("createHostRead: handle '" + handle.str() +
                                      "' is already used for another host read");
  if (t.hasMetadata()) // for Engine::readTensor(handle, metadata, …)
    data_->hostReads.emplace(core::metadataHandle(handle.str()), t.getMetadata());
}

// ---- structure ---------------------------------------------------------------------------

Function Graph::addFunction(const program::Program &program) {
  data_->functions.push_back(program);
  return Function(data_.get(), static_cast<unsigned>(data_->functions.size() - 1));
}

Graph Graph::createVirtualGraph(unsigned lowerTile, unsigned upperTile) {
  if (lowerTile >= upperTile || upperTile > target_.getNumTiles())
    throw invalid_tile_mapping("createVirtualGraph: tiles [" + std::to_string(lowerTile) + ", " +
                               std::to_string(upperTile) + ") are not a non-empty range within " +
                               std::to_string(target_.getNumTiles()) + " tiles");
  return Graph(data_, target_.createVirtualTarget(1, upperTile - lowerTile), tileBase_ + lowerTile);
}

} // namespace poplar

namespace poplar {
std::string DataStream::handle() const { return graph_->streams.at(id_).handle; }
Type DataStream::elementType() const { return graph_->streams.at(id_).type; }
std::size_t DataStream::numElements() const { return graph_->streams.at(id_).numElements; }
DataStreamType DataStream::type() const {
  return graph_->streams.at(id_).toDevice ? DataStreamType::HostToDeviceFIFO
                                          : DataStreamType::DeviceToHostFIFO;
}
unsigned DataStream::replicationFactor() const { return graph_->replicationFactor; }
ReplicatedStreamMode DataStream::replicatedMode() const { return graph_->streams.at(id_).mode; }
} // namespace poplar
