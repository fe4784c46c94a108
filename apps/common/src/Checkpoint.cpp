#include "tessera/apps/Checkpoint.hpp"

#include "tessera/apps/Errors.hpp"

#include "checkpoint.pb.h"

#include <poplar/Version.hpp>

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <unistd.h>

namespace tessera::apps {
namespace {

constexpr char kMagic[8] = {'T', 'S', 'R', 'C', 'K', 'P', 'T', '\n'};
constexpr std::uint32_t kFormatVersion = 1;
constexpr std::size_t kEnvelopeBytes = sizeof(kMagic) + 4 + 8 + 4;
const std::string kExtension = ".tckpt";
const std::string kPrefix = "checkpoint-";

void putLittleEndian(std::string &out, std::uint64_t value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t getLittleEndian(const std::string &in, std::size_t offset, unsigned bytes) {
  std::uint64_t value = 0;
  for (unsigned i = 0; i < bytes; ++i)
    value |= std::uint64_t{static_cast<unsigned char>(in[offset + i])} << (8 * i);
  return value;
}

std::uint32_t crc32Of(const char *data, std::size_t size) {
  // zlib's crc32 takes a uInt length; feed large payloads in pieces.
  uLong crc = crc32(0L, Z_NULL, 0);
  for (std::size_t done = 0; done < size;) {
    const std::size_t n = std::min<std::size_t>(size - done, 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef *>(data + done), static_cast<uInt>(n));
    done += n;
  }
  return static_cast<std::uint32_t>(crc);
}

std::string shapeText(const std::vector<std::size_t> &shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::size_t elementCount(const std::vector<std::size_t> &shape) {
  std::size_t n = 1;
  for (std::size_t d : shape)
    n *= d;
  return n;
}

void toProto(const NamedTensor &t, pb::NamedTensor &out, const std::filesystem::path &file) {
  if (elementCount(t.shape) != t.data.size())
    throw checkpoint_error("cannot write " + file.string() + ": tensor '" + t.name +
                           "' has shape " + shapeText(t.shape) + " (" +
                           std::to_string(elementCount(t.shape)) + " elements) but " +
                           std::to_string(t.data.size()) + " values");
  out.set_name(t.name);
  for (std::size_t d : t.shape)
    out.add_shape(d);
  out.mutable_data()->Add(t.data.begin(), t.data.end());
}

NamedTensor fromProto(const pb::NamedTensor &t, const std::filesystem::path &file) {
  NamedTensor out;
  out.name = t.name();
  out.shape.assign(t.shape().begin(), t.shape().end());
  out.data.assign(t.data().begin(), t.data().end());
  if (elementCount(out.shape) != out.data.size())
    throw checkpoint_error(file.string() + " is corrupt: tensor '" + out.name + "' has shape " +
                           shapeText(out.shape) + " but " + std::to_string(out.data.size()) +
                           " values");
  return out;
}

[[noreturn]] void ioFailure(const std::string &what, const std::filesystem::path &path) {
  throw checkpoint_error("cannot " + what + " " + path.string() + ": " + std::strerror(errno) +
                         "; check the --checkpoint-dir path, permissions and free space");
}

void fsyncPath(const std::filesystem::path &path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0)
    ioFailure("open", path);
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  if (!ok)
    ioFailure("fsync", path);
}

void writeAll(int fd, const std::string &bytes, const std::filesystem::path &path) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      ioFailure("write", path);
    }
    done += static_cast<std::size_t>(n);
  }
}

std::optional<std::uint64_t> stepOfFileName(const std::string &name) {
  if (name.size() <= kPrefix.size() + kExtension.size() || name.rfind(kPrefix, 0) != 0 ||
      name.compare(name.size() - kExtension.size(), kExtension.size(), kExtension) != 0)
    return std::nullopt;
  const std::string digits =
      name.substr(kPrefix.size(), name.size() - kPrefix.size() - kExtension.size());
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoull(digits);
}

} // namespace

