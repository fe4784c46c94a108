// The Poplar-tutorial matrix-vector example on the default 1472-tile IPU Model, checked for
// exact equality against a host loop that sums each row in the same order as the vertex.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <poplar/IPUModel.hpp>

#include "MatVec.hpp"

namespace {

std::vector<float> values(std::size_t n, std::uint32_t seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = static_cast<float>(static_cast<int>(seed >> 9) % 20001 - 10000) / 997.0f;
  }
  return v;
}

std::vector<float> hostMatVec(std::size_t rows, std::size_t cols, const std::vector<float> &a,
                              const std::vector<float> &x) {
  std::vector<float> y(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    float sum = 0;
    for (std::size_t c = 0; c < cols; ++c) {
      const float p = a[r * cols + c] * x[c]; // rounded product, then rounded sum
      sum += p;
    }
    y[r] = sum;
  }
  return y;
}

void checkMatVec(std::size_t rows, std::size_t cols, unsigned hostThreads = 0) {
  SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
  poplar::IPUModel model; // default: 1472 tiles
  ASSERT_EQ(model.tilesPerIPU, 1472u);
  poplar::Device device = model.createDevice();
  const std::vector<float> a = values(rows * cols, static_cast<std::uint32_t>(rows * 31 + cols));
  const std::vector<float> x = values(cols, static_cast<std::uint32_t>(cols * 7 + 3));
  const std::vector<float> y = matvec::multiply(device, rows, cols, a, x, hostThreads);
  const std::vector<float> expect = hostMatVec(rows, cols, a, x);
  ASSERT_EQ(y.size(), rows);
  std::size_t mismatches = 0;
  for (std::size_t r = 0; r < rows; ++r)
    if (std::memcmp(&y[r], &expect[r], sizeof(float)) != 0 && mismatches++ < 5)
      ADD_FAILURE() << "row " << r << ": got " << y[r] << ", expected " << expect[r];
  EXPECT_EQ(mismatches, 0u);
}

} // namespace

TEST(MatVec, OneByOne) { checkMatVec(1, 1); }
TEST(MatVec, OneBySeven) { checkMatVec(1, 7); }
TEST(MatVec, SevenByOne) { checkMatVec(7, 1); }
TEST(MatVec, ThreeByThousand) { checkMatVec(3, 1000); }
TEST(MatVec, ThousandByThree) { checkMatVec(1000, 3); }
TEST(MatVec, HundredByHundred) { checkMatVec(100, 100); }
TEST(MatVec, ThousandByThousand) { checkMatVec(1000, 1000); }
TEST(MatVec, MoreRowsThanTilesWrapsAround) { checkMatVec(1500, 5); }
TEST(MatVec, SameResultWithOneAndThreeHostThreads) {
  checkMatVec(200, 300, 1);
  checkMatVec(200, 300, 3);
}
