// The floating-point mode tile code runs in: subnormal floats flushed to zero.
//
// IPU tiles keep no fp32 subnormals, and on x86 an FMA that meets a subnormal operand or result
// can take a microcode assist costing around a hundred cycles, so tensors that drift below
// FLT_MIN (softmax tails of a confident model, say) would make run time depend on the data.
// Flush-to-zero (results) and denormals-are-zero (operands) are set on every thread that runs
// vertices: the pool's workers for their lifetime, the thread calling Engine::run for the
// duration of the call (its own mode is restored afterwards). Every thread computes in the same
// mode, so results stay identical for any number of host threads. HALF values are unaffected:
// a half's subnormals are normal floats.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace poplar::engine {

#if defined(__x86_64__) || defined(__i386__)
using FloatModeWord = unsigned;
inline FloatModeWord currentFloatMode() { return _mm_getcsr(); }
inline void setFloatMode(FloatModeWord mode) { _mm_setcsr(mode); }
/// MXCSR flush-to-zero (bit 15) and denormals-are-zero (bit 6).
inline constexpr FloatModeWord kFlushSubnormals = (1u << 15) | (1u << 6);
#elif defined(__aarch64__)
using FloatModeWord = unsigned;
inline FloatModeWord currentFloatMode() { return __builtin_aarch64_get_fpcr(); }
inline void setFloatMode(FloatModeWord mode) { __builtin_aarch64_set_fpcr(mode); }
/// FPCR.FZ (bit 24) flushes both subnormal operands and results.
inline constexpr FloatModeWord kFlushSubnormals = 1u << 24;
#else
using FloatModeWord = unsigned;
inline FloatModeWord currentFloatMode() { return 0; }
inline void setFloatMode(FloatModeWord) {}
inline constexpr FloatModeWord kFlushSubnormals = 0;
#endif

/// Puts the calling thread into the tile mode for good (pool worker threads).
inline void enterTileFloatMode() { setFloatMode(currentFloatMode() | kFlushSubnormals); }

/// Puts the calling thread into the tile mode while it lives, then restores the previous mode.
class ScopedTileFloatMode {
public:
  ScopedTileFloatMode() : saved_(currentFloatMode()) { setFloatMode(saved_ | kFlushSubnormals); }
  ~ScopedTileFloatMode() { setFloatMode(saved_); }
  ScopedTileFloatMode(const ScopedTileFloatMode &) = delete;
  ScopedTileFloatMode &operator=(const ScopedTileFloatMode &) = delete;

private:
  FloatModeWord saved_;
};

} // namespace poplar::engine
