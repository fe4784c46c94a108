// A user codelet computing with `quarter` (Poplar's <poplar/QuarterFloat.hpp>): Vector<quarter>
// fields connect to QUARTER tensors, a MetadataType field to their QUARTER_METADATA tensor.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/MetadataCreation.hpp>
#include <poplar/QuarterFloat.hpp>
#include <poplar/TypeConversion.hpp>

#include "CodeletTestSupport.hpp"

using namespace poplar;
using namespace poplar::program;

TEST(CodeletQuarter, VertexDoublesQuarterValuesUnderTheirMetadata) {
  std::stringstream src;
  src << "#include <poplar/QuarterFloat.hpp>\n"
         "#include <poplar/Vertex.hpp>\n"
         "using namespace poplar;\n"
         "class Twice : public Vertex {\n"
         "public:\n"
         "  Input<Vector<quarter>> in;\n"
         "  Output<Vector<quarter>> out;\n"
         "  Input<MetadataType> metadata;\n"
         "  void compute() {\n"
         "    const quarter_metadata md = unpackMetadata(&*metadata);\n"
         "    for (unsigned i = 0; i < in.size(); ++i)\n"
         "      out[i] = toQuarter(2 * toFloat(in[i], md), md);\n"
         "  }\n"
         "};\n";
  const Device dev = codelettest::device();
  Graph graph(dev.getTarget());
  graph.addCodelets(src);
  Tensor md = createConstantMetadataTensor(graph, QuarterMetadata::Format::F143, -2);
  Tensor in = graph.addVariable(QUARTER, md, {5}, "in");
  Tensor out = graph.addVariable(QUARTER, md, {5}, "out");
  graph.setTileMapping(in, 0);
  graph.setTileMapping(out, 0);
  ComputeSet cs = graph.addComputeSet("twice");
  graph.setTileMapping(graph.addVertex(cs, "Twice", {{"in", in}, {"out", out}, {"metadata", md}}),
                       0);
  graph.createHostWrite("in", in);
  graph.createHostRead("out", out);
  Engine engine(graph, Execute(cs));
  engine.load(dev);
  const QuarterMetadata hostMd(QuarterMetadata::Format::F143, -2);
  const std::vector<float> values = {0.25f, -1.0f, 3.0f, 40.0f, 0.0f};
  std::vector<unsigned char> bytes(5);
  convertToDeviceType(QUARTER, hostMd, ArrayRef<float>(values), bytes.data());
  engine.writeTensor("in", bytes.data(), bytes.data() + bytes.size());
  engine.run();
  std::vector<unsigned char> got(5);
  engine.readTensor("out", got.data(), got.data() + got.size());
  std::vector<float> doubled(5);
  convertFromDeviceType(QUARTER, hostMd, got.data(), ArrayRef<float>(doubled));
  // 40 * 2 = 80 exceeds F143's 240 * 2^-2 = 60: saturates.
  EXPECT_EQ(doubled, (std::vector<float>{0.5f, -2.0f, 6.0f, 60.0f, 0.0f}));
}
