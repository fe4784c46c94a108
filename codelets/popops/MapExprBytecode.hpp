// The register bytecode of a fused `popops::map` expression: written by popops' expression
// compiler on the host, executed by the popops::MapExpr<T> vertices.
//
// A program works on "slots": [0, numRegs) are chunk-sized local registers (32-bit lanes),
// [numRegs, numRegs + numInputs) are the vertex's inputs and numRegs + numInputs is its output.
// Registers hold FLOAT and HALF values as float, INT as int32, UNSIGNED_INT as uint32, SHORT and
// UNSIGNED_SHORT sign- and zero-extended to 32 bits (every op with such a result is followed by a
// Wrap op, so 16-bit arithmetic wraps as 16-bit) and BOOL as a uint32 0/1; only loads and stores
// see 16- and 8-bit element types.
//
// Layout of the `code` vertex field (one 32-bit word each):
//   header: kMagic, chunk, numRegs, numInputs, numPrologue, numBody
//   inputs: numInputs × (field, index, reading, period, phase); field 0 = in4 (32-bit),
//           1 = in2, 2 = in1; reading (InputReading) 0 = an element per output element,
//           1 = one element for all (a scalar), 2 = periodic: output element i reads element
//           (phase + i) % period of a piece of `period` elements (a row broadcast over rows)
//   prologue: numPrologue × (register, kind, index): kind 0 fills the register with
//             consts[index], kind 1 with the converted element 0 of scalar input `index`
//   body: numBody × (opcode, dst, a, b, c), run once per chunk
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::codelets::popops::mapexpr {

/// Every kernel of the interpreter: out[i] = f(a[i], b[i], c[i]) for i < n (unused operands
/// are null). `out` may equal an operand; no other overlap.
using KernelFn = void (*)(void *out, const void *a, const void *b, const void *c, std::size_t n);

// X(name, register kind of the operands, register kind of the result)
// Kinds: F = float, I = int32, U = uint32, B = bool as uint32 0/1, H = half bits (uint16),
// C = bool bytes (uint8). The list is the single source of truth for opcodes, the kernel table
// and the scalar references. The last ops are fused kernels the compiler substitutes for whole
// expressions it recognises (popops/src/MapExprFusion.cpp): GeluTanhF(x) is the tanh-approximated
// GELU, GeluTanhGradF(x, dy) its input gradient. The ops after them are written once in
// MapExprScalarOps.hpp; the integer bit ops (…I) act on the 32-bit pattern of INT and UNSIGNED_INT.
#define TESSERA_MAPEXPR_OPS(X)                                                                     \
  X(CopyF, F, F)                                                                                   \
  X(LoadHalf, H, F)                                                                                \
  X(StoreHalf, F, H)                                                                               \
  X(RoundToHalf, F, F)                                                                             \
  X(LoadBool, C, B)                                                                                \
  X(StoreBool, B, C)                                                                               \
  X(NegF, F, F)                                                                                    \
  X(AbsF, F, F)                                                                                    \
  X(ExpF, F, F)                                                                                    \
  X(Expm1F, F, F)                                                                                  \
  X(LogF, F, F)                                                                                    \
  X(Log1pF, F, F)                                                                                  \
  X(SqrtF, F, F)                                                                                   \
  X(RsqrtF, F, F)                                                                                  \
  X(SquareF, F, F)                                                                                 \
  X(InverseF, F, F)                                                                                \
  X(TanhF, F, F)                                                                                   \
  X(SigmoidF, F, F)                                                                                \
  X(SignumF, F, F)                                                                                 \
  X(FloorF, F, F)                                                                                  \
  X(CeilF, F, F)                                                                                   \
  X(RoundF, F, F)                                                                                  \
  X(TruncF, F, F)                                                                                  \
  X(CosF, F, F)                                                                                    \
  X(SinF, F, F)                                                                                    \
  X(ErfF, F, F)                                                                                    \
  X(ReluF, F, F)                                                                                   \
  X(AddF, F, F)                                                                                    \
  X(SubF, F, F)                                                                                    \
  X(MulF, F, F)                                                                                    \
  X(DivF, F, F)                                                                                    \
  X(PowF, F, F)                                                                                    \
  X(MaxF, F, F)                                                                                    \
  X(MinF, F, F)                                                                                    \
  X(EqF, F, B)                                                                                     \
  X(NeF, F, B)                                                                                     \
  X(LtF, F, B)                                                                                     \
  X(LeF, F, B)                                                                                     \
  X(GtF, F, B)                                                                                     \
  X(GeF, F, B)                                                                                     \
  X(ClampF, F, F)                                                                                  \
  X(NegI, I, I)                                                                                    \
  X(AbsI, I, I)                                                                                    \
  X(SquareI, I, I)                                                                                 \
  X(SignumI, I, I)                                                                                 \
  X(AddI, I, I)                                                                                    \
  X(SubI, I, I)                                                                                    \
  X(MulI, I, I)                                                                                    \
  X(DivI, I, I)                                                                                    \
  X(MaxI, I, I)                                                                                    \
  X(MinI, I, I)                                                                                    \
  X(EqI, I, B)                                                                                     \
  X(NeI, I, B)                                                                                     \
  X(LtI, I, B)                                                                                     \
  X(LeI, I, B)                                                                                     \
  X(GtI, I, B)                                                                                     \
  X(GeI, I, B)                                                                                     \
  X(ClampI, I, I)                                                                                  \
  X(DivU, U, U)                                                                                    \
  X(MaxU, U, U)                                                                                    \
  X(MinU, U, U)                                                                                    \
  X(LtU, U, B)                                                                                     \
  X(LeU, U, B)                                                                                     \
  X(GtU, U, B)                                                                                     \
  X(GeU, U, B)                                                                                     \
  X(ClampU, U, U)                                                                                  \
  X(SignumU, U, U)                                                                                 \
  X(AndB, B, B)                                                                                    \
  X(OrB, B, B)                                                                                     \
  X(NotB, B, B)                                                                                    \
  X(Select, F, F)                                                                                  \
  X(FloatToInt, F, I)                                                                              \
  X(FloatToUnsigned, F, U)                                                                         \
  X(IntToFloat, I, F)                                                                              \
  X(UnsignedToFloat, U, F)                                                                         \
  X(BoolToFloat, B, F)                                                                             \
  X(FloatToBool, F, B)                                                                             \
  X(IntToBool, I, B)                                                                               \
  X(GeluTanhF, F, F)                                                                               \
  X(GeluTanhGradF, F, F)                                                                           \
  X(AsinF, F, F)                                                                                   \
  X(TanF, F, F)                                                                                    \
  X(CbrtF, F, F)                                                                                   \
  X(Exp2F, F, F)                                                                                   \
  X(NearbyIntF, F, F)                                                                              \
  X(GeluErfF, F, F)                                                                                \
  X(IsFiniteF, F, B)                                                                               \
  X(IsInfF, F, B)                                                                                  \
  X(IsNanF, F, B)                                                                                  \
  X(Atan2F, F, F)                                                                                  \
  X(RemF, F, F)                                                                                    \
  X(InvStdDevToVarianceF, F, F)                                                                    \
  X(VarianceToInvStdDevF, F, F)                                                                    \
  X(BitNotI, U, U)                                                                                 \
  X(PopcountI, U, U)                                                                               \
  X(ClzI, U, U)                                                                                    \
  X(BitAndI, U, U)                                                                                 \
  X(BitOrI, U, U)                                                                                  \
  X(BitXorI, U, U)                                                                                 \
  X(BitXnorI, U, U)                                                                                \
  X(ShlI, U, U)                                                                                    \
  X(ShrI, U, U)                                                                                    \
  X(ShrSEI, I, I)                                                                                  \
  X(RemI, I, I)                                                                                    \
  X(RemU, U, U)                                                                                    \
  X(LoadShort, H, I)                                                                               \
  X(LoadUnsignedShort, H, U)                                                                       \
  X(StoreShort, U, H)                                                                              \
  X(WrapShort, I, I)                                                                               \
  X(WrapUnsignedShort, U, U)

/// Opcodes; ops that are the same bit operation for several kinds (copy, add, sub, mul, neg,
/// square, eq, ne of int32 and uint32 and bool) use one opcode.
enum class Op : std::uint32_t {
#define TESSERA_MAPEXPR_ENUM(name, in, out) name,
  TESSERA_MAPEXPR_OPS(TESSERA_MAPEXPR_ENUM)
#undef TESSERA_MAPEXPR_ENUM
      Count
};
inline constexpr std::uint32_t kNumOps = static_cast<std::uint32_t>(Op::Count);

inline constexpr std::uint32_t kMagic = 0x4d415058u; // "MAPX"
inline constexpr std::uint32_t kHeaderWords = 6;
inline constexpr std::uint32_t kInputWords = 5;
inline constexpr std::uint32_t kPrologueWords = 3;
inline constexpr std::uint32_t kInstrWords = 5;
/// Chunk lengths are multiples of this and the worker splits are aligned to it.
inline constexpr std::uint32_t kChunkGrain = 16;
/// Bytes of register storage one vertex call may use (on the host thread's stack).
inline constexpr std::size_t kRegisterBytes = 64 * 1024;

/// The tanh-approximated GELU's constants, x·0.5·(1 + tanh(x·kGeluAlpha·(1 + kGeluBeta·x·x))):
/// what the fused kernels compute and the expressions the compiler recognises are written with.
inline constexpr float kGeluAlpha = 0.7978845608f; // √(2/π)
inline constexpr float kGeluBeta = 0.044715f;

/// Where an input's pieces are and how an element becomes a register value: In4 as it is, In2
/// half → float, In1 bool bytes → 0/1, In2Short / In2UnsignedShort 16-bit integers (from the in2
/// list) sign- or zero-extended.
enum class InputField : std::uint32_t {
  In4 = 0,
  In2 = 1,
  In1 = 2,
  In2Short = 3,
  In2UnsignedShort = 4
};
enum class InputReading : std::uint32_t { PerElement = 0, Scalar = 1, Periodic = 2 };
enum class PrologueKind : std::uint32_t { Const = 0, ScalarInput = 1 };

/// The process-wide kernel table, indexed by Op (the best Highway target for this CPU).
const KernelFn *kernelTable();
/// Scalar references of every kernel, indexed by Op (what the tests compare against).
const KernelFn *referenceTable();
/// The name of an op ("AddF"), for diagnostics and tests.
const char *opName(Op op);

} // namespace tessera::codelets::popops::mapexpr
