// Errors thrown by the application layer (data sets, checkpoints, command lines, benchmark
// records, and the file writing and envelopes those share). Every one is a poplar::poplar_error
// so a trainer's top-level handler catches SDK and application failures alike; the message names
// the file, flag or value at fault and says what to do about it. (file_write_error,
// file_read_error and envelope_error say what is wrong but not what to do: the code that chose
// the path rethrows them as its own error with that advice.)
#pragma once

#include <poplar/exceptions.hpp>

#include <string>

namespace tessera::apps {

/// Base of every application-layer error.
struct app_error : poplar::poplar_error {
  explicit app_error(const std::string &message, std::string typeName = "app_error")
      : poplar::poplar_error(message, std::move(typeName)) {}
};

/// A data set file is missing, truncated or malformed.
struct dataset_error : app_error {
  explicit dataset_error(const std::string &message) : app_error(message, "dataset_error") {}
};

/// A checkpoint cannot be written, read, or does not match the model being restored.
struct checkpoint_error : app_error {
  explicit checkpoint_error(const std::string &message) : app_error(message, "checkpoint_error") {}
};

/// A benchmark record file cannot be written or parsed.
struct record_error : app_error {
  explicit record_error(const std::string &message) : app_error(message, "record_error") {}
};

/// A file cannot be written (writeFileAtomically): the message names the file, the step that
/// failed and the system's reason. Callers usually rethrow it as their own error with advice.
struct file_write_error : app_error {
  explicit file_write_error(const std::string &message) : app_error(message, "file_write_error") {}
};

/// A file cannot be opened or read (readWholeFile); the message names the file and the reason.
struct file_read_error : app_error {
  explicit file_read_error(const std::string &message) : app_error(message, "file_read_error") {}
};

/// Why an envelope_error was thrown, for callers that give advice for some causes only (such as
/// "pass a file written by …" when the file is of another kind altogether).
enum class EnvelopeProblem {
  OtherFormat,  ///< the magic is missing or different: not a file of this format at all
  OtherVersion, ///< the right format, in a version this build does not read
  Truncated,    ///< shorter than the header, or than the payload size the header promises
  Corrupt,      ///< bytes after the payload, or the payload's CRC-32 does not match
};

/// A file's envelope (FileEnvelope.hpp) is not the expected format, version, length or CRC-32.
struct envelope_error : app_error {
  envelope_error(const std::string &message, EnvelopeProblem problem)
      : app_error(message, "envelope_error"), problem_(problem) {}
  EnvelopeProblem problem() const { return problem_; }

private:
  EnvelopeProblem problem_;
};

/// A command-line flag is unknown or its value is out of range.
struct cli_error : app_error {
  explicit cli_error(const std::string &message) : app_error(message, "cli_error") {}
};

/// What a trainer prints when the host runs out of memory (std::bad_alloc) building or
/// compiling its graph, instead of dying with "terminate called": the graph of a full-size model
/// planned for an IPU can outgrow the host.
inline const char *outOfHostMemoryMessage() {
  return "the host ran out of memory (std::bad_alloc) building or compiling the graph; use a "
         "smaller model, batch or image size, or a machine with more memory";
}

} // namespace tessera::apps
