// This SDK build's identity (executables never run on another build's engine).
#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "codelet/ContentHash.hpp"
#include "executable/ExecutableData.hpp"
#include <tessera/BuildId.hpp>

namespace poplar::executable {

namespace {

struct Search {
  const void *address;
  std::string id;
};

/// The GNU build id note (NT_GNU_BUILD_ID) of the loaded object containing `address`: the linker
/// computes it from the object's contents, so two builds of the same code share it.
int findBuildId(dl_phdr_info *info, std::size_t, void *data) {
  auto &search = *static_cast<Search *>(data);
  const auto target = reinterpret_cast<ElfW(Addr)>(search.address);
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto &ph = info->dlpi_phdr[i];
    const ElfW(Addr) begin = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && target >= begin && target < begin + ph.p_memsz)
      contains = true;
  }
  if (!contains)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE)
      continue;
    const auto *p = reinterpret_cast<const unsigned char *>(info->dlpi_addr + ph.p_vaddr);
    const auto *end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, p, sizeof note);
      const unsigned char *name = p + sizeof note;
      const unsigned char *desc = name + ((note.n_namesz + 3) & ~3u);
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        static const char digits[] = "0123456789abcdef";
        for (unsigned k = 0; k < note.n_descsz; ++k)
          search.id += {digits[desc[k] >> 4], digits[desc[k] & 15]};
        return 1;
      }
      p = desc + ((note.n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

std::string computeBuildId(const void *address) {
  Search search{address, {}};
  dl_iterate_phdr(findBuildId, &search);
  if (!search.id.empty())
    return search.id;
  // Linked without --build-id: the object file's contents stand in.
  Dl_info info{};
  codelet::ContentHash h;
  if (dladdr(address, &info) && info.dli_fname) {
    std::ifstream in(info.dli_fname, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    h.add(bytes.str());
  }
  return "file-" + h.hex();
}

} // namespace

std::string computeBuildIdOf(const void *address) { return computeBuildId(address); }

const std::string &sdkBuildId() {
  static const std::string id = computeBuildId(reinterpret_cast<const void *>(&sdkBuildId));
  return id;
}

} // namespace poplar::executable

const std::string &tessera::sdkBuildId() { return poplar::executable::sdkBuildId(); }

std::string tessera::buildIdOf(const void *address) {
  return poplar::executable::computeBuildIdOf(address);
}
