// What benchmark records and comparison records share as files: pretty proto3 JSON, safe file
// names, atomic writes and sorted directory listings, with record_error naming the file.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace google::protobuf {
class Message;
}

namespace tessera::apps::records {

/// `message` as indented proto3 JSON with every field printed (so records diff line by line);
/// `what` names the kind of record in errors ("benchmark record").
std::string toJson(const google::protobuf::Message &message, std::string_view what);

/// Fills `message` from `json`, rejecting unknown fields; record_error "<origin> is not a valid
/// <what> JSON: …" otherwise.
void fromJson(const std::string &json, google::protobuf::Message &message,
              const std::string &origin, std::string_view what);

/// `name` as one safe path component: every character but [A-Za-z0-9._-] becomes '-'.
std::string safeFileName(std::string name);

/// The file's bytes; record_error naming it when it cannot be read.
std::string read(const std::filesystem::path &file, std::string_view what);

/// Writes `bytes` to `file` atomically; record_error naming it, with advice about `flag` (the
/// option that chose the path), when it cannot.
void write(const std::filesystem::path &file, const std::string &bytes, std::string_view flag);

/// The `.json` files directly in `directory` that `accept` takes, sorted by name; none when the
/// directory does not exist.
std::vector<std::filesystem::path>
jsonFilesIn(const std::filesystem::path &directory,
            const std::function<bool(const std::filesystem::path &)> &accept);

} // namespace tessera::apps::records
