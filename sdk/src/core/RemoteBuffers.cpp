// Remote buffers on the graph side: Graph::addRemoteBuffer, the RemoteBuffer handle and the
// program::Copy forms that move rows between a remote buffer and a tensor. Shapes and types are
// checked here, when the program is built; offsets are checked when the copy runs
// (engine/HostIo.cpp).
#include <string>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/exceptions.hpp>

#include "core/GraphData.hpp"
#include "core/ProgramNode.hpp"

namespace poplar {

RemoteBuffer Graph::addRemoteBuffer(StringRef handle, const Type &elementType,
                                    std::size_t numElements, std::size_t repeats,
                                    bool rearrangeOnHost, bool optimiseMemory) {
  core::GraphData &g = *data_;
  const std::string name = handle.str();
  const std::string what = "addRemoteBuffer '" + name + "'";
  if (!elementType.isValid())
    throw type_error(what + ": invalid element type");
  if (!elementType.isDeviceType())
    throw type_error(what + ": element type " + elementType.toString() +
                     " exists only on the host; no device holds it");
  if (numElements == 0 || repeats == 0)
    throw graph_object_creation_error(what +
                                      ": a remote buffer needs at least one element per "
                                      "row and one row (got " +
                                      std::to_string(numElements) + " elements × " +
                                      std::to_string(repeats) + " rows)");
  if (numElements > (std::size_t(1) << 48) / elementType.size() / repeats)
    throw graph_object_creation_error(what + ": " + std::to_string(numElements) + " elements × " +
                                      std::to_string(repeats) +
                                      " rows is more than the host can address");
  if (g.streamByHandle.count(name))
    throw graph_object_creation_error(what + ": a data stream already has this handle");
  for (const auto &b : g.remoteBuffers)
    if (b.handle == name)
      throw graph_object_creation_error(what + ": a remote buffer with this handle already exists");
  g.remoteBuffers.push_back(
      {name, elementType, numElements, repeats, rearrangeOnHost, optimiseMemory});
  return RemoteBuffer(&g, static_cast<unsigned>(g.remoteBuffers.size() - 1));
}

std::string RemoteBuffer::handle() const { return graph_->remoteBuffers.at(id_).handle; }
Type RemoteBuffer::elementType() const { return graph_->remoteBuffers.at(id_).type; }
std::size_t RemoteBuffer::numElements() const { return graph_->remoteBuffers.at(id_).numElements; }
std::size_t RemoteBuffer::getRepeats() const { return graph_->remoteBuffers.at(id_).repeats; }
bool RemoteBuffer::isRearrangeOnHost() const {
  return graph_->remoteBuffers.at(id_).rearrangeOnHost;
}
bool RemoteBuffer::isOptimisedForMemory() const {
  return graph_->remoteBuffers.at(id_).optimiseMemory;
}

namespace program {
namespace {

using core::ProgramNode;

/// A Copy between remote buffer `buffer` and `tensor` (`toDevice`: buffer → tensor), with the
/// rows named by `offset` (or every row, in order, when it is invalid).
std::shared_ptr<ProgramNode> remoteCopy(const RemoteBuffer &buffer, const Tensor &tensor,
                                        const Tensor *offset, bool toDevice,
                                        const DebugContext &dc) {
  const char *direction = toDevice ? "from" : "to";
  if (buffer.graph() == nullptr)
    throw graph_program_compilation_error(std::string("Copy ") + direction +
                                          " an invalid (default-constructed) RemoteBuffer");
  const std::string what =
      std::string("Copy ") + direction + " remote buffer '" + buffer.handle() + "'";
  if (!tensor.valid())
    throw graph_program_compilation_error(what + ": the tensor is invalid (default-constructed)");
  if (tensor.elementType() != buffer.elementType())
    throw type_error(what + ": the buffer holds " + buffer.elementType().toString() + " but " +
                     core::describe(tensor) + " holds " + tensor.elementType().toString());
  std::size_t rows = buffer.getRepeats();
  if (offset) {
    if (!offset->valid())
      throw graph_program_compilation_error(what +
                                            ": the offset tensor is invalid (default-constructed)");
    if (offset->elementType() != UNSIGNED_INT)
      throw type_error(what + ": the offset " + core::describe(*offset) +
                       " must be unsigned int, not " + offset->elementType().toString());
    if (offset->rank() > 1 || offset->numElements() == 0)
      throw shape_error(what + ": the offset " + core::describe(*offset) +
                        " must be a scalar or a non-empty 1-D tensor of row indices");
    rows = offset->numElements();
  }
  const std::size_t want = rows * buffer.numElements();
  if (tensor.numElements() != want)
    throw shape_error(what + ": " + core::describe(tensor) + " has " +
                      std::to_string(tensor.numElements()) + " elements but " +
                      std::to_string(rows) + " row(s) of " + std::to_string(buffer.numElements()) +
                      " need " + std::to_string(want) +
                      (offset ? " (one row per offset)" : " (without an offset, every row)"));
  auto n = std::make_shared<ProgramNode>();
  n->kind = toDevice ? ProgramNode::Kind::RemoteToDevice : ProgramNode::Kind::RemoteFromDevice;
  n->name = dc.getPathName();
  n->remoteBuffer = buffer;
  (toDevice ? n->dst : n->src) = tensor;
  if (offset)
    n->offset = *offset;
  return n;
}

} // namespace

Copy::Copy(const RemoteBuffer &buffer, const Tensor &dst, const DebugContext &dc)
    : Program(remoteCopy(buffer, dst, nullptr, true, dc)) {}
Copy::Copy(const RemoteBuffer &buffer, const Tensor &dst, const Tensor &offset,
           const DebugContext &dc)
    : Program(remoteCopy(buffer, dst, &offset, true, dc)) {}
Copy::Copy(const Tensor &src, const RemoteBuffer &buffer, const DebugContext &dc)
    : Program(remoteCopy(buffer, src, nullptr, false, dc)) {}
Copy::Copy(const Tensor &src, const RemoteBuffer &buffer, const Tensor &offset,
           const DebugContext &dc)
    : Program(remoteCopy(buffer, src, &offset, false, dc)) {}

} // namespace program
} // namespace poplar
