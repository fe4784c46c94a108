// Philox-4x32-10, one element index per lane, written once with Highway.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "poprand/kernels/PhiloxKernels.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep
#include <hwy/highway.h>

#include "common/Dispatch.hpp"
#include "poprand/kernels/PhiloxKernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::codelets::poprand {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// High 32 bits of the lane-wise 32x32-bit product a * m, from two MulEven (even, then odd lanes).
#if HWY_TARGET != HWY_SCALAR
template <class D, class V> HWY_INLINE V MulHigh32(D d, V a, V m) {
  const hn::Repartition<std::uint64_t, D> d64;
  const auto evenProducts = hn::MulEven(a, m);
  const auto aOdd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(d64, a)));
  const auto oddProducts = hn::MulEven(aOdd, m);
  const auto evenHigh = hn::BitCast(d, hn::ShiftRight<32>(evenProducts));
  return hn::OddEven(hn::BitCast(d, oddProducts), evenHigh);
}
#endif

#if HWY_TARGET != HWY_SCALAR
/// The ten Philox rounds over counters (c0, c1, c2, c3) under key (k0, k1), in place.
template <class D, class V>
HWY_INLINE void philoxRounds(D d, V &c0, V &c1, V &c2, V &c3, std::uint32_t k0, std::uint32_t k1) {
  const auto m0 = hn::Set(d, kPhiloxM0), m1 = hn::Set(d, kPhiloxM1);
  for (int round = 0; round < 10; ++round) {
    const auto hi0 = MulHigh32(d, c0, m0), lo0 = hn::Mul(c0, m0);
    const auto hi1 = MulHigh32(d, c2, m1), lo1 = hn::Mul(c2, m1);
    c0 = hn::Xor(hn::Xor(hi1, c1), hn::Set(d, k0));
    c1 = lo1;
    c2 = hn::Xor(hn::Xor(hi0, c3), hn::Set(d, k1));
    c3 = lo0;
    k0 += kPhiloxW0;
    k1 += kPhiloxW1;
  }
}
#endif

void PhiloxBlocks(const StreamKey &key, std::uint64_t first, std::size_t n,
                  std::uint32_t *HWY_RESTRICT w0, std::uint32_t *HWY_RESTRICT w1,
                  std::uint32_t *HWY_RESTRICT w2, std::uint32_t *HWY_RESTRICT w3) {
#if HWY_TARGET == HWY_SCALAR
  // One lane cannot pair 32-bit lanes into 64-bit products; the reference is the same thing.
  philoxBlocksReference(key, first, n, w0, w1, w2, w3);
#else
  const hn::ScalableTag<std::uint32_t> d;
  const std::size_t lanes = hn::Lanes(d);
  const auto indexHigh = hn::Set(d, static_cast<std::uint32_t>(first >> 32));
  const auto modifier = hn::Set(d, key.seedModifier);
  const auto top = hn::Set(d, streamWord(key.stream, 0));
  const std::uint32_t firstLow = static_cast<std::uint32_t>(first);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto c0 = hn::Add(hn::Iota(d, 0), hn::Set(d, static_cast<std::uint32_t>(firstLow + i)));
    auto c1 = indexHigh, c2 = modifier, c3 = top;
    philoxRounds(d, c0, c1, c2, c3, key.seed0, key.seed1);
    hn::StoreU(c0, d, w0 + i);
    hn::StoreU(c1, d, w1 + i);
    hn::StoreU(c2, d, w2 + i);
    hn::StoreU(c3, d, w3 + i);
  }
  if (i < n)
    philoxBlocksReference(key, first + i, n - i, w0 + i, w1 + i, w2 + i, w3 + i);
#endif
}

void DropoutFloat(const StreamKey &key, std::uint64_t first, std::size_t n,
                  const float *HWY_RESTRICT in, float *HWY_RESTRICT out,
                  unsigned long long threshold, float scale) {
  auto one = [&](std::size_t k) {
    out[k] = fires(dropoutWord(key, first + k), threshold) ? in[k] * scale : 0.0f;
  };
  std::size_t i = 0;
  // Up to the first element that begins a block: vectors below make whole blocks.
  for (; i < n && (first + i) % 4 != 0; ++i)
    one(i);
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<std::uint32_t> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::RebindToFloat<decltype(d)> df;
  const std::size_t lanes = hn::Lanes(d);
  const auto modifier = hn::Set(d, key.seedModifier);
  const auto top = hn::Set(d, streamWord(key.stream, 0));
  // w < threshold as a signed compare of both with the sign bit flipped (threshold < 2^32);
  // threshold 2^32 keeps every element.
  const bool keepAll = threshold > 0xFFFFFFFFull;
  const auto flip = hn::Set(d, 0x80000000u);
  const auto limit = hn::BitCast(di, hn::Xor(hn::Set(d, std::uint32_t(threshold)), flip));
  const auto scaleV = hn::Set(df, scale);
  HWY_ALIGN std::uint32_t words[4 * hn::MaxLanes(d)];
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const std::uint64_t block = (first + i) / 4;
    if (static_cast<std::uint32_t>(block) > 0xFFFFFFFFu - (lanes - 1)) { // low word wraps
      for (std::size_t k = 0; k < 4 * lanes; ++k)
        one(i + k);
      continue;
    }
    auto c0 = hn::Add(hn::Iota(d, 0), hn::Set(d, static_cast<std::uint32_t>(block)));
    auto c1 = hn::Set(d, static_cast<std::uint32_t>(block >> 32)), c2 = modifier, c3 = top;
    philoxRounds(d, c0, c1, c2, c3, key.seed0, key.seed1);
    // Element 4b + k takes word k of block b: interleaved, the words are in element order.
    hn::StoreInterleaved4(c0, c1, c2, c3, d, words);
    for (std::size_t q = 0; q < 4; ++q) {
      const auto w = hn::Load(d, words + q * lanes);
      const auto kept = hn::RebindMask(df, hn::Lt(hn::BitCast(di, hn::Xor(w, flip)), limit));
      const auto x = hn::Mul(hn::LoadU(df, in + i + q * lanes), scaleV);
      hn::StoreU(keepAll ? x : hn::IfThenElseZero(kept, x), df, out + i + q * lanes);
    }
  }
#endif
  for (; i < n; ++i)
    one(i);
}

} // namespace HWY_NAMESPACE
} // namespace tessera::codelets::poprand
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::codelets::poprand {
HWY_EXPORT(PhiloxBlocks);
HWY_EXPORT(DropoutFloat);
PhiloxBlocksFn philoxBlocksKernel() { return TESSERA_DYNAMIC_POINTER(PhiloxBlocks); }
DropoutFloatFn dropoutFloatKernel() { return TESSERA_DYNAMIC_POINTER(DropoutFloat); }
} // namespace tessera::codelets::poprand
#endif
