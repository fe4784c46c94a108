// The image trainers' shared flags: parsed with each trainer's defaults, checked with errors
// naming the flag, and turned into the trainer's spec.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tessera/apps/ClassifierRunOptions.hpp>
#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingOptions.hpp>

namespace tessera::apps {
namespace {

ClassifierRunOptions parse(std::vector<std::string> args, ClassifierRunOptions defaults = {}) {
  boost::program_options::options_description d;
  addClassifierRunOptions(d, defaults);
  args.insert(args.begin(), "trainer");
  std::vector<const char *> argv;
  for (const auto &a : args)
    argv.push_back(a.c_str());
  parseCommandLine(static_cast<int>(argv.size()), argv.data(), d);
  return defaults;
}

TEST(ClassifierRunOptions, FlagsOverrideTheTrainersDefaults) {
  ClassifierRunOptions defaults;
  defaults.imageSize = 32;
  defaults.ipus = 4;
  const ClassifierRunOptions kept = parse({}, defaults);
  EXPECT_EQ(kept.imageSize, 32u);
  EXPECT_EQ(kept.ipus, 4u);
  const ClassifierRunOptions o = parse({"--image-size=40", "--augment", "--tiles=16", "--ipus=2",
                                        "--stop-after-steps=7", "--checkpoint-every=3"},
                                       defaults);
  EXPECT_EQ(o.imageSize, 40u);
  EXPECT_TRUE(o.augment);
  EXPECT_EQ(o.tiles, 16u);
  EXPECT_EQ(o.ipus, 2u);
  EXPECT_EQ(o.stopAfterSteps, 7u);
  EXPECT_EQ(o.checkpointEverySteps, 3u);
  const ClassifierSpec spec = classifierSpecOf("net", {{"width", "1"}}, 10, o);
  EXPECT_EQ(spec.modelName, "net");
  EXPECT_EQ(spec.modelConfig.at("image-size"), "40");
  EXPECT_EQ(spec.modelConfig.at("width"), "1");
  EXPECT_EQ(spec.imageSize, 40u);
  EXPECT_EQ(spec.numClasses, 10u);
  EXPECT_TRUE(spec.augment);
  EXPECT_EQ(spec.tiles, 16u);
  EXPECT_EQ(spec.ipus, 2u);
  EXPECT_EQ(spec.stopAfterSteps, 7u);
  EXPECT_EQ(spec.checkpointEverySteps, 3u);
}

TEST(ClassifierRunOptions, IpusAreAutomaticUnlessACountIsGiven) {
  EXPECT_EQ(parse({}).ipus, 0u);
  EXPECT_EQ(parse({"--ipus=auto"}).ipus, 0u);
  EXPECT_EQ(parse({"--ipus=16"}).ipus, 16u);
  EXPECT_EQ(classifierSpecOf("net", {}, 10, parse({"--ipus=auto"})).ipus, 0u);
}

TEST(ClassifierRunOptions, BadValuesNameTheFlag) {
  for (const auto &[args, flag] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--image-size=27"}, "--image-size 27"},
           {{"--ipus=0"}, "--ipus 0"},
           {{"--ipus=17"}, "--ipus 17"},
           {{"--ipus=two"}, "--ipus two"},
           {{"--ipus=2x"}, "--ipus 2x"},
           {{"--replicas=65"}, "--replicas 65"},
           {{"--pod-replicas=0"}, "--pod-replicas"},
           {{"--pod-accumulation=0"}, "--pod-accumulation"}}) {
    try {
      validateClassifierRunOptions(parse(args));
      ADD_FAILURE() << args.front() << " accepted";
    } catch (const cli_error &e) {
      EXPECT_NE(std::string(e.what()).find(flag), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(
      validateClassifierRunOptions(parse({"--image-size=28", "--ipus=16", "--replicas=64"})));
}

} // namespace
} // namespace tessera::apps
