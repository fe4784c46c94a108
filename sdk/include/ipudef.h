// <ipudef.h>: the IPU's short vector types, as Poplar's codelet runtime declares them.
//
// Codelets use them to work on two or four elements at once, often by reinterpreting a field's
// elements: `const float2 *p = reinterpret_cast<const float2 *>(&in[0]);`. They are compiler
// vector types, as on the IPU, so `v[i]` reads and writes an element, arithmetic and comparison
// work element-wise (`a * b + c`), a scalar operand is broadcast (`v * 2.0f`) and
// `float2{1, 2}` builds one. With Clang (`TESSERA_CXX=clang++`) they are `ext_vector_type`s and
// also have `.x .y .z .w`; with GCC, index them.
//
// Size is the element size times the count, as on the IPU; alignment is the size but at most
// 8 bytes, the IPU's widest load and the alignment Tessera gives every tensor's storage, so a
// field's first element can always be reinterpreted (an element in the middle only when its
// offset is a multiple of the vector's size, as on the IPU).
//
// half2 and half4 hold poplar::half elements (IEEE binary16, the layout of HALF tensors): small
// structs with indexing, `{a, b}` construction and element-wise + - * / (with each other or
// with a float), since host compilers have no half vector type that takes poplar::half values.
#pragma once

#include <poplar/Half.hpp>

#if defined(__clang__)
#define TESSERA_IPU_VECTOR(T, N, ALIGN) __attribute__((ext_vector_type(N), aligned(ALIGN)))
#else
#define TESSERA_IPU_VECTOR(T, N, ALIGN) __attribute__((vector_size(sizeof(T) * N), aligned(ALIGN)))
#endif

typedef float float2 TESSERA_IPU_VECTOR(float, 2, 8);
typedef float float4 TESSERA_IPU_VECTOR(float, 4, 8);
typedef int int2 TESSERA_IPU_VECTOR(int, 2, 8);
typedef int int4 TESSERA_IPU_VECTOR(int, 4, 8);
typedef unsigned int uint2 TESSERA_IPU_VECTOR(unsigned int, 2, 8);
typedef unsigned int uint4 TESSERA_IPU_VECTOR(unsigned int, 4, 8);
typedef short short2 TESSERA_IPU_VECTOR(short, 2, 4);
typedef short short4 TESSERA_IPU_VECTOR(short, 4, 8);
typedef unsigned short ushort2 TESSERA_IPU_VECTOR(unsigned short, 2, 4);
typedef unsigned short ushort4 TESSERA_IPU_VECTOR(unsigned short, 4, 8);
typedef char char2 TESSERA_IPU_VECTOR(char, 2, 2);
typedef char char4 TESSERA_IPU_VECTOR(char, 4, 4);
typedef unsigned char uchar2 TESSERA_IPU_VECTOR(unsigned char, 2, 2);
typedef unsigned char uchar4 TESSERA_IPU_VECTOR(unsigned char, 4, 4);

namespace tessera {
namespace ipu {
/// N halves: poplar::half elements with indexing and element-wise arithmetic. Each element
/// operation happens in float and rounds to half, as poplar::half arithmetic does (the IPU's
/// half vector instructions round each result too). A struct, not a compiler vector type, so
/// `half2 v = {a, b}` takes poplar::half values, as IPU code writes it.
template <unsigned N> struct alignas(2 * N < 8 ? 2 * N : 8) HalfVector {
  poplar::half e[N];
  poplar::half &operator[](unsigned i) { return e[i]; }
  const poplar::half &operator[](unsigned i) const { return e[i]; }
  HalfVector operator-() const {
    HalfVector r;
    for (unsigned i = 0; i < N; ++i)
      r.e[i] = -float(e[i]);
    return r;
  }
  HalfVector operator+() const { return *this; }
#define TESSERA_HALF_VECTOR_OP(op)                                                                 \
  friend HalfVector operator op(const HalfVector &a, const HalfVector &b) {                        \
    HalfVector r;                                                                                  \
    for (unsigned i = 0; i < N; ++i)                                                               \
      r.e[i] = float(a.e[i]) op float(b.e[i]);                                                     \
    return r;                                                                                      \
  }                                                                                                \
  friend HalfVector operator op(const HalfVector &a, float b) {                                    \
    HalfVector r;                                                                                  \
    for (unsigned i = 0; i < N; ++i)                                                               \
      r.e[i] = float(a.e[i]) op b;                                                                 \
    return r;                                                                                      \
  }                                                                                                \
  friend HalfVector operator op(float a, const HalfVector &b) {                                    \
    HalfVector r;                                                                                  \
    for (unsigned i = 0; i < N; ++i)                                                               \
      r.e[i] = a op float(b.e[i]);                                                                 \
    return r;                                                                                      \
  }                                                                                                \
  HalfVector &operator op##=(const HalfVector &b) { return *this = *this op b; }                   \
  HalfVector &operator op##=(float b) { return *this = *this op b; }
  TESSERA_HALF_VECTOR_OP(+)
  TESSERA_HALF_VECTOR_OP(-)
  TESSERA_HALF_VECTOR_OP(*)
  TESSERA_HALF_VECTOR_OP(/)
#undef TESSERA_HALF_VECTOR_OP
};
} // namespace ipu
} // namespace tessera
typedef tessera::ipu::HalfVector<2> half2;
typedef tessera::ipu::HalfVector<4> half4;

#undef TESSERA_IPU_VECTOR

static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2 as on the IPU");
static_assert(sizeof(float4) == 16 && alignof(float4) == 8, "float4: 16 bytes, 8-aligned");
static_assert(sizeof(half2) == 4 && sizeof(half4) == 8, "half vectors as on the IPU");
