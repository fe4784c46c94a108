// Small helpers shared by the slice/gather/sort/topK tests: a device, and running a program
// that writes some host tensors and reads others back.
#pragma once

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

namespace slicetest {

inline poplar::Device device(unsigned tiles) {
  poplar::IPUModel m;
  m.tilesPerIPU = tiles;
  return m.createDevice();
}

/// Loads and runs `prog` once after writing `in` (handle -> raw bytes) into the engine; returns
/// the raw bytes of each handle of `out` (handle -> number of bytes).
inline std::map<std::string, std::vector<char>>
run(poplar::Graph &graph, poplar::Device &d, const poplar::program::Program &prog,
    const std::map<std::string, std::vector<char>> &in,
    const std::map<std::string, std::size_t> &out) {
  poplar::Engine engine(graph, prog);
  engine.load(d);
  for (const auto &[h, bytes] : in)
    engine.writeTensor(h, bytes.data(), bytes.data() + bytes.size());
  engine.run();
  std::map<std::string, std::vector<char>> result;
  for (const auto &[h, n] : out) {
    std::vector<char> bytes(n);
    engine.readTensor(h, bytes.data(), bytes.data() + n);
    result[h] = bytes;
  }
  return result;
}

template <class T> std::vector<char> bytesOf(const std::vector<T> &v) {
  const char *p = reinterpret_cast<const char *>(v.data());
  return std::vector<char>(p, p + v.size() * sizeof(T));
}
template <class T> std::vector<T> valuesOf(const std::vector<char> &b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

} // namespace slicetest
