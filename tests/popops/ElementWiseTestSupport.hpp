// Helpers shared by the element-wise and map tests: small devices, host data in and out.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

namespace ewtest {

inline poplar::Device device(unsigned tiles) {
  poplar::IPUModel m;
  m.tilesPerIPU = tiles;
  return m.createDevice();
}

/// A graph over `tiles` tiles with popops' codelets, and the device it targets.
struct Fixture {
  poplar::Device dev;
  poplar::Graph graph;
  poplar::program::Sequence prog;
  explicit Fixture(unsigned tiles = 4) : dev(device(tiles)), graph(dev.getTarget()) {
    popops::addCodelets(graph);
  }
  /// A variable mapped linearly (grain 1), writable from the host as `name`.
  poplar::Tensor var(poplar::Type type, std::vector<std::size_t> shape, const std::string &name) {
    poplar::Tensor t = graph.addVariable(type, shape, name);
    poputil::mapTensorLinearly(graph, t, 1, 1);
    graph.createHostWrite(name, t);
    return t;
  }
  void read(const std::string &name, const poplar::Tensor &t) { graph.createHostRead(name, t); }
};

/// Uniform values in [lo, hi).
inline std::vector<float> randomFloats(std::size_t n, float lo, float hi, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto &x : v)
    x = dist(rng);
  return v;
}
inline std::vector<int> randomInts(std::size_t n, int lo, int hi, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int> v(n);
  for (auto &x : v)
    x = dist(rng);
  return v;
}

inline std::vector<std::uint16_t> toHalf(const std::vector<float> &v) {
  std::vector<std::uint16_t> h(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    h[i] = poplar::floatToHalfBits(v[i]);
  return h;
}
inline std::vector<float> fromHalf(const std::vector<std::uint16_t> &h) {
  std::vector<float> v(h.size());
  for (std::size_t i = 0; i < h.size(); ++i)
    v[i] = poplar::halfBitsToFloat(h[i]);
  return v;
}
/// `x` rounded to the nearest half, as a float.
inline float roundHalf(float x) { return poplar::halfBitsToFloat(poplar::floatToHalfBits(x)); }

template <class T> void write(poplar::Engine &e, const std::string &name, const std::vector<T> &v) {
  e.writeTensor(name, v.data(), v.data() + v.size());
}
template <class T> std::vector<T> read(poplar::Engine &e, const std::string &name, std::size_t n) {
  std::vector<T> v(n);
  e.readTensor(name, v.data(), v.data() + n);
  return v;
}
/// BOOL tensors read as bytes.
inline std::vector<unsigned char> readBool(poplar::Engine &e, const std::string &name,
                                           std::size_t n) {
  return read<unsigned char>(e, name, n);
}

} // namespace ewtest
