// The bench the slice-family and gather suites share: a graph on N tiles, host writes of
// double values converted to the tensor's device type, runs with a chosen host-thread count
// returning raw bytes (for bit-identity checks) or values.
#pragma once

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Half.hpp>
#include <popops/codelets.hpp>

#include <reference/Common.hpp>

#include "SliceTestUtil.hpp"

namespace slicebench {

using namespace poplar;
using namespace poplar::program;
using Values = std::vector<double>;

inline std::vector<char> toDevice(const Type &type, const Values &v) {
  std::vector<char> b;
  auto put = [&](const auto x) {
    const char *p = reinterpret_cast<const char *>(&x);
    b.insert(b.end(), p, p + sizeof(x));
  };
  for (double x : v) {
    if (type == FLOAT)
      put(float(x));
    else if (type == HALF)
      put(poplar::half(float(x)));
    else if (type == INT)
      put(int(x));
    else
      put(unsigned(x));
  }
  return b;
}

inline Values fromDevice(const Type &type, const std::vector<char> &b) {
  Values v;
  auto get = [&](auto x, std::size_t i) {
    std::memcpy(&x, b.data() + i * sizeof(x), sizeof(x));
    return double(x);
  };
  const std::size_t size = type == HALF ? 2 : 4;
  for (std::size_t i = 0; i < b.size() / size; ++i) {
    if (type == FLOAT)
      v.push_back(get(float(), i));
    else if (type == HALF)
      v.push_back(get(poplar::half(0.f), i));
    else if (type == INT)
      v.push_back(get(int(), i));
    else
      v.push_back(get(unsigned(), i));
  }
  return v;
}

/// Values of `type` as the device holds them: rounded for FLOAT/HALF, small integers for INT.
inline Values data(const Type &type, std::size_t n, unsigned seed, double lo = -4, double hi = 4) {
  auto v = reference::randomValues(n, seed, lo, hi);
  for (auto &x : v)
    x = (type == INT) ? std::round(x * 4) : reference::roundTo(type, x);
  return v;
}

/// A graph on `tiles` tiles, the host writes and reads of one program, and its runs.
struct Bench {
  Device device;
  Graph graph;
  Sequence prog;
  std::map<std::string, std::vector<char>> writes;
  std::map<std::string, Tensor> reads;

  explicit Bench(unsigned tiles) : device(slicetest::device(tiles)), graph(device.getTarget()) {
    popops::addCodelets(graph);
  }
  Tensor in(const Tensor &t, const std::string &name, const Values &v) {
    graph.createHostWrite(name, t);
    writes[name] = toDevice(t.elementType(), v);
    return t;
  }
  void out(const std::string &name, const Tensor &t) {
    graph.createHostRead(name, t);
    reads.emplace(name, t);
  }
  std::map<std::string, std::vector<char>> runBytes(unsigned threads = 1) {
    OptionFlags opts{{"target.hostThreads", std::to_string(threads)}};
    Engine engine(graph, prog, opts);
    engine.load(device);
    for (const auto &[h, bytes] : writes)
      engine.writeTensor(h, bytes.data(), bytes.data() + bytes.size());
    engine.run();
    std::map<std::string, std::vector<char>> r;
    for (const auto &[h, t] : reads) {
      std::vector<char> bytes(t.numElements() * (t.elementType() == HALF ? 2 : 4));
      engine.readTensor(h, bytes.data(), bytes.data() + bytes.size());
      r[h] = bytes;
    }
    return r;
  }
  std::map<std::string, Values> run(unsigned threads = 1) {
    std::map<std::string, Values> r;
    for (const auto &[h, bytes] : runBytes(threads))
      r[h] = fromDevice(reads.at(h).elementType(), bytes);
    return r;
  }
};

} // namespace slicebench
