#include "profile/ProfileFileWriter.hpp"

#include <filesystem>
#include <fstream>

#include <poplar/exceptions.hpp>

#include "codelet/CodeletCache.hpp"

namespace poplar::profile {

namespace fs = std::filesystem;

void writeProfileFile(const std::string &path, const std::string &contents) {
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string tmp = codelet::temporaryPath(dir.string(), target.filename().string());
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << contents;
    if (!out.flush()) {
      out.close();
      fs::remove(tmp, ec);
      throw runtime_error("cannot write profile file '" + path + "'");
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw runtime_error("cannot write profile file '" + path + "' (renaming '" + tmp +
                        "' into place failed)");
  }
}

} // namespace poplar::profile