std::string checkpointFileName(std::uint64_t step) {
  std::string digits = std::to_string(step);
  if (digits.size() < 10)
    digits.insert(0, 10 - digits.size(), '0');
  return kPrefix + digits + kExtension;
}

void writeCheckpointFile(const std::filesystem::path &file, const CheckpointState &state) {
  pb::Checkpoint message;
  message.set_model_name(state.modelName);
  message.mutable_config()->insert(state.config.begin(), state.config.end());
  message.set_sdk_version(poplar::versionString());
  message.set_step(state.step);
  message.set_epoch(state.epoch);
  message.mutable_loader_position()->set_epoch(state.loaderPosition.epoch);
  message.mutable_loader_position()->set_batch(state.loaderPosition.batch);
  for (const NamedTensor &t : state.tensors)
    toProto(t, *message.add_tensors(), file);
  for (const NamedTensor &t : state.optimiserState)
    toProto(t, *message.add_optimiser_state(), file);
  message.mutable_rng_state()->Add(state.rngState.begin(), state.rngState.end());

  std::string payload;
  if (!message.SerializeToString(&payload))
    throw checkpoint_error("cannot serialise checkpoint " + file.string() +
                           " (over protobuf's 2 GiB message limit?)");
  std::string header(kMagic, sizeof(kMagic));
  putLittleEndian(header, kFormatVersion, 4);
  putLittleEndian(header, payload.size(), 8);
  putLittleEndian(header, crc32Of(payload.data(), payload.size()), 4);

  const std::filesystem::path directory =
      file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec)
    throw checkpoint_error("cannot create checkpoint directory " + directory.string() + ": " +
                           ec.message());
  // Same directory as the target, so the rename is atomic (same file system).
  std::string tempName = ".";
  tempName += file.filename().string();
  tempName += ".tmp.";
  tempName += std::to_string(::getpid());
  const std::filesystem::path temp = directory / tempName;
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    ioFailure("create", temp);
  try {
    writeAll(fd, header, temp);
    writeAll(fd, payload, temp);
    if (::fsync(fd) != 0)
      ioFailure("fsync", temp);
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    ::unlink(temp.c_str());
    ioFailure("close", temp);
  }
  if (::rename(temp.c_str(), file.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    errno = saved;
    ioFailure("rename " + temp.string() + " to", file);
  }
  // Make the rename itself durable.
  fsyncPath(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

std::filesystem::path writeCheckpoint(const std::filesystem::path &directory,
                                      const CheckpointState &state) {
  const std::filesystem::path file = directory / checkpointFileName(state.step);
  writeCheckpointFile(file, state);
  return file;
}

CheckpointState readCheckpoint(const std::filesystem::path &file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in)
    throw checkpoint_error("cannot open checkpoint " + file.string() + ": " + std::strerror(errno));
  std::string bytes(static_cast<std::size_t>(in.tellg()), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())))
    throw checkpoint_error("cannot read checkpoint " + file.string() + ": " + std::strerror(errno));
  if (bytes.size() < sizeof(kMagic) || bytes.compare(0, sizeof(kMagic), kMagic, sizeof(kMagic)))
    throw checkpoint_error(file.string() +
                           " is not a Tessera checkpoint (no TSRCKPT header); pass a file "
                           "written by writeCheckpoint");
  if (bytes.size() < kEnvelopeBytes)
    throw checkpoint_error(file.string() + " is truncated: " + std::to_string(bytes.size()) +
                           " bytes, shorter than the checkpoint header");
  const auto version = static_cast<std::uint32_t>(getLittleEndian(bytes, 8, 4));
  if (version != kFormatVersion)
    throw checkpoint_error(file.string() + " has checkpoint format version " +
                           std::to_string(version) + "; this build reads version " +
                           std::to_string(kFormatVersion));
  const std::uint64_t size = getLittleEndian(bytes, 12, 8);
  const auto crc = static_cast<std::uint32_t>(getLittleEndian(bytes, 20, 4));
  const std::size_t actual = bytes.size() - kEnvelopeBytes;
  if (actual < size)
    throw checkpoint_error(file.string() + " is truncated: its header promises " +
                           std::to_string(size) + " payload bytes, only " + std::to_string(actual) +
                           " are present");
  if (actual > size)
    throw checkpoint_error(file.string() + " is corrupt: " + std::to_string(actual - size) +
                           " unexpected bytes after the payload");
  const char *payload = bytes.data() + kEnvelopeBytes;
  if (crc32Of(payload, size) != crc)
    throw checkpoint_error(file.string() + " is corrupt: payload CRC-32 does not match");
  pb::Checkpoint message;
  if (size > static_cast<std::uint64_t>(std::numeric_limits<int>::max()) ||
      !message.ParseFromArray(payload, static_cast<int>(size)))
    throw checkpoint_error(file.string() + " is corrupt: the payload is not a valid checkpoint "
                                           "message");

  CheckpointState state;
  state.modelName = message.model_name();
  state.config.insert(message.config().begin(), message.config().end());
  state.sdkVersion = message.sdk_version();
  state.step = message.step();
  state.epoch = message.epoch();
  state.loaderPosition.epoch = message.loader_position().epoch();
  state.loaderPosition.batch = message.loader_position().batch();
  for (const pb::NamedTensor &t : message.tensors())
    state.tensors.push_back(fromProto(t, file));
  for (const pb::NamedTensor &t : message.optimiser_state())
    state.optimiserState.push_back(fromProto(t, file));
  state.rngState.assign(message.rng_state().begin(), message.rng_state().end());
  return state;
}

