#include "codelet/VertexPrint.hpp"

#include <cstdarg>
#include <cstdio>

namespace poplar::codelet {

namespace {
thread_local std::string *tlsPrintBuffer = nullptr;
} // namespace

void setVertexPrintBuffer(std::string *buffer) { tlsPrintBuffer = buffer; }

} // namespace poplar::codelet

/// What `printf` names in code that includes <print.h>.
extern "C" __attribute__((visibility("default"))) int tessera_vertex_printf(const char *format,
                                                                            ...) {
  std::va_list args;
  va_start(args, format);
  std::string *buffer = poplar::codelet::tlsPrintBuffer;
  if (!buffer) {
    const int n = std::vprintf(format, args);
    va_end(args);
    return n;
  }
  char small[256];
  std::va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (n < 0) {
    va_end(again);
    return n;
  }
  if (static_cast<std::size_t>(n) < sizeof small) {
    buffer->append(small, static_cast<std::size_t>(n));
  } else {
    const std::size_t at = buffer->size();
    buffer->resize(at + static_cast<std::size_t>(n) + 1);
    std::vsnprintf(buffer->data() + at, static_cast<std::size_t>(n) + 1, format, again);
    buffer->resize(at + static_cast<std::size_t>(n));
  }
  va_end(again);
  return n;
}
