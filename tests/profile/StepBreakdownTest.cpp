// --profile-steps' pieces: the host time of instrumented runs by kind and by layer (sums that
// add up to the measured total), layer names from debug-context paths, and the Chrome trace —
// checked against the trace-event format: a JSON object with a traceEvents array whose complete
// ("X") events carry name, ph, ts, dur ≥ 0, pid and tid, never overlap on a track, and whose
// metadata ("M") events name the tracks.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <poplar/Engine.hpp>
#include <tessera/profile/StepBreakdown.hpp>

#include "ProfileTestGraphs.hpp"

using namespace poplar;
using namespace profiletest;

namespace {

struct Profiled {
  tessera::profile::GraphProfile graph;
  tessera::profile::ExecutionProfile exec;
};

Profiled runMlp(bool instrument) {
  Device device = smallDevice(4);
  Mlp mlp(device.getTarget());
  OptionFlags options;
  if (instrument)
    options.set("debug.instrument", "true");
  else
    options.set("autoReport.outputExecutionProfile", "true");
  if (!instrument)
    options.set("autoReport.directory", freshDirectory("step-breakdown"));
  Engine engine(mlp.graph, mlp.program, options);
  engine.load(device);
  engine.run(0);
  engine.run(0);
  return {engine.getGraphProfile(), *engine.getExecutionProfile()};
}

} // namespace

TEST(StepBreakdown, LayersAreDebugContextPrefixes) {
  using tessera::profile::layerOf;
  EXPECT_EQ(layerOf("stage2/block1/b/conv/weightGrad/weightGradient", 2), "stage2/block1");
  EXPECT_EQ(layerOf("stage2/block1/b/conv/weightGrad/weightGradient", 4), "stage2/block1/b/conv");
  EXPECT_EQ(layerOf("fc/fwd", 3), "fc/fwd");
  EXPECT_EQ(layerOf("", 2), "(unnamed)");
}

TEST(StepBreakdown, KindsAndLayersAddUpToTheMeasuredTime) {
  const Profiled p = runMlp(true);
  ASSERT_TRUE(p.exec.instrumented);
  for (bool byLayer : {false, true}) {
    const auto rows = tessera::profile::hostTimeBreakdown(p.graph, p.exec, byLayer, 1);
    ASSERT_FALSE(rows.empty());
    std::uint64_t ns = 0;
    double share = 0;
    for (const auto &r : rows) {
      ns += r.hostNs;
      share += r.share;
    }
    EXPECT_EQ(ns, p.exec.totalHostNs);
    EXPECT_NEAR(share, 1.0, 1e-9);
  }
  std::map<std::string, std::uint64_t> runs;
  for (const auto &r : tessera::profile::hostTimeBreakdown(p.graph, p.exec, true, 1))
    runs[r.key] = r.runs;
  EXPECT_EQ(runs["layer1"], 2u); // layer1/fwd twice
  EXPECT_EQ(runs["layer2"], 4u); // layer2/fwd and layer2/update twice each
  std::ostringstream text;
  tessera::profile::printStepBreakdown(text, p.graph, p.exec);
  EXPECT_NE(text.str().find("by kind:"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("layer2"), std::string::npos) << text.str();
}

TEST(StepBreakdown, WithoutInstrumentationThereIsNothingToBreakDown) {
  const Profiled p = runMlp(false);
  EXPECT_TRUE(tessera::profile::hostTimeBreakdown(p.graph, p.exec, false).empty());
  std::ostringstream text;
  tessera::profile::printStepBreakdown(text, p.graph, p.exec);
  EXPECT_NE(text.str().find("debug.instrument"), std::string::npos) << text.str();
}

TEST(StepBreakdown, ChromeTraceFollowsTheTraceEventFormat) {
  const Profiled p = runMlp(true);
  std::ostringstream json;
  tessera::profile::writeChromeTrace(json, p.graph, p.exec);
  google::protobuf::Struct trace;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.str(), &trace).ok()) << json.str();
  ASSERT_TRUE(trace.fields().count("traceEvents"));
  const auto &events = trace.fields().at("traceEvents").list_value().values();
  std::map<double, std::string> trackNames;
  std::map<double, double> trackEnd; // tid → end of its last complete event (µs)
  std::size_t complete = 0;
  for (const auto &v : events) {
    const auto &e = v.struct_value().fields();
    ASSERT_TRUE(e.count("ph") && e.count("pid") && e.count("tid") && e.count("name"));
    const std::string ph = e.at("ph").string_value();
    const double tid = e.at("tid").number_value();
    if (ph == "M") {
      if (e.at("name").string_value() == "thread_name")
        trackNames[tid] = e.at("args").struct_value().fields().at("name").string_value();
      continue;
    }
    ASSERT_EQ(ph, "X");
    ASSERT_TRUE(e.count("ts") && e.count("dur"));
    const double ts = e.at("ts").number_value(), dur = e.at("dur").number_value();
    EXPECT_GE(dur, 0.0);
    EXPECT_GE(ts + 1e-3, trackEnd[tid]) << "events overlap on track " << tid;
    trackEnd[tid] = ts + dur;
    ++complete;
  }
  EXPECT_EQ(trackNames[1], "programs");
  EXPECT_EQ(trackNames[2], "host");
  EXPECT_EQ(trackNames[3], "IPU (estimated)");
  // Two runs of three steps, each on the host and the estimated track, plus the two runs.
  EXPECT_EQ(complete, 2u * 3 * 2 + 2);
}
