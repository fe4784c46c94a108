#include "MatMulBuild.hpp"

#include <algorithm>
#include <vector>

#include <poputil/VertexTemplates.hpp>

namespace poplin::detail {
namespace {

struct Range {
  std::size_t begin, end;
  std::size_t size() const { return end - begin; }
};

Range blockRange(std::size_t index, std::size_t blockSize, std::size_t total) {
  return {std::min(total, index * blockSize), std::min(total, (index + 1) * blockSize)};
}

/// Group g's rows × columns of [G][R][C] tensor `t`, flattened. One box slice: indexing the
/// group first would copy the whole group's view for every block.
poplar::Tensor blockOf(const poplar::Tensor &t, std::size_t g, std::size_t r0, std::size_t r1,
                       std::size_t c0, std::size_t c1) {
  return t.slice({g, r0, c0}, {g + 1, r1, c1}).flatten();
}

} // namespace

poplar::Tensor createBlockedTensor(poplar::Graph &graph, const MatMulPlan &p, Operand which,
                                   const poplar::Type &type, const std::string &name) {
  // Outer loops: (group block, first block dim); inner: second block dim (concatenated).
  const bool lhs = which == Operand::LHS, rhs = which == Operand::RHS;
  const std::size_t outerCount = rhs ? p.innerBlocks : p.rowBlocks;
  const std::size_t innerCount = lhs ? p.innerBlocks : p.colBlocks;
  const std::size_t outerBlock = rhs ? p.innerPerBlock : p.rowsPerBlock;
  const std::size_t innerBlock = lhs ? p.innerPerBlock : p.colsPerBlock;
  const std::size_t outerTotal = rhs ? p.inner : p.rows;
  const std::size_t innerTotal = lhs ? p.inner : p.cols;
  std::vector<poplar::Tensor> groupBlocks;
  for (std::size_t g = 0; g < p.groupBlocks; ++g) {
    const Range gr = blockRange(g, p.groupsPerBlock, p.groups);
    std::vector<poplar::Tensor> rowsOfBlocks;
    for (std::size_t o = 0; o < outerCount; ++o) {
      const Range orr = blockRange(o, outerBlock, outerTotal);
      std::vector<poplar::Tensor> blocks;
      for (std::size_t i = 0; i < innerCount; ++i) {
        const Range ir = blockRange(i, innerBlock, innerTotal);
        const std::string blockName =
            name + "/block" + std::to_string(g) + "_" + std::to_string(o) + "_" + std::to_string(i);
        poplar::Tensor t;
        if (lhs && p.innerSteps > 1) {
          // One variable per step: a step's slice [rows][step's k] is then contiguous, so its
          // exchange is one copy per group rather than one per row.
          std::vector<poplar::Tensor> steps;
          for (std::size_t s = 0; s < p.innerSteps; ++s) {
            const Range sr = blockRange(s, p.innerPerStep, ir.size());
            if (sr.size() > 0)
              steps.push_back(graph.addVariable(type, {gr.size(), orr.size(), sr.size()},
                                                blockName + "/step" + std::to_string(s)));
          }
          t = steps.empty() ? graph.addVariable(type, {gr.size(), orr.size(), 0}, blockName)
                            : poplar::concat(steps, 2);
        } else {
          t = graph.addVariable(type, {gr.size(), orr.size(), ir.size()}, blockName);
        }
        if (lhs || rhs) {
          // With serial inner steps, step s's slice of the block lives on a storage tile, or on
          // the s-th (mod count) of the tiles sharing the block, so no unit holds every step.
          const std::size_t kSize = lhs ? ir.size() : orr.size();
          const unsigned kDim = lhs ? 2 : 1;
          for (std::size_t s = 0; s < p.innerSteps; ++s) {
            const Range sr = blockRange(s, p.innerPerStep, kSize);
            if (sr.size() == 0 && p.innerSteps > 1)
              continue;
            const unsigned tile = p.storageTiles ? p.storageTileOf(lhs, g, o, i, s)
                                  : lhs          ? p.tileOf(g, o, s % p.colBlocks, i)
                                                 : p.tileOf(g, s % p.rowBlocks, i, o);
            graph.setTileMapping(p.innerSteps == 1 ? t : t.slice(sr.begin, sr.end, kDim), tile);
          }
        } else {
          // The output block's elements are split over the tiles that reduce its partials.
          const std::size_t perGroup = orr.size() * ir.size();
          poplar::Tensor flat = t.flatten();
          for (std::size_t gg = 0; gg < gr.size(); ++gg)
            for (std::size_t q = 0; q < p.innerBlocks; ++q) {
              const std::size_t b = gg * perGroup + perGroup * q / p.innerBlocks;
              const std::size_t e = gg * perGroup + perGroup * (q + 1) / p.innerBlocks;
              if (b < e)
                graph.setTileMapping(flat.slice(b, e), p.tileOf(g, o, i, q));
            }
        }
        blocks.push_back(t);
      }
      rowsOfBlocks.push_back(poplar::concat(blocks, 2));
    }
    groupBlocks.push_back(poplar::concat(rowsOfBlocks, 1));
  }
  return poplar::concat(groupBlocks, 0);
}

void buildMatMul(poplar::Graph &graph, const MatMulPlan &p, const poplar::Tensor &A,
                 const poplar::Tensor &B, const poplar::Tensor &out, std::optional<float> scale,
                 poplar::program::Sequence &prog, const std::string &name, bool aTransposed,
                 bool bTransposed) {
  // Without a K split each unit writes its output block itself: in one go, or (fp32 outputs)
  // accumulating step after step — no partials, no reduction compute set.
  const bool direct =
      p.innerBlocks == 1 && !scale && (p.innerSteps == 1 || out.elementType() == poplar::FLOAT);
  // Partials of the type the plan asks for ("partialsType"), except where a unit accumulates
  // step after step: that sum is kept in FLOAT.
  const poplar::Type partialsType = p.innerSteps > 1 ? poplar::FLOAT : p.partialsType;
  auto blockType = [&](bool accumulate) {
    return poputil::templateVertex("poplin::MatMulBlock", p.inputType,
                                   direct ? out.elementType() : partialsType, accumulate);
  };
  std::vector<poplar::ComputeSet> steps;
  for (std::size_t s = 0; s < p.innerSteps; ++s)
    steps.push_back(graph.addComputeSet(name + "/products" +
                                        (p.innerSteps > 1 ? "/step" + std::to_string(s) : "")));
  // partials[unitOf(…)] : [groups in block][rows][cols] fp32 on the unit's tile.
  std::vector<poplar::Tensor> partials;
  if (!direct)
    partials.resize(p.groupBlocks * p.rowBlocks * p.colBlocks * p.innerBlocks);
  for (std::size_t g = 0; g < p.groupBlocks; ++g) {
    const Range gr = blockRange(g, p.groupsPerBlock, p.groups);
    for (std::size_t i = 0; i < p.rowBlocks; ++i) {
      const Range ir = blockRange(i, p.rowsPerBlock, p.rows);
      for (std::size_t j = 0; j < p.colBlocks; ++j) {
        const Range jr = blockRange(j, p.colsPerBlock, p.cols);
        for (std::size_t q = 0; q < p.innerBlocks; ++q) {
          const Range kr = blockRange(q, p.innerPerBlock, p.inner);
          const unsigned tile = p.tileOf(g, i, j, q);
          if (gr.size() == 0 || ir.size() == 0 || jr.size() == 0)
            continue;
          poplar::Tensor partial;
          if (!direct) {
            partial = graph.addVariable(partialsType, {gr.size(), ir.size(), jr.size()},
                                        name + "/partials");
            graph.setTileMapping(partial, tile);
            partials[p.unitOf(g, i, j, q)] = partial;
          }
          for (std::size_t s = 0; s < p.innerSteps; ++s) {
            const Range sr = blockRange(s, p.innerPerStep, kr.size());
            if (s > 0 && sr.size() == 0)
              continue;
            const std::size_t k0 = kr.begin + sr.begin, k1 = kr.begin + sr.end;
            for (std::size_t gg = 0; gg < gr.size(); ++gg) {
              const std::size_t group = gr.begin + gg;
              const poplar::Tensor c = direct
                                           ? blockOf(out, group, ir.begin, ir.end, jr.begin, jr.end)
                                           : partial[gg].flatten();
              const poplar::Tensor a = aTransposed ? blockOf(A, group, k0, k1, ir.begin, ir.end)
                                                   : blockOf(A, group, ir.begin, ir.end, k0, k1);
              const poplar::Tensor b = bTransposed ? blockOf(B, group, jr.begin, jr.end, k0, k1)
                                                   : blockOf(B, group, k0, k1, jr.begin, jr.end);
              auto v = graph.addVertex(steps[s], blockType(s > 0), {{"a", a}, {"b", b}, {"c", c}});
              graph.setInitialValue(v["m"], static_cast<unsigned>(ir.size()));
              graph.setInitialValue(v["n"], static_cast<unsigned>(jr.size()));
              graph.setInitialValue(v["k"], static_cast<unsigned>(k1 - k0));
              graph.setInitialValue(v["aTransposed"], unsigned(aTransposed));
              graph.setInitialValue(v["bTransposed"], unsigned(bTransposed));
              graph.setTileMapping(v, tile);
            }
          }
        }
      }
    }
  }
  for (const auto &cs : steps)
    prog.add(poplar::program::Execute(cs, name + "/products"));
  if (direct)
    return;

  // Each output block's elements are cut into innerBlocks pieces; piece q is summed on the tile
  // of unit q from the partials of units 0, 1, …, innerBlocks-1 in that order (in FLOAT,
  // whatever the partials' type).
  const char *reduceName = scale ? "poplin::ScaledAddPartials" : "poplin::ReducePartials";
  const std::string reduceType =
      partialsType == poplar::FLOAT
          ? poputil::templateVertex(reduceName, out.elementType())
          : poputil::templateVertex(reduceName, partialsType, out.elementType());
  poplar::ComputeSet reduce = graph.addComputeSet(name + "/reducePartials");
  for (std::size_t g = 0; g < p.groupBlocks; ++g) {
    const Range gr = blockRange(g, p.groupsPerBlock, p.groups);
    for (std::size_t i = 0; i < p.rowBlocks; ++i) {
      const Range ir = blockRange(i, p.rowsPerBlock, p.rows);
      for (std::size_t j = 0; j < p.colBlocks; ++j) {
        const Range jr = blockRange(j, p.colsPerBlock, p.cols);
        const std::size_t perGroup = ir.size() * jr.size();
        if (gr.size() == 0 || perGroup == 0)
          continue;
        for (std::size_t gg = 0; gg < gr.size(); ++gg) {
          const poplar::Tensor outBlock =
              blockOf(out, gr.begin + gg, ir.begin, ir.end, jr.begin, jr.end);
          for (std::size_t q = 0; q < p.innerBlocks; ++q) {
            const std::size_t b = perGroup * q / p.innerBlocks;
            const std::size_t e = perGroup * (q + 1) / p.innerBlocks;
            if (b == e)
              continue;
            std::vector<poplar::Tensor> pieces;
            for (std::size_t r = 0; r < p.innerBlocks; ++r)
              pieces.push_back(partials[p.unitOf(g, i, j, r)][gg].flatten().slice(b, e));
            auto v = graph.addVertex(reduce, reduceType, {{"out", outBlock.slice(b, e)}});
            graph.connect(v["partials"], pieces);
            graph.setInitialValue(v["scale"], scale.value_or(1.0f));
            graph.setTileMapping(v, p.tileOf(g, i, j, q));
          }
        }
      }
    }
  }
  prog.add(poplar::program::Execute(reduce, name + "/reducePartials"));
}

} // namespace poplin::detail