std::optional<std::filesystem::path> latestCheckpoint(const std::filesystem::path &directory) {
  std::error_code ec;
  if (!std::filesystem::is_directory(directory, ec))
    return std::nullopt;
  std::optional<std::filesystem::path> best;
  std::uint64_t bestStep = 0;
  for (const auto &entry : std::filesystem::directory_iterator(directory, ec)) {
    if (!entry.is_regular_file(ec))
      continue;
    const std::optional<std::uint64_t> step = stepOfFileName(entry.path().filename().string());
    if (step && (!best || *step > bestStep)) {
      best = entry.path();
      bestStep = *step;
    }
  }
  return best;
}

void checkCheckpointMatches(const CheckpointState &state, const std::filesystem::path &file,
                            const std::string &modelName,
                            const std::map<std::string, std::string> &expectedConfig) {
  if (state.modelName != modelName)
    throw checkpoint_error(file.string() + " holds model '" + state.modelName + "', not '" +
                           modelName +
                           "'; use a checkpoint of this model or another --checkpoint-dir");
  for (const auto &[key, value] : expectedConfig) {
    const auto found = state.config.find(key);
    const std::string stored = found == state.config.end() ? "<unset>" : found->second;
    if (found == state.config.end() || found->second != value)
      throw checkpoint_error(file.string() + ": config field '" + key + "' is '" + stored +
                             "' in the checkpoint but '" + value +
                             "' in this run; resume with the same value or start a fresh "
                             "--checkpoint-dir");
  }
}

const NamedTensor &findCheckpointTensor(const std::vector<NamedTensor> &tensors,
                                        const std::string &name,
                                        const std::vector<std::size_t> &expectedShape,
                                        const std::filesystem::path &file) {
  for (const NamedTensor &t : tensors) {
    if (t.name != name)
      continue;
    if (t.shape != expectedShape)
      throw checkpoint_error(file.string() + ": tensor '" + name + "' has shape " +
                             shapeText(t.shape) + " in the checkpoint but the model expects " +
                             shapeText(expectedShape));
    return t;
  }
  throw checkpoint_error(file.string() + " has no tensor '" + name +
                         "'; was it written by another model version?");
}

} // namespace tessera::apps
