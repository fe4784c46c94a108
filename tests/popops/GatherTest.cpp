// popops::gather against a host loop, along an inner axis with 2-D indices.
#include <gtest/gtest.h>

#include <popops/Gather.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include "SliceTestUtil.hpp"

using namespace poplar;
using namespace poplar::program;
using slicetest::bytesOf;
using slicetest::valuesOf;

TEST(Gather, InnerAxisWithMatrixOfIndicesAndNegativeIntIndexGivesZeros) {
  for (unsigned tiles : {1u, 16u}) {
    Device d = slicetest::device(tiles);
    Graph graph(d.getTarget());
    popops::addCodelets(graph);
    Tensor in = popops::createGatherInput(graph, FLOAT, {3, 5, 4}, 1, {}, "in");
    Tensor idx = graph.addVariable(INT, {2, 3}, "idx");
    poputil::mapTensorLinearly(graph, idx);
    graph.createHostWrite("in", in);
    graph.createHostWrite("idx", idx);
    Sequence prog;
    Tensor out = popops::gather(graph, in, idx, 1, prog, {});
    ASSERT_EQ(out.shape(), (std::vector<std::size_t>{3, 2, 3, 4}));
    graph.createHostRead("out", out);
    std::vector<float> host(60);
    for (int i = 0; i < 60; ++i)
      host[i] = float(i) * 1.5f;
    const std::vector<int> indices{4, 0, 2, -1, 4, 1};
    auto r = slicetest::run(graph, d, prog, {{"in", bytesOf(host)}, {"idx", bytesOf(indices)}},
                            {{"out", 72 * sizeof(float)}});
    const auto got = valuesOf<float>(r["out"]);
    for (int a = 0; a < 3; ++a)
      for (int j = 0; j < 6; ++j)
        for (int c = 0; c < 4; ++c) {
          const int ix = indices[j];
          const float want = ix >= 0 && ix < 5 ? host[(a * 5 + ix) * 4 + c] : 0.0f;
          EXPECT_EQ(got[(a * 6 + j) * 4 + c], want) << tiles << a << j << c;
        }
  }
}
