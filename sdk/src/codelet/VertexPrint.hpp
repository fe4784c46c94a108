// printf from vertex code (<print.h>): where this thread's vertices print.
//
// The engine gives each tile of a running compute set a buffer and, on the thread running that
// tile, points printf at it; when the set ends it writes the buffers to its print stream in tile
// order. That keeps the output in one order whatever the number of host threads.
#pragma once

#include <string>

namespace poplar::codelet {

/// Makes printf from vertex code on this thread append to `buffer` (owned by the caller, which
/// must reset it to nullptr before the buffer goes away); nullptr prints to stdout directly.
void setVertexPrintBuffer(std::string *buffer);

/// Points this thread's vertex printf at a buffer for one scope.
class ScopedVertexPrintBuffer {
public:
  explicit ScopedVertexPrintBuffer(std::string &buffer) { setVertexPrintBuffer(&buffer); }
  ~ScopedVertexPrintBuffer() { setVertexPrintBuffer(nullptr); }
  ScopedVertexPrintBuffer(const ScopedVertexPrintBuffer &) = delete;
  ScopedVertexPrintBuffer &operator=(const ScopedVertexPrintBuffer &) = delete;
};

} // namespace poplar::codelet
