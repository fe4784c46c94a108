#include "tessera/apps/TrainerExecutable.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <mutex>
#include <sstream>

#include <poplin/codelets.hpp>
#include <popnn/codelets.hpp>
#include <popops/codelets.hpp>
#include <poprand/codelets.hpp>
#include <tessera/BuildId.hpp>

#include "tessera/apps/FileEnvelope.hpp"
#include "trainer_manifest.pb.h"

namespace tessera::apps {

namespace {

namespace fs = std::filesystem;

constexpr EnvelopeFormat kManifestFormat("TSRMANI\n", 1, "Tessera trainer manifest");

/// The element types a trainer's host tensors have, by their poplar::Type names.
const std::array<poplar::Type, 4> kHostTypes = {poplar::FLOAT, poplar::HALF, poplar::UNSIGNED_INT,
                                                poplar::INT};

std::optional<poplar::Type> typeNamed(const std::string &name) {
  for (const auto &t : kHostTypes)
    if (t.toString() == name)
      return t;
  return std::nullopt;
}

void toProto(const HostTensorInfo &t, pb::HostTensor &out) {
  out.set_name(t.name);
  out.set_type(t.type.toString());
  for (std::size_t d : t.shape)
    out.add_shape(d);
}

/// False when the stored tensor names a type this build does not know (a damaged file).
bool fromProto(const pb::HostTensor &in, HostTensorInfo &out) {
  const auto type = typeNamed(in.type());
  if (!type)
    return false;
  out.name = in.name();
  out.type = *type;
  out.shape.assign(in.shape().begin(), in.shape().end());
  return true;
}

/// 64-bit FNV-1a: a file name for an identity. Collisions are harmless — the manifest stores the
/// whole identity and is only used when it matches.
std::string fileStem(const std::string &identity) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : identity) {
    h ^= c;
    h *= 1099511628211ull;
  }
  std::ostringstream out;
  out << std::hex << std::setw(16) << std::setfill('0') << h;
  return out.str();
}

void warnOnce(const std::string &what) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(stderr,
                 "tessera: trainer manifest: %s; later runs with this configuration will build "
                 "their graph again\n",
                 what.c_str());
  });
}

} // namespace

std::size_t HostTensorInfo::numElements() const {
  std::size_t n = 1;
  for (std::size_t d : shape)
    n *= d;
  return n;
}

const std::string &programBuildId() {
  // This function is linked into the trainer program itself (apps_common is a static library).
  static const std::string id = tessera::buildIdOf(reinterpret_cast<const void *>(&programBuildId));
  return id;
}

/// The build ids of the libraries that build the graph: a rebuilt popnn (say) builds another
/// graph from the same configuration, so a manifest must not outlive it. (The SDK's own id is
/// libpoplar's, and the program's does not change when a shared library does.)
const std::string &libraryBuildIds() {
  static const std::string ids = [] {
    std::string text;
    for (const void *address : {reinterpret_cast<const void *>(&popops::addCodelets),
                                reinterpret_cast<const void *>(&poprand::addCodelets),
                                reinterpret_cast<const void *>(&poplin::addCodelets),
                                reinterpret_cast<const void *>(&popnn::addCodelets)})
      text.append(" ").append(tessera::buildIdOf(address)); // not operator+: GCC 12 -Wrestrict
    return text;
  }();
  return ids;
}

std::string trainerIdentity(const std::map<std::string, std::string> &config) {
  std::string text = "program " + programBuildId() + "\nsdk " + tessera::sdkBuildId() +
                     "\nlibraries" + libraryBuildIds() + "\n";
  for (const auto &[key, value] : config)
    text += key + "=" + value + "\n";
  return text;
}

TrainerManifestStore::TrainerManifestStore(std::string cacheDirectory)
    : directory_((fs::path(std::move(cacheDirectory)) / "trainers").string()) {}

std::string TrainerManifestStore::pathFor(const std::string &identity) const {
  return (fs::path(directory_) / (fileStem(identity) + ".manifest")).string();
}

std::optional<TrainerManifest> TrainerManifestStore::find(const std::string &identity) const {
  const fs::path path = pathFor(identity);
  std::error_code ec;
  if (!fs::exists(path, ec))
    return std::nullopt;
  pb::TrainerManifest m;
  TrainerManifest out;
  try {
    const std::string bytes = readWholeFile(path, "trainer manifest");
    const std::string_view payload = openEnvelope(kManifestFormat, bytes, path);
    if (!m.ParseFromArray(payload.data(), static_cast<int>(payload.size())))
      throw file_read_error(path.string() + " is not a trainer manifest");
    if (m.identity() != identity)
      return std::nullopt; // another configuration whose name collides: not ours to remove
    out.identity = m.identity();
    out.engineKey = m.engine_key();
    for (const auto &p : m.parameters()) {
      ParameterInfo info;
      if (!fromProto(p.value(), info.value) || !fromProto(p.gradient(), info.gradient))
        throw file_read_error(path.string() + " names an unknown element type");
      out.parameters.push_back(std::move(info));
    }
    for (const auto &s : m.states()) {
      HostTensorInfo info;
      if (!fromProto(s, info))
        throw file_read_error(path.string() + " names an unknown element type");
      out.states.push_back(std::move(info));
    }
  } catch (const app_error &) {
    fs::remove(path, ec); // damaged: the next cold start writes it again
    return std::nullopt;
  }
  return out;
}

void TrainerManifestStore::remember(const TrainerManifest &manifest) const {
  pb::TrainerManifest m;
  m.set_identity(manifest.identity);
  m.set_engine_key(manifest.engineKey);
  for (const auto &p : manifest.parameters) {
    auto &out = *m.add_parameters();
    toProto(p.value, *out.mutable_value());
    toProto(p.gradient, *out.mutable_gradient());
  }
  for (const auto &s : manifest.states)
    toProto(s, *m.add_states());
  try {
    std::error_code ec;
    fs::create_directories(directory_, ec);
    const std::string payload = m.SerializeAsString();
    writeFileAtomically(pathFor(manifest.identity),
                        {envelopeHeader(kManifestFormat, payload), payload});
  } catch (const app_error &e) {
    warnOnce(e.what());
  }
}

} // namespace tessera::apps
