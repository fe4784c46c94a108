// A file of pre-training batches exactly as a run fed them — its training batches in order and
// its held-out batches — with the model configuration they were made for, so a peer
// implementation (the PyTorch twin, bench/bert_torch.py) trains on the same data in the same
// order. The payload is proto/pretraining_batches.proto's BatchFile message inside an envelope
// like a checkpoint's: 8-byte magic "TSRBTCH\n", uint32 format version, uint64 payload size,
// uint32 CRC-32 of the payload, all little-endian, so truncation and corruption are caught before
// parsing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "data/PretrainingExamples.hpp"
#include "model/BertConfig.hpp"

namespace tessera::bert {

/// What produced the batches. Every field of `config` is stored except initStdDev.
struct BatchFileHeader {
  BertConfig config;         ///< the model the batches were laid out for
  bool packing = false;      ///< rows hold up to config.maxSequencesPerRow sequences
  std::size_t batchSize = 0; ///< rows per batch
  std::uint64_t seed = 0;    ///< the run's data (and weight) seed
  std::string corpus;        ///< where the text came from, e.g. the FOLDOC dictionary path
};

struct BatchFileContents {
  BatchFileHeader header;
  std::vector<PretrainingBatch> train;   ///< one per training step, in training order
  std::vector<PretrainingBatch> heldOut; ///< the evaluation batches, in evaluation order
};

/// Writes the batches to `file` atomically: a temporary file in the same directory is written,
/// fsync'ed and renamed over `file`, then the directory is fsync'ed; the directory is created if
/// needed. Throws apps::dataset_error naming the file when a batch does not have the header's
/// shape (B, S, P, K) or an array's length does not match its shape, and on any I/O failure.
void writeBatchFile(const std::filesystem::path &file, const BatchFileHeader &header,
                    const std::vector<PretrainingBatch> &train,
                    const std::vector<PretrainingBatch> &heldOut);

/// Reads and checks a batch file. Throws apps::dataset_error naming the file when it is missing,
/// is not a batch file, is truncated or corrupt (CRC, message), or holds a batch whose arrays do
/// not match its shape or the header's.
BatchFileContents readBatchFile(const std::filesystem::path &file);

} // namespace tessera::bert
