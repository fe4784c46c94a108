// HostIo's remote buffers: each replica's rows in host memory, the RemoteIn / RemoteOut steps
// and Engine::copyToRemoteBuffer / copyFromRemoteBuffer.
#include <cstring>
#include <string>

#include <poplar/exceptions.hpp>

#include "core/Suggest.hpp"
#include "engine/HostIo.hpp"

namespace poplar::engine {

void HostIo::resetRemoteBuffers() {
  remote_.resize(plan_.remoteBuffers.size());
  for (std::size_t i = 0; i < remote_.size(); ++i) {
    const auto &info = plan_.remoteBuffers[i];
    const std::uint64_t bytes = info.repeats * info.bytesPerRow;
    // calloc gives large blocks as fresh zero pages: a buffer costs memory only where written.
    remote_[i].reset(static_cast<unsigned char *>(std::calloc(bytes ? bytes : 1, 1)));
    if (!remote_[i])
      throw runtime_error("Engine::load: the host cannot allocate the " + std::to_string(bytes) +
                          " bytes of remote buffer '" + info.handle + "'");
  }
}

const std::vector<std::uint64_t> &HostIo::remoteRows(const compiler::RemoteCopyPlan &copy,
                                                     bool toDevice) {
  const auto &info = plan_.remoteBuffers[copy.buffer];
  const std::uint64_t rows = info.bytesPerRow ? copy.tensor.bytes / info.bytesPerRow : 0;
  rows_.resize(rows);
  if (!copy.hasOffset) {
    for (std::uint64_t r = 0; r < rows; ++r)
      rows_[r] = r;
    return rows_;
  }
  std::vector<std::uint32_t> offsets(rows);
  memory_.gather(copy.offset, reinterpret_cast<unsigned char *>(offsets.data()));
  for (std::uint64_t r = 0; r < rows; ++r) {
    if (offsets[r] >= info.repeats)
      throw application_runtime_error(
          "Copy" + (copy.name.empty() ? std::string() : " '" + copy.name + "'") +
          (toDevice ? " from" : " to") + " remote buffer '" + info.handle + "': offset " +
          std::to_string(offsets[r]) +
          (rows > 1 ? " (element " + std::to_string(r) + " of the offset tensor)" : "") +
          " is out of range; the buffer has " + std::to_string(info.repeats) + " row(s) (0 to " +
          std::to_string(info.repeats - 1) + ")");
    rows_[r] = offsets[r];
  }
  return rows_;
}

void HostIo::remoteIn(unsigned index) {
  const auto &copy = plan_.remoteCopies[index];
  const auto &info = plan_.remoteBuffers[copy.buffer];
  const auto &rows = remoteRows(copy, true);
  staging_.resize(copy.tensor.bytes);
  for (std::size_t r = 0; r < rows.size(); ++r)
    std::memcpy(staging_.data() + r * info.bytesPerRow,
                remote_[copy.buffer].get() + rows[r] * info.bytesPerRow, info.bytesPerRow);
  memory_.scatter(copy.tensor, staging_.data());
}

void HostIo::remoteOut(unsigned index) {
  const auto &copy = plan_.remoteCopies[index];
  const auto &info = plan_.remoteBuffers[copy.buffer];
  const auto &rows = remoteRows(copy, false);
  staging_.resize(copy.tensor.bytes);
  memory_.gather(copy.tensor, staging_.data());
  // In order, so of two rows naming the same offset the later one stays.
  for (std::size_t r = 0; r < rows.size(); ++r)
    std::memcpy(remote_[copy.buffer].get() + rows[r] * info.bytesPerRow,
                staging_.data() + r * info.bytesPerRow, info.bytesPerRow);
}

unsigned char *HostIo::remoteRow(const char *what, StringRef handle, std::uint64_t row,
                                 std::uint64_t &bytes) {
  std::size_t i = 0;
  while (i < plan_.remoteBuffers.size() && plan_.remoteBuffers[i].handle != handle.view())
    ++i;
  if (i == plan_.remoteBuffers.size()) {
    std::vector<std::string> names;
    for (const auto &b : plan_.remoteBuffers)
      names.push_back(b.handle);
    throw stream_connection_error(std::string(what) + ": no remote buffer has handle '" +
                                  handle.str() + "'" + core::didYouMean(handle.str(), names));
  }
  memory_.requireLoaded(what);
  const auto &info = plan_.remoteBuffers[i];
  if (row >= info.repeats)
    throw index_error(std::string(what) + " '" + handle.str() + "': row " + std::to_string(row) +
                      " does not exist; the buffer has " + std::to_string(info.repeats) +
                      " row(s) (0 to " + std::to_string(info.repeats - 1) + ")");
  bytes = info.bytesPerRow;
  return remote_[i].get() + row * info.bytesPerRow;
}

void HostIo::writeRemoteRow(StringRef handle, std::uint64_t row, const void *src) {
  std::uint64_t bytes = 0;
  unsigned char *at = remoteRow("copyToRemoteBuffer", handle, row, bytes);
  if (!src)
    throw stream_connection_error("copyToRemoteBuffer '" + handle.str() + "': null host buffer");
  std::memcpy(at, src, bytes);
}

void HostIo::readRemoteRow(StringRef handle, std::uint64_t row, void *dst) {
  std::uint64_t bytes = 0;
  const unsigned char *at = remoteRow("copyFromRemoteBuffer", handle, row, bytes);
  if (!dst)
    throw stream_connection_error("copyFromRemoteBuffer '" + handle.str() + "': null host buffer");
  std::memcpy(dst, at, bytes);
}

} // namespace poplar::engine
