#include "tessera/apps/FileEnvelope.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::apps {
namespace {

[[noreturn]] void writeFailure(const std::filesystem::path &file, const std::string &step,
                               const std::string &reason) {
  throw file_write_error("cannot write " + file.string() + " (" + step + "): " + reason);
}

// Writes all of `bytes`, retrying after signals and short writes (a single write(2) stops at
// about 2 GiB). False with errno set on failure.
bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void putLittleEndian(std::string &out, std::uint64_t value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t getLittleEndian(std::string_view in, std::size_t offset, unsigned bytes) {
  std::uint64_t value = 0;
  for (unsigned i = 0; i < bytes; ++i)
    value |= std::uint64_t{static_cast<unsigned char>(in[offset + i])} << (8 * i);
  return value;
}

std::uint32_t crc32Of(std::string_view data) {
  // zlib's crc32 takes a uInt length; feed large payloads in pieces.
  uLong crc = crc32(0L, Z_NULL, 0);
  while (!data.empty()) {
    const std::size_t n = std::min<std::size_t>(data.size(), std::size_t{1} << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef *>(data.data()), static_cast<uInt>(n));
    data.remove_prefix(n);
  }
  return static_cast<std::uint32_t>(crc);
}

// The magic as it reads in a message: "TSRCKPT\n" → "TSRCKPT".
std::string magicText(const EnvelopeFormat &format) {
  std::string text;
  for (char c : format.magic)
    if (c > ' ' && c < 0x7f)
      text += c;
  return text;
}

} // namespace

void writeFileAtomically(const std::filesystem::path &file,
                         std::initializer_list<std::string_view> parts) {
  const std::filesystem::path directory =
      file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec)
    writeFailure(file, "creating the directory " + directory.string(), ec.message());
  // Beside the target, so the rename stays on one file system and is atomic. Per thread, so two
  // threads saving at once do not write into each other's temporary file. (Built by appending:
  // GCC 12 at -O3 warns falsely (-Wrestrict) on `"." + std::string`.)
  std::string tempName = ".";
  tempName += file.filename().string();
  tempName += ".tmp.";
  tempName += std::to_string(::gettid());
  const std::filesystem::path temp = directory / tempName;

  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    writeFailure(file, "creating the temporary file " + temp.string(), std::strerror(errno));
  // Closes and removes the temporary file, then throws with the errno of the failed step.
  auto abandon = [&](const std::string &step, bool closed) {
    const int error = errno;
    if (!closed)
      ::close(fd);
    ::unlink(temp.c_str());
    writeFailure(file, step, std::strerror(error));
  };
  for (std::string_view part : parts)
    if (!writeAll(fd, part))
      abandon("writing " + temp.string(), false);
  if (::fsync(fd) != 0)
    abandon("fsync of " + temp.string(), false);
  if (::close(fd) != 0)
    abandon("closing " + temp.string(), true);
  if (::rename(temp.c_str(), file.c_str()) != 0)
    abandon("renaming " + temp.string() + " over it", true);

  // The new file is in place; make the rename itself durable.
  const int dirFd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd < 0)
    writeFailure(file, "opening its directory to fsync it", std::strerror(errno));
  const bool synced = ::fsync(dirFd) == 0;
  const int error = errno;
  ::close(dirFd);
  if (!synced)
    writeFailure(file, "fsync of its directory", std::strerror(error));
}

void writeFileAtomically(const std::filesystem::path &file, std::string_view bytes) {
  writeFileAtomically(file, {bytes});
}

std::string readWholeFile(const std::filesystem::path &file, std::string_view what) {
  auto fail = [&](const char *verb, int error) {
    throw file_read_error("cannot " + std::string(verb) + " " + std::string(what) + " " +
                          file.string() + ": " + std::strerror(error));
  };
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    fail("open", errno);
  // Sized from fstat (plus one byte, so the end is seen without growing), but read to the end
  // whatever the size said: the file may change meanwhile, and /proc files report 0.
  struct stat info {};
  const std::size_t expected =
      ::fstat(fd, &info) == 0 && info.st_size > 0 ? static_cast<std::size_t>(info.st_size) : 0;
  std::string bytes(expected + 1, '\0');
  std::size_t size = 0;
  for (;;) {
    if (size == bytes.size())
      bytes.resize(2 * bytes.size());
    const ssize_t n = ::read(fd, bytes.data() + size, bytes.size() - size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      const int error = errno;
      ::close(fd);
      fail("read", error);
    }
    if (n == 0)
      break;
    size += static_cast<std::size_t>(n);
  }
  ::close(fd);
  bytes.resize(size);
  return bytes;
}

std::string envelopeHeader(const EnvelopeFormat &format, std::string_view payload) {
  std::string header(format.magic, EnvelopeFormat::kMagicBytes);
  putLittleEndian(header, format.version, 4);
  putLittleEndian(header, payload.size(), 8);
  putLittleEndian(header, crc32Of(payload), 4);
  return header;
}

std::string sealEnvelope(const EnvelopeFormat &format, std::string_view payload) {
  std::string bytes = envelopeHeader(format, payload);
  bytes += payload;
  return bytes;
}

std::string_view openEnvelope(const EnvelopeFormat &format, std::string_view bytes,
                              const std::filesystem::path &file) {
  constexpr std::size_t kHeader = EnvelopeFormat::kHeaderBytes;
  const std::string what(format.what);
  auto fail = [&](const std::string &problem, EnvelopeProblem kind) {
    throw envelope_error(file.string() + problem, kind);
  };
  if (bytes.substr(0, EnvelopeFormat::kMagicBytes) !=
      std::string_view(format.magic, EnvelopeFormat::kMagicBytes))
    fail(" is not a " + what + " (no " + magicText(format) + " header)",
         EnvelopeProblem::OtherFormat);
  if (bytes.size() < kHeader)
    fail(" is truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the " +
             std::to_string(kHeader) + "-byte " + what + " header",
         EnvelopeProblem::Truncated);
  const auto version = static_cast<std::uint32_t>(getLittleEndian(bytes, 8, 4));
  if (version != format.version)
    fail(" has " + what + " format version " + std::to_string(version) +
             "; this build reads version " + std::to_string(format.version),
         EnvelopeProblem::OtherVersion);
  const std::uint64_t size = getLittleEndian(bytes, 12, 8);
  const auto crc = static_cast<std::uint32_t>(getLittleEndian(bytes, 20, 4));
  const std::size_t present = bytes.size() - kHeader;
  if (present < size)
    fail(" is truncated: its header promises " + std::to_string(size) + " payload bytes, only " +
             std::to_string(present) + " are present",
         EnvelopeProblem::Truncated);
  if (present > size)
    fail(" is corrupt: " + std::to_string(present - size) + " unexpected bytes after the payload",
         EnvelopeProblem::Corrupt);
  const std::string_view payload = bytes.substr(kHeader);
  if (crc32Of(payload) != crc)
    fail(" is corrupt: the payload's CRC-32 does not match the header's", EnvelopeProblem::Corrupt);
  return payload;
}

} // namespace tessera::apps
