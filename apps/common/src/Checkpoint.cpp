#include "tessera/apps/Checkpoint.hpp"

#include "tessera/apps/Errors.hpp"
#include "tessera/apps/FileEnvelope.hpp"

#include "checkpoint.pb.h"

#include <poplar/Version.hpp>
#include <poputil/Describe.hpp>

#include <limits>

namespace tessera::apps {
namespace {

constexpr EnvelopeFormat kCheckpointFormat("TSRCKPT\n", 1, "Tessera checkpoint");
const std::string kExtension = ".tckpt";
const std::string kPrefix = "checkpoint-";

std::size_t elementCount(const std::vector<std::size_t> &shape) {
  std::size_t n = 1;
  for (std::size_t d : shape)
    n *= d;
  return n;
}

void toProto(const NamedTensor &t, pb::NamedTensor &out, const std::filesystem::path &file) {
  if (elementCount(t.shape) != t.data.size())
    throw checkpoint_error("cannot write " + file.string() + ": tensor '" + t.name +
                           "' has shape " + poputil::shapeString(t.shape) + " (" +
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
                           poputil::shapeString(out.shape) + " but " +
                           std::to_string(out.data.size()) + " values");
  return out;
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
  try {
    writeFileAtomically(file, {envelopeHeader(kCheckpointFormat, payload), payload});
  } catch (const file_write_error &e) {
    throw checkpoint_error(std::string(e.what()) +
                           "; check the --checkpoint-dir path, permissions and free space");
  }
}

std::filesystem::path writeCheckpoint(const std::filesystem::path &directory,
                                      const CheckpointState &state) {
  const std::filesystem::path file = directory / checkpointFileName(state.step);
  writeCheckpointFile(file, state);
  return file;
}

CheckpointState readCheckpoint(const std::filesystem::path &file) {
  std::string bytes;
  std::string_view payload;
  try {
    bytes = readWholeFile(file, "checkpoint");
    payload = openEnvelope(kCheckpointFormat, bytes, file);
  } catch (const file_read_error &e) {
    throw checkpoint_error(e.what());
  } catch (const envelope_error &e) {
    std::string message = e.what();
    if (e.problem() == EnvelopeProblem::OtherFormat)
      message += "; pass a file written by writeCheckpoint";
    throw checkpoint_error(message);
  }
  pb::Checkpoint message;
  if (payload.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      !message.ParseFromArray(payload.data(), static_cast<int>(payload.size())))
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
      throw checkpoint_error(
          file.string() + ": tensor '" + name + "' has shape " + poputil::shapeString(t.shape) +
          " in the checkpoint but the model expects " + poputil::shapeString(expectedShape));
    return t;
  }
  throw checkpoint_error(file.string() + " has no tensor '" + name +
                         "'; was it written by another model version?");
}

} // namespace tessera::apps
