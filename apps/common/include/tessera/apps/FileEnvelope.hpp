// How the application layer stores its files (checkpoints, BERT batch files, benchmark records,
// cached vocabularies), written once here so the copies cannot drift apart and a fix reaches all:
//
//  - writeFileAtomically, used for every file: a reader, or a run restarted after a crash, sees
//    either the previous file or the complete new one, never a half-written file. readWholeFile
//    is its counterpart.
//  - the envelope, used for the binary formats (checkpoints, batch files): a fixed 24-byte
//    header in front of a payload (usually a serialised protobuf message) that says which format
//    the file is, which version of it, and how long and what CRC-32 the payload has, so a wrong,
//    truncated or damaged file is reported as such, naming the file, before any parser sees it:
//
//      offset  size  field
//           0     8  magic, e.g. "TSRCKPT\n" (the newline catches text-mode conversions)
//           8     4  format version, uint32 little-endian
//          12     8  payload size in bytes, uint64 little-endian
//          20     4  CRC-32 (zlib's, ISO-HDLC) of the payload, uint32 little-endian
//          24     …  the payload, exactly `size` bytes, nothing after it
//
// Errors are file_write_error, file_read_error and envelope_error (Errors.hpp). They name the file
// and what went wrong but carry no advice, because only the caller knows which flag or setting
// chose the path; callers catch them and rethrow their own error type (checkpoint_error,
// dataset_error…) with that advice appended.
#pragma once

#include "tessera/apps/Errors.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

namespace tessera::apps {

/// Writes the concatenation of `parts` to `file`, replacing any existing file atomically: the
/// bytes go to a temporary file beside `file` (same directory, so the same file system and the
/// rename is atomic), which is fsync'ed, closed and renamed over `file`; then the directory is
/// fsync'ed so the rename itself survives a power cut. Creates the directory (and its parents)
/// when missing. On failure the temporary file is removed and file_write_error is thrown, naming
/// `file`, the step that failed (creating the directory, writing, fsync, rename…) and the
/// system's reason.
///
/// Taking several parts lets a caller write a header and a large payload without first copying
/// them into one buffer. The temporary file is named ".<file name>.tmp.<thread id>", hidden and
/// distinct per thread; one left behind by a killed process is harmless and is overwritten by
/// the next write from a thread with the same id.
void writeFileAtomically(const std::filesystem::path &file,
                         std::initializer_list<std::string_view> parts);

/// writeFileAtomically of a single buffer.
void writeFileAtomically(const std::filesystem::path &file, std::string_view bytes);

/// The whole content of `file`. Throws file_read_error "cannot open <what> <file>: <reason>" (or
/// "cannot read …") when it cannot be opened or read; `what` says what kind of file was expected
/// ("checkpoint", "benchmark record"…), so the message reads well without rewording.
std::string readWholeFile(const std::filesystem::path &file, std::string_view what = "file");

/// One envelope format: its magic, the version this build writes and reads, and the name used
/// in messages ("Tessera checkpoint" → "… is not a Tessera checkpoint (no TSRCKPT header)").
/// Define each format once as a constant and use it for both sealing and opening, e.g.
///
///   constexpr EnvelopeFormat kCheckpointFormat("TSRCKPT\n", 1, "Tessera checkpoint");
struct EnvelopeFormat {
  static constexpr std::size_t kMagicBytes = 8;
  /// Header bytes before the payload: magic, version, payload size, CRC-32.
  static constexpr std::size_t kHeaderBytes = kMagicBytes + 4 + 8 + 4;

  /// `magic` must be a string literal of exactly 8 characters (the array type checks this at
  /// compile time); its terminating NUL is not part of the file. `what` must outlive the
  /// format (a string literal does).
  constexpr EnvelopeFormat(const char (&magic)[kMagicBytes + 1], std::uint32_t version,
                           std::string_view what)
      : version(version), what(what) {
    for (std::size_t i = 0; i < kMagicBytes; ++i)
      this->magic[i] = magic[i];
  }

  char magic[kMagicBytes] = {};
  std::uint32_t version;
  std::string_view what;
};

/// The envelope header for `payload`: kHeaderBytes bytes to write just before it.
std::string envelopeHeader(const EnvelopeFormat &format, std::string_view payload);

/// The complete file: envelopeHeader(format, payload) followed by `payload`. For large payloads
/// prefer writeFileAtomically(file, {envelopeHeader(format, payload), payload}), which does not
/// copy the payload.
std::string sealEnvelope(const EnvelopeFormat &format, std::string_view payload);

/// The payload of `bytes`, a file's whole content (see readWholeFile), after checking, in this
/// order, the magic, the header's length, the version, the payload's length and its CRC-32.
/// The result points into `bytes`, so `bytes` must outlive it. Throws envelope_error whose
/// message names `file` (only used in messages) and the problem, e.g. "<file> is truncated: its
/// header promises 1200 payload bytes, only 800 are present", and whose problem() says which
/// check failed.
std::string_view openEnvelope(const EnvelopeFormat &format, std::string_view bytes,
                              const std::filesystem::path &file);

} // namespace tessera::apps
