// Training checkpoints: model weights, optimiser state, RNG and data-loader position, so a
// killed run resumes exactly. Stored as a Protocol Buffers message (proto/checkpoint.proto)
// inside an envelope (FileEnvelope.hpp) — 8-byte magic "TSRCKPT\n", uint32 format version,
// uint64 payload size, uint32 CRC-32 of the payload, all little-endian — so truncation and
// corruption are caught before parsing. Files are written atomically (writeFileAtomically): a
// reader never sees a half-written checkpoint.
#pragma once

#include "tessera/apps/DataLoader.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera::apps {

/// A float tensor by name; `data` is row-major with shape.product() elements.
struct NamedTensor {
  std::string name;
  std::vector<std::size_t> shape;
  std::vector<float> data;
};

struct CheckpointState {
  std::string modelName;
  /// The run's configuration (flag → value text).
  std::map<std::string, std::string> config;
  /// poplar::versionString() of the writer; filled in by writeCheckpointFile.
  std::string sdkVersion;
  std::uint64_t step = 0;
  std::uint64_t epoch = 0;
  LoaderPosition loaderPosition;
  std::vector<NamedTensor> tensors;
  std::vector<NamedTensor> optimiserState;
  std::vector<std::uint32_t> rngState;
};

/// File name for a step: "checkpoint-<step, 10 digits>.tckpt", so names sort by step.
std::string checkpointFileName(std::uint64_t step);

/// Writes `state` to `file` atomically: a temporary file in the same directory is written,
/// fsync'ed and renamed over `file`, then the directory is fsync'ed. Creates the directory if
/// needed. Throws checkpoint_error naming the path on any I/O failure or malformed tensor.
void writeCheckpointFile(const std::filesystem::path &file, const CheckpointState &state);

/// writeCheckpointFile(directory / checkpointFileName(state.step), state); returns that path.
std::filesystem::path writeCheckpoint(const std::filesystem::path &directory,
                                      const CheckpointState &state);

/// Reads and validates a checkpoint. Throws checkpoint_error naming the file when it is not a
/// checkpoint, is truncated or corrupt, or a tensor's data does not match its shape.
CheckpointState readCheckpoint(const std::filesystem::path &file);

/// The checkpoint with the highest step in `directory`, or nullopt when there is none (or the
/// directory does not exist). Temporary files of interrupted writes are ignored.
std::optional<std::filesystem::path> latestCheckpoint(const std::filesystem::path &directory);

/// Checks that `state` (read from `file`) belongs to `modelName` and that every key of
/// `expectedConfig` has the same value in the checkpoint. Throws checkpoint_error naming the
/// field and both values.
void checkCheckpointMatches(const CheckpointState &state, const std::filesystem::path &file,
                            const std::string &modelName,
                            const std::map<std::string, std::string> &expectedConfig);

/// The tensor `name` from `tensors` (state.tensors or state.optimiserState), checked to have
/// `expectedShape`. Throws checkpoint_error naming the tensor (and both shapes) when it is
/// missing or has another shape.
const NamedTensor &findCheckpointTensor(const std::vector<NamedTensor> &tensors,
                                        const std::string &name,
                                        const std::vector<std::size_t> &expectedShape,
                                        const std::filesystem::path &file);

} // namespace tessera::apps
