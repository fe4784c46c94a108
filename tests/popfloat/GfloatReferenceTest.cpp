// The golden reference checks itself: gfloatRound's arithmetic agrees with rounding by search
// over the sorted list of every value, for every 8-bit format shape and deterministic mode, on
// every value, midpoint and quarter point (so the device tests compare against a reference whose
// rounding was verified exhaustively).
#include "GfloatTestHarness.hpp"

using namespace gfloat_test;

namespace {

std::vector<reference::GfloatFormat> allEightBitFormats() {
  std::vector<reference::GfloatFormat> formats;
  for (unsigned exp = 0; exp <= 7; ++exp) {
    const unsigned man = 7 - exp;
    for (int bias : {-3, 0, 1, 3, 7, 15})
      for (bool denorms : {false, true})
        for (bool infs : {false, true}) {
          reference::GfloatFormat f{man, exp, bias, denorms, infs};
          if (exp > 0 && infs && man == 0)
            continue; // no NaN code
          if (!reference::gfloatHasNormals(f) && !denorms)
            continue; // only zero
          if (std::fabs(reference::gfloatMaxValue(f)) > 1e300)
            continue;
          formats.push_back(f);
        }
  }
  return formats;
}

TEST(GfloatReference, RoundingArithmeticMatchesSearchOverEveryEightBitFormat) {
  const reference::GfloatRound modes[] = {reference::GfloatRound::RZ, reference::GfloatRound::RN,
                                          reference::GfloatRound::RA, reference::GfloatRound::RU,
                                          reference::GfloatRound::RD};
  std::size_t checked = 0;
  for (const auto &f : allEightBitFormats()) {
    const auto values = reference::gfloatPositiveValues(f);
    for (double x : probeValues(f))
      for (auto mode : modes)
        for (bool nanoo : {false, true}) {
          const double a = reference::gfloatRound(x, f, mode, nanoo);
          const double b = reference::gfloatRoundByEnumeration(x, f, mode, nanoo, values);
          ASSERT_TRUE(sameValue(a, b))
              << "x=" << x << " man=" << f.man << " exp=" << f.exp << " bias=" << f.bias
              << " denorms=" << f.denorms << " infs=" << f.infsAndNans << " mode=" << int(mode)
              << ": " << a << " vs " << b;
          ++checked;
        }
  }
  EXPECT_GT(checked, 100000u);
}

TEST(GfloatReference, EveryCodeEncodesBackToItself) {
  for (const auto &f : allEightBitFormats()) {
    const auto values = reference::gfloatPositiveValues(f);
    for (unsigned code = 0; code < 256; ++code) {
      const double v = reference::gfloatCodeValue(code, f);
      const unsigned back = reference::gfloatEncode(v, f, values);
      EXPECT_TRUE(sameValue(reference::gfloatCodeValue(back, f), v)) << code;
    }
  }
}

} // namespace
