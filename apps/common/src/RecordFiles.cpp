#include "RecordFiles.hpp"

#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cctype>

#include "tessera/apps/Errors.hpp"
#include "tessera/apps/FileEnvelope.hpp"

namespace tessera::apps::records {

std::string toJson(const google::protobuf::Message &message, std::string_view what) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok())
    throw record_error("cannot render " + std::string(what) + " as JSON: " + status.ToString());
  return json;
}

void fromJson(const std::string &json, google::protobuf::Message &message,
              const std::string &origin, std::string_view what) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &message, options);
  if (!status.ok())
    throw record_error(origin + " is not a valid " + std::string(what) +
                       " JSON: " + std::string(status.message()));
}

std::string safeFileName(std::string name) {
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_')
      c = '-';
  return name;
}

std::string read(const std::filesystem::path &file, std::string_view what) {
  try {
    return readWholeFile(file, what);
  } catch (const file_read_error &e) {
    throw record_error(e.what());
  }
}

void write(const std::filesystem::path &file, const std::string &bytes, std::string_view flag) {
  try {
    writeFileAtomically(file, bytes);
  } catch (const file_write_error &e) {
    throw record_error(std::string(e.what()) + "; check the path, permissions and free space of " +
                       std::string(flag));
  }
}

std::vector<std::filesystem::path>
jsonFilesIn(const std::filesystem::path &directory,
            const std::function<bool(const std::filesystem::path &)> &accept) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (!std::filesystem::is_directory(directory, ec))
    return files;
  for (const auto &entry : std::filesystem::directory_iterator(directory))
    if (entry.is_regular_file() && entry.path().extension() == ".json" && accept(entry.path()))
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

} // namespace tessera::apps::records
