// The layouts of vertex fields, as Poplar declares them in this header (codelets include it
// directly or through <poplar/Vertex.hpp>).
#pragma once

namespace poplar {

/// Layout hints Poplar uses to compress vertex state on the IPU. Accepted for source
/// compatibility; on Tessera every layout stores a full pointer and a size, so `size()` and
/// iteration work for all of them (Poplar offers them for SPAN and SHORT_SPAN only).
enum class VectorLayout {
  ONE_PTR,
  SPAN,
  SCALED_PTR32,
  SCALED_PTR64,
  SCALED_PTR128,
  COMPACT_PTR,
  SHORT_SPAN
};
enum class VectorListLayout {
  ONE_PTR,
  SCALED_PTR32,
  SCALED_PTR64,
  DELTAN,
  DELTANELEMENTS,
  COMPACT_DELTAN
};

} // namespace poplar
