// The floating-point behaviour of tiles (the IPU's floating-point control register): which
// exceptions stop the program, stochastic rounding, NaN on overflow.
//
// What Tessera emulates: every replica keeps one mode for all its tiles, set by the programs
// below as they run and reset to "all off" (IEEE results: inf, NaN) when the engine is loaded.
// With inv, div0 or oflo on, the host's floating-point exception flags are cleared before
// each vertex runs and checked after it; an enabled one that was raised (an invalid operation
// such as 0/0 or inf - inf, a division by zero, an overflow — in FLOAT, or in HALF computed
// through float) stops the run with `application_runtime_error` naming the vertex, its type,
// compute set and tile and the exception (the lowest tile's, whatever the number of host
// threads), as an IPU stops with its tiles in an excepted state. Copies and exchanges never
// raise. Not emulated: stochastic rounding (esr) — Tessera always rounds to nearest, so
// results stay deterministic — and nanoo, which is kept in the mode (getAndModify reports it)
// but does not turn overflows into NaN.
#pragma once

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace poplar {

/// One flag per part of the floating-point mode; all on by default.
struct FloatingPointBehaviour {
  bool inv = true;   ///< Stop on an invalid operation.
  bool div0 = true;  ///< Stop on a division by zero.
  bool oflo = true;  ///< Stop on an overflow.
  bool esr = true;   ///< Stochastic rounding (accepted, not emulated: see above).
  bool nanoo = true; ///< NaN on overflow (kept in the mode, not emulated: see above).
  FloatingPointBehaviour(bool inv, bool div0, bool oflo, bool esr, bool nanoo)
      : inv(inv), div0(div0), oflo(oflo), esr(esr), nanoo(nanoo) {}
  FloatingPointBehaviour() = default;
  /// Every flag inverted.
  FloatingPointBehaviour operator!() const {
    return FloatingPointBehaviour(!inv, !div0, !oflo, !esr, !nanoo);
  }
};

/// Appends to `prog` a program that sets every tile's mode to `behaviour`.
void setFloatingPointBehaviour(Graph &graph, program::Sequence &prog,
                               const FloatingPointBehaviour &behaviour,
                               const DebugContext &debugContext = {});

/// Appends to `prog` a program that turns stochastic rounding on or off (the esr flag only;
/// a no-op for the arithmetic on a CPU, see above).
void setStochasticRounding(Graph &graph, program::Sequence &prog, bool behaviour,
                           const DebugContext &debugContext = {});

/// Appends to `prog` a program that saves the mode into the returned tensor, then clears the
/// flags set in `clear` and sets those set in `set` (clearing first). The tensor (UNSIGNED_INT,
/// one element per tile of `graph`, each mapped to its tile) restores the saved mode when given
/// to the setFloatingPointBehaviour below. Its bits are Tessera's: inv 1, div0 2, oflo 4,
/// esr 8, nanoo 16.
Tensor getAndModifyFloatingPointBehaviour(Graph &graph, program::Sequence &prog,
                                          const FloatingPointBehaviour &clear,
                                          const FloatingPointBehaviour &set,
                                          const DebugContext &debugContext = {});

/// Appends to `prog` a program that restores a mode saved by
/// getAndModifyFloatingPointBehaviour (its first element: every tile shares one mode).
/// Throws `type_error` when `behaviour` is not a non-empty UNSIGNED_INT tensor.
void setFloatingPointBehaviour(Graph &graph, program::Sequence &prog, const Tensor &behaviour,
                               const DebugContext &debugContext = {});

} // namespace poplar
