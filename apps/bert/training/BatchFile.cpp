#include "training/BatchFile.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <unistd.h>

#include <zlib.h>

#include <tessera/apps/Errors.hpp>

#include "pretraining_batches.pb.h"

namespace tessera::bert {
namespace {
using apps::dataset_error;

constexpr char kMagic[8] = {'T', 'S', 'R', 'B', 'T', 'C', 'H', '\n'};
constexpr std::uint32_t kFormatVersion = 1;
constexpr std::size_t kEnvelopeBytes = sizeof(kMagic) + 4 + 8 + 4;

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

[[noreturn]] void ioFailure(const std::string &what, const std::filesystem::path &path) {
  throw dataset_error("cannot " + what + " batch file " + path.string() + ": " +
                      std::strerror(errno) + "; check the path, permissions and free space");
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

// Temporary file beside the target (so the rename is atomic), fsync, rename, fsync the directory:
// the approach of apps/common's writeCheckpointFile.
void writeAtomically(const std::filesystem::path &file, const std::string &bytes) {
  const std::filesystem::path directory =
      file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec)
    throw dataset_error("cannot create directory " + directory.string() + " for batch file " +
                        file.string() + ": " + ec.message());
  std::string tempName = "."; // appended piecewise: GCC 12 -O3 misreads `"." + string` (-Wrestrict)
  tempName += file.filename().string();
  tempName += ".tmp.";
  tempName += std::to_string(::getpid());
  const std::filesystem::path temp = directory / tempName;
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    ioFailure("create", temp);
  try {
    writeAll(fd, bytes, temp);
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
  const int dirFd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd < 0)
    ioFailure("open the directory of", file);
  const bool synced = ::fsync(dirFd) == 0;
  ::close(dirFd);
  if (!synced)
    ioFailure("fsync the directory of", file);
}

std::string batchName(const char *list, std::size_t index) {
  return std::string(list) + " batch " + std::to_string(index);
}

// Every array has the length its shape gives, and the shape is the header's.
void checkBatch(const PretrainingBatch &b, const BatchFileHeader &h,
                const std::filesystem::path &file, const std::string &name, const char *problem) {
  const BertConfig &c = h.config;
  if (b.batchSize != h.batchSize || b.sequenceLength != c.sequenceLength ||
      b.maxPredictions != c.maxPredictions || b.maxSequencesPerRow != c.maxSequencesPerRow)
    throw dataset_error(
        file.string() + problem + name + " is " + std::to_string(b.batchSize) + " rows × " +
        std::to_string(b.sequenceLength) + " tokens, " + std::to_string(b.maxPredictions) +
        " predictions and " + std::to_string(b.maxSequencesPerRow) +
        " sequences per row; the header says " + std::to_string(h.batchSize) + " × " +
        std::to_string(c.sequenceLength) + ", " + std::to_string(c.maxPredictions) + " and " +
        std::to_string(c.maxSequencesPerRow));
  const std::size_t tokens = b.batchSize * b.sequenceLength;
  const std::size_t predictions = b.batchSize * b.maxPredictions;
  const std::size_t sequences = b.batchSize * b.maxSequencesPerRow;
  const std::pair<const char *, std::pair<std::size_t, std::size_t>> lengths[] = {
      {"tokenIds", {b.tokenIds.size(), tokens}},
      {"positionIds", {b.positionIds.size(), tokens}},
      {"segmentIds", {b.segmentIds.size(), tokens}},
      {"sequenceIds", {b.sequenceIds.size(), tokens}},
      {"maskedPositions", {b.maskedPositions.size(), predictions}},
      {"maskedLabels", {b.maskedLabels.size(), predictions}},
      {"maskedWeights", {b.maskedWeights.size(), predictions}},
      {"clsPositions", {b.clsPositions.size(), sequences}},
      {"nspLabels", {b.nspLabels.size(), sequences}},
      {"nspWeights", {b.nspWeights.size(), sequences}}};
  for (const auto &[field, sizes] : lengths)
    if (sizes.first != sizes.second)
      throw dataset_error(file.string() + problem + name + " has " + std::to_string(sizes.first) +
                          " " + field + "; its shape needs " + std::to_string(sizes.second));
}

template <typename T, typename Repeated> void copyIn(Repeated &to, const std::vector<T> &from) {
  to.Add(from.begin(), from.end());
}

template <typename T, typename Repeated> std::vector<T> copyOut(const Repeated &from) {
  return std::vector<T>(from.begin(), from.end());
}

void toProto(const PretrainingBatch &b, pb::Batch &out) {
  out.set_batch_size(std::uint32_t(b.batchSize));
  out.set_sequence_length(std::uint32_t(b.sequenceLength));
  out.set_max_predictions(std::uint32_t(b.maxPredictions));
  out.set_max_sequences_per_row(std::uint32_t(b.maxSequencesPerRow));
  copyIn(*out.mutable_token_ids(), b.tokenIds);
  copyIn(*out.mutable_position_ids(), b.positionIds);
  copyIn(*out.mutable_segment_ids(), b.segmentIds);
  copyIn(*out.mutable_sequence_ids(), b.sequenceIds);
  copyIn(*out.mutable_masked_positions(), b.maskedPositions);
  copyIn(*out.mutable_masked_labels(), b.maskedLabels);
  copyIn(*out.mutable_masked_weights(), b.maskedWeights);
  copyIn(*out.mutable_cls_positions(), b.clsPositions);
  copyIn(*out.mutable_nsp_labels(), b.nspLabels);
  copyIn(*out.mutable_nsp_weights(), b.nspWeights);
}

PretrainingBatch fromProto(const pb::Batch &b) {
  PretrainingBatch out;
  out.batchSize = b.batch_size();
  out.sequenceLength = b.sequence_length();
  out.maxPredictions = b.max_predictions();
  out.maxSequencesPerRow = b.max_sequences_per_row();
  out.tokenIds = copyOut<std::uint32_t>(b.token_ids());
  out.positionIds = copyOut<std::uint32_t>(b.position_ids());
  out.segmentIds = copyOut<std::uint32_t>(b.segment_ids());
  out.sequenceIds = copyOut<std::uint32_t>(b.sequence_ids());
  out.maskedPositions = copyOut<std::uint32_t>(b.masked_positions());
  out.maskedLabels = copyOut<std::uint32_t>(b.masked_labels());
  out.maskedWeights = copyOut<float>(b.masked_weights());
  out.clsPositions = copyOut<std::uint32_t>(b.cls_positions());
  out.nspLabels = copyOut<std::uint32_t>(b.nsp_labels());
  out.nspWeights = copyOut<float>(b.nsp_weights());
  return out;
}

void toProto(const BatchFileHeader &h, pb::Header &out) {
  const BertConfig &c = h.config;
  out.set_config_name(c.name);
  out.set_layers(std::uint32_t(c.layers));
  out.set_hidden(std::uint32_t(c.hidden));
  out.set_heads(std::uint32_t(c.heads));
  out.set_ffn(std::uint32_t(c.ffn));
  out.set_vocab_size(std::uint32_t(c.vocabSize));
  out.set_max_positions(std::uint32_t(c.maxPositions));
  out.set_sequence_length(std::uint32_t(c.sequenceLength));
  out.set_max_predictions(std::uint32_t(c.maxPredictions));
  out.set_packing(h.packing);
  out.set_max_sequences_per_row(std::uint32_t(c.maxSequencesPerRow));
  out.set_hidden_dropout(c.hiddenDropout);
  out.set_attention_dropout(c.attentionDropout);
  out.set_layer_norm_epsilon(c.layerNormEpsilon);
  out.set_batch_size(std::uint32_t(h.batchSize));
  out.set_seed(h.seed);
  out.set_corpus(h.corpus);
}

BatchFileHeader fromProto(const pb::Header &h) {
  BatchFileHeader out;
  BertConfig &c = out.config;
  c.name = h.config_name();
  c.layers = h.layers();
  c.hidden = h.hidden();
  c.heads = h.heads();
  c.ffn = h.ffn();
  c.vocabSize = h.vocab_size();
  c.maxPositions = h.max_positions();
  c.sequenceLength = h.sequence_length();
  c.maxPredictions = h.max_predictions();
  c.maxSequencesPerRow = h.max_sequences_per_row();
  c.hiddenDropout = h.hidden_dropout();
  c.attentionDropout = h.attention_dropout();
  c.layerNormEpsilon = h.layer_norm_epsilon();
  out.packing = h.packing();
  out.batchSize = h.batch_size();
  out.seed = h.seed();
  out.corpus = h.corpus();
  return out;
}

} // namespace

void writeBatchFile(const std::filesystem::path &file, const BatchFileHeader &header,
                    const std::vector<PretrainingBatch> &train,
                    const std::vector<PretrainingBatch> &heldOut) {
  constexpr const char *problem = ": cannot write it: ";
  pb::BatchFile message;
  toProto(header, *message.mutable_header());
  for (std::size_t i = 0; i < train.size(); ++i) {
    checkBatch(train[i], header, file, batchName("training", i), problem);
    toProto(train[i], *message.add_train());
  }
  for (std::size_t i = 0; i < heldOut.size(); ++i) {
    checkBatch(heldOut[i], header, file, batchName("held-out", i), problem);
    toProto(heldOut[i], *message.add_held_out());
  }
  std::string payload;
  if (!message.SerializeToString(&payload))
    throw dataset_error("cannot serialise batch file " + file.string() +
                        " (over protobuf's 2 GiB message limit? export fewer --steps)");
  std::string bytes(kMagic, sizeof(kMagic));
  putLittleEndian(bytes, kFormatVersion, 4);
  putLittleEndian(bytes, payload.size(), 8);
  putLittleEndian(bytes, crc32Of(payload.data(), payload.size()), 4);
  bytes += payload;
  writeAtomically(file, bytes);
}

BatchFileContents readBatchFile(const std::filesystem::path &file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in)
    throw dataset_error("cannot open batch file " + file.string() + ": " + std::strerror(errno));
  std::string bytes(static_cast<std::size_t>(in.tellg()), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())))
    throw dataset_error("cannot read batch file " + file.string() + ": " + std::strerror(errno));
  if (bytes.size() < sizeof(kMagic) || bytes.compare(0, sizeof(kMagic), kMagic, sizeof(kMagic)))
    throw dataset_error(file.string() +
                        " is not a BERT batch file (no TSRBTCH header); pass the batches.pb "
                        "written by bert --export-run");
  if (bytes.size() < kEnvelopeBytes)
    throw dataset_error(file.string() + " is truncated: " + std::to_string(bytes.size()) +
                        " bytes, shorter than the batch-file header");
  const auto version = static_cast<std::uint32_t>(getLittleEndian(bytes, 8, 4));
  if (version != kFormatVersion)
    throw dataset_error(file.string() + " has batch-file format version " +
                        std::to_string(version) + "; this build reads version " +
                        std::to_string(kFormatVersion));
  const std::uint64_t size = getLittleEndian(bytes, 12, 8);
  const auto crc = static_cast<std::uint32_t>(getLittleEndian(bytes, 20, 4));
  const std::size_t actual = bytes.size() - kEnvelopeBytes;
  if (actual < size)
    throw dataset_error(file.string() + " is truncated: its header promises " +
                        std::to_string(size) + " payload bytes, only " + std::to_string(actual) +
                        " are present");
  if (actual > size)
    throw dataset_error(file.string() + " is corrupt: " + std::to_string(actual - size) +
                        " unexpected bytes after the payload");
  const char *payload = bytes.data() + kEnvelopeBytes;
  if (crc32Of(payload, size) != crc)
    throw dataset_error(file.string() + " is corrupt: payload CRC-32 does not match");
  pb::BatchFile message;
  if (size > static_cast<std::uint64_t>(std::numeric_limits<int>::max()) ||
      !message.ParseFromArray(payload, static_cast<int>(size)))
    throw dataset_error(file.string() + " is corrupt: the payload is not a batch-file message");

  constexpr const char *problem = " is corrupt: ";
  BatchFileContents out;
  out.header = fromProto(message.header());
  for (int i = 0; i < message.train_size(); ++i) {
    out.train.push_back(fromProto(message.train(i)));
    checkBatch(out.train.back(), out.header, file, batchName("training", std::size_t(i)), problem);
  }
  for (int i = 0; i < message.held_out_size(); ++i) {
    out.heldOut.push_back(fromProto(message.held_out(i)));
    checkBatch(out.heldOut.back(), out.header, file, batchName("held-out", std::size_t(i)),
               problem);
  }
  return out;
}

} // namespace tessera::bert
