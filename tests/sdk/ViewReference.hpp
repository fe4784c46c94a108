// Host-side references for tensor-view tests: naive row-major index arithmetic, expansion of a
// view's variable regions into one entry per element, and an end-to-end rig that writes base
// variables through the Engine and reads views back.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>

namespace viewref {

using Shape = std::vector<std::size_t>;
/// One element of a variable: (variable id, element index).
using Element = std::pair<unsigned, std::size_t>;

inline std::size_t numElementsOf(const Shape &s) {
  std::size_t n = 1;
  for (auto d : s)
    n *= d;
  return n;
}

/// Calls fn(index) for every multi-index of `shape` in row-major order.
inline void forEachIndex(const Shape &shape, const std::function<void(const Shape &)> &fn) {
  if (numElementsOf(shape) == 0)
    return;
  Shape idx(shape.size(), 0);
  for (;;) {
    fn(idx);
    std::size_t k = shape.size();
    while (k > 0) {
      --k;
      if (++idx[k] < shape[k])
        break;
      idx[k] = 0;
      if (k == 0)
        return;
    }
    if (shape.empty())
      return;
  }
}

/// Row-major flat offset of `idx` in `shape`.
inline std::size_t flatOf(const Shape &shape, const Shape &idx) {
  std::size_t f = 0;
  for (std::size_t i = 0; i < shape.size(); ++i)
    f = f * shape[i] + idx[i];
  return f;
}

/// `prefix` followed by the decimal `k` (appending, which GCC 12 does not misdiagnose).
inline std::string numbered(std::string prefix, std::size_t k) {
  prefix += std::to_string(k);
  return prefix;
}

/// The view's elements in tensor order, expanded from getVarRegions().
inline std::vector<Element> elementsOf(const poplar::Tensor &t) {
  std::vector<Element> out;
  for (const auto &r : t.getVarRegions())
    for (std::size_t i = r.interval.begin(); i < r.interval.end(); ++i)
      out.push_back({r.var.id, i});
  return out;
}

/// The variable id of a freshly added variable.
inline unsigned varOf(const poplar::Tensor &base) { return base.getVarRegions().at(0).var.id; }

/// Expected elements of a view of one base variable, given the base flat indices.
inline std::vector<Element> onVar(const poplar::Tensor &base,
                                  const std::vector<std::size_t> &flat) {
  std::vector<Element> out;
  const unsigned v = varOf(base);
  for (auto f : flat)
    out.push_back({v, f});
  return out;
}

/// For every index of `outShape` (row-major), the base flat index `srcOf` maps it to.
inline std::vector<std::size_t> naiveMap(const Shape &outShape,
                                         const std::function<std::size_t(const Shape &)> &srcOf) {
  std::vector<std::size_t> out;
  forEachIndex(outShape, [&](const Shape &idx) { out.push_back(srcOf(idx)); });
  return out;
}

/// Checks the view's element list and that getContiguousRegions tiles [0, n) in the same runs.
inline void expectView(const poplar::Tensor &view, const Shape &shape,
                       const std::vector<Element> &expected) {
  EXPECT_EQ(view.shape(), shape);
  EXPECT_EQ(view.numElements(), numElementsOf(shape));
  EXPECT_EQ(elementsOf(view), expected);
  auto regions = view.getVarRegions();
  auto contiguous = view.getContiguousRegions();
  ASSERT_EQ(regions.size(), contiguous.size());
  std::size_t at = 0;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    EXPECT_EQ(contiguous[i].begin(), at);
    EXPECT_EQ(contiguous[i].size(), regions[i].interval.size());
    at += contiguous[i].size();
  }
  EXPECT_EQ(at, view.numElements());
}

/// A small IPU Model device (tiles × 1 IPU).
inline poplar::Device smallDevice(unsigned tiles = 4) {
  poplar::IPUModel model;
  model.tilesPerIPU = tiles;
  return model.createDevice();
}

/// Value written to element i of base k by `readViews`: distinct across all bases.
inline float baseValue(std::size_t k, std::size_t i) { return static_cast<float>(1000 * k + i); }

/// Builds an Engine with one host write per base (filled with baseValue(k, i)) and one host
/// read per view, loads it and returns what each view reads back. Bases must be FLOAT
/// variables; every variable of the graph must already be mapped.
inline std::vector<std::vector<float>> readViews(poplar::Graph &graph, const poplar::Device &device,
                                                 const std::vector<poplar::Tensor> &bases,
                                                 const std::vector<poplar::Tensor> &views) {
  for (std::size_t k = 0; k < bases.size(); ++k)
    graph.createHostWrite(numbered("base", k), bases[k]);
  for (std::size_t k = 0; k < views.size(); ++k)
    graph.createHostRead(numbered("view", k), views[k]);
  poplar::Engine engine(graph, poplar::program::Sequence{});
  engine.load(device);
  for (std::size_t k = 0; k < bases.size(); ++k) {
    std::vector<float> host(bases[k].numElements());
    for (std::size_t i = 0; i < host.size(); ++i)
      host[i] = baseValue(k, i);
    engine.writeTensor(numbered("base", k), host.data(), host.data() + host.size());
  }
  std::vector<std::vector<float>> out;
  for (std::size_t k = 0; k < views.size(); ++k) {
    std::vector<float> host(views[k].numElements(), -1.0f);
    engine.readTensor(numbered("view", k), host.data(), host.data() + host.size());
    out.push_back(std::move(host));
  }
  return out;
}

/// Expected read-back of a view of base `k` whose elements are the base flat indices `flat`.
inline std::vector<float> expectedValues(const std::vector<std::size_t> &flat, std::size_t k = 0) {
  std::vector<float> out;
  for (auto f : flat)
    out.push_back(baseValue(k, f));
  return out;
}

} // namespace viewref
