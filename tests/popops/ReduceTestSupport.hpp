// Shared by the reduction tests: run popops::reduce on a small IPU model and a naive host
// reference in double to compare with.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Half.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/Reduce.hpp>
#include <popops/codelets.hpp>
#include <reference/DeviceValues.hpp>
#include <reference/Reduce.hpp>
#include <poputil/TileMapping.hpp>

namespace reduce_test {

inline poplar::Device device(unsigned tiles) {
  poplar::IPUModel m;
  m.tilesPerIPU = tiles;
  return m.createDevice();
}

/// Host values <-> device bytes of `type` (reference/DeviceValues.hpp).
inline std::vector<unsigned char> toDevice(const poplar::Type &type, const std::vector<double> &v) {
  return ::reference::toDeviceBytes(type, v);
}
inline std::vector<double> fromDevice(const poplar::Type &type,
                                      const std::vector<unsigned char> &bytes, std::size_t n) {
  return ::reference::fromDeviceBytes(type, bytes, n);
}
inline std::size_t typeBytes(const poplar::Type &t) { return ::reference::deviceBytes(t); }

/// Values suited to `op` and `type`: exactly representable in `type`, products that stay
/// near 1, booleans for logical ops.
inline std::vector<double> sampleInput(const poplar::Type &type, popops::Operation op,
                                       std::size_t n, unsigned seed = 1) {
  std::mt19937 gen(seed);
  std::vector<double> v(n);
  for (auto &x : v) {
    if (type == poplar::BOOL)
      x = (gen() % 5 != 0) ? 1 : 0;
    else if (type == poplar::INT)
      x = op == popops::Operation::MUL ? ((gen() % 7 == 0) ? -1.0 : 1.0)
                                       : static_cast<double>(static_cast<int>(gen() % 41) - 20);
    else if (op == popops::Operation::MUL)
      x = 1.0 + (static_cast<int>(gen() % 33) - 16) / 256.0; // exact in half
    else
      x = (static_cast<int>(gen() % 257) - 128) / 32.0; // exact in half
  }
  return v;
}

/// Builds `in` = view(variable), reduces it on a `tiles`-tile model, returns the output. The
/// input data is written through the view, in the view's element order.
struct Run {
  poplar::Type type = poplar::FLOAT;
  poplar::Type outType = poplar::FLOAT;
  std::vector<std::size_t> varShape;
  std::vector<std::size_t> dims;
  popops::ReduceParams params = popops::Operation::ADD;
  unsigned tiles = 16;
  unsigned hostThreads = 0;
  std::function<poplar::Tensor(const poplar::Tensor &)> view = [](const poplar::Tensor &t) {
    return t;
  };
};

inline std::vector<double> runReduce(const Run &r, const std::vector<double> &inViewOrder,
                                     std::vector<std::size_t> *outShape = nullptr) {
  poplar::Device d = device(r.tiles);
  poplar::Graph graph(d.getTarget());
  popops::addCodelets(graph);
  poplar::Tensor var = graph.addVariable(r.type, r.varShape, "in");
  poputil::mapTensorLinearly(graph, var, 1, 1);
  poplar::Tensor in = r.view(var);
  graph.createHostWrite("in", in);
  poplar::program::Sequence prog;
  poplar::Tensor out = popops::reduce(graph, in, r.outType, r.dims, r.params, prog);
  graph.createHostRead("out", out);
  poplar::OptionFlags opts;
  if (r.hostThreads)
    opts.set("target.hostThreads", std::to_string(r.hostThreads));
  poplar::Engine engine(graph, prog, opts);
  engine.load(d);
  auto bytes = toDevice(r.type, inViewOrder);
  if (!bytes.empty()) // the SDK rejects a null buffer even for an empty tensor
    engine.writeTensor("in", bytes.data(), bytes.data() + bytes.size());
  engine.run();
  std::vector<unsigned char> outBytes(out.numElements() * typeBytes(r.outType));
  if (!outBytes.empty())
    engine.readTensor("out", outBytes.data(), outBytes.data() + outBytes.size());
  if (outShape)
    *outShape = out.shape();
  return fromDevice(r.outType, outBytes, out.numElements());
}

/// Tolerance for comparing with the double reference.
inline double tolerance(const poplar::Type &inType, const poplar::Type &outType,
                        popops::Operation op, double want, double magnitude) {
  if (inType == poplar::INT || inType == poplar::BOOL)
    return 0.0;
  double tol = 1e-5 * (magnitude + std::abs(want)) + 1e-6;
  if (op == popops::Operation::MAX || op == popops::Operation::MIN)
    tol = 0.0;
  if (outType == poplar::HALF)
    tol += std::abs(want) * 1e-3 + 1e-3;
  return tol;
}

} // namespace reduce_test
