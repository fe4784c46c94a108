#include <tessera/apps/Errors.hpp>
#include <tessera/apps/TrainingOptions.hpp>

#include <gtest/gtest.h>

using namespace tessera::apps;
namespace po = boost::program_options;

namespace {

// Parses `args` with the shared options plus one model-specific option, then validates.
TrainingOptions parse(std::vector<std::string> args, int *modelDepth = nullptr) {
  TrainingOptions options;
  int depth = 50;
  po::options_description description("test");
  addTrainingOptions(description, options);
  description.add_options()("depth", po::value(&depth)->default_value(depth), "model depth");
  args.insert(args.begin(), "trainer");
  std::vector<const char *> argv;
  for (const auto &a : args)
    argv.push_back(a.c_str());
  parseCommandLine(static_cast<int>(argv.size()), argv.data(), description);
  validateTrainingOptions(options);
  if (modelDepth)
    *modelDepth = depth;
  return options;
}

std::string cliErrorOf(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const cli_error &e) {
    return e.what();
  }
  ADD_FAILURE() << "no cli_error thrown";
  return "";
}

} // namespace

TEST(TrainingOptions, DefaultsAreValid) {
  const TrainingOptions o = parse({});
  EXPECT_EQ(o.batchSize, 32u);
  EXPECT_EQ(o.lrSchedule, LrSchedule::Cosine);
  EXPECT_EQ(o.precision, Precision::Float32);
  EXPECT_TRUE(o.validation);
  EXPECT_FALSE(o.targetAccuracy.has_value());
  EXPECT_FALSE(o.help);
  EXPECT_EQ(o.optimiser, OptimiserType::Sgd);
  EXPECT_EQ(o.labelSmoothing, 0.0);
  EXPECT_EQ(o.emaDecay, 0.0);
}

TEST(TrainingOptions, EveryFlagParses) {
  int depth = 0;
  const TrainingOptions o = parse({"--batch-size",
                                   "64",
                                   "--epochs",
                                   "5",
                                   "--learning-rate",
                                   "0.05",
                                   "--momentum",
                                   "0.8",
                                   "--weight-decay",
                                   "0",
                                   "--warmup-epochs",
                                   "1.5",
                                   "--lr-schedule",
                                   "step",
                                   "--precision",
                                   "16.32",
                                   "--seed",
                                   "7",
                                   "--train-subset",
                                   "1000",
                                   "--checkpoint-dir",
                                   "/tmp/ck",
                                   "--resume",
                                   "--validation",
                                   "false",
                                   "--target-accuracy",
                                   "0.9",
                                   "--record-file",
                                   "r.json",
                                   "--price-per-hour",
                                   "3.5",
                                   "--host-threads",
                                   "2",
                                   "--dataset-dir",
                                   "/data",
                                   "--depth",
                                   "18",
                                   "--help"},
                                  &depth);
  EXPECT_EQ(o.batchSize, 64u);
  EXPECT_EQ(o.epochs, 5u);
  EXPECT_DOUBLE_EQ(o.learningRate, 0.05);
  EXPECT_DOUBLE_EQ(o.momentum, 0.8);
  EXPECT_DOUBLE_EQ(o.weightDecay, 0.0);
  EXPECT_DOUBLE_EQ(o.warmupEpochs, 1.5);
  EXPECT_EQ(o.lrSchedule, LrSchedule::Step);
  EXPECT_EQ(o.precision, Precision::Half16Partials32);
  EXPECT_EQ(o.seed, 7u);
  EXPECT_EQ(o.trainSubset, 1000u);
  EXPECT_EQ(o.checkpointDir, "/tmp/ck");
  EXPECT_TRUE(o.resume);
  EXPECT_FALSE(o.validation);
  EXPECT_DOUBLE_EQ(o.targetAccuracy.value(), 0.9);
  EXPECT_EQ(o.recordFile, "r.json");
  EXPECT_DOUBLE_EQ(o.pricePerHour.value(), 3.5);
  EXPECT_EQ(o.hostThreads, 2u);
  EXPECT_EQ(o.datasetDir, "/data");
  EXPECT_TRUE(o.help);
  EXPECT_EQ(depth, 18);
  EXPECT_TRUE(parse({"--synthetic-data"}).syntheticData);
  EXPECT_TRUE(parse({"--stop-at-target", "--target-accuracy", "0.5"}).stopAtTarget);
  EXPECT_EQ(parse({"--lr-schedule=constant"}).lrSchedule, LrSchedule::Constant);
  EXPECT_EQ(parse({"--lr-schedule=linear"}).lrSchedule, LrSchedule::Linear);
  EXPECT_EQ(parse({"--precision", "16.16"}).precision, Precision::Half16Partials16);

  const TrainingOptions r =
      parse({"--optimiser", "rmsprop", "--rmsprop-decay", "0.95", "--rmsprop-epsilon", "0.01",
             "--label-smoothing", "0.1", "--ema-decay", "0.999"});
  EXPECT_EQ(r.optimiser, OptimiserType::RmsProp);
  EXPECT_DOUBLE_EQ(r.rmspropDecay, 0.95);
  EXPECT_DOUBLE_EQ(r.rmspropEpsilon, 0.01);
  EXPECT_DOUBLE_EQ(r.labelSmoothing, 0.1);
  EXPECT_DOUBLE_EQ(r.emaDecay, 0.999);
  EXPECT_EQ(parse({"--optimiser=sgd"}).optimiser, OptimiserType::Sgd);
}

TEST(TrainingOptions, NonsenseValuesNameTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string mustMention;
  };
  const std::vector<Case> cases = {
      {{"--batch-size", "0"}, "--batch-size"},
      {{"--epochs", "0"}, "--epochs"},
      {{"--learning-rate", "-0.1"}, "--learning-rate"},
      {{"--learning-rate", "0"}, "--learning-rate"},
      {{"--momentum", "1"}, "--momentum"},
      {{"--weight-decay", "-1"}, "--weight-decay"},
      {{"--warmup-epochs", "11"}, "--warmup-epochs"},
      {{"--resume"}, "--checkpoint-dir"},
      {{"--target-accuracy", "90"}, "fraction"},
      {{"--stop-at-target"}, "--target-accuracy"},
      {{"--stop-at-target", "--target-accuracy", "0.9", "--validation", "false"}, "--validation"},
      {{"--price-per-hour", "0"}, "--price-per-hour"},
      {{"--synthetic-data", "--dataset-dir", "/d"}, "--synthetic-data"},
      {{"--optimiser", "rmsprop", "--rmsprop-decay", "1"}, "--rmsprop-decay"},
      {{"--optimiser", "rmsprop", "--rmsprop-decay", "-0.1"}, "--rmsprop-decay"},
      {{"--optimiser", "rmsprop", "--rmsprop-epsilon", "0"}, "--rmsprop-epsilon"},
      {{"--optimiser", "rmsprop", "--rmsprop-epsilon", "inf"}, "--rmsprop-epsilon"},
      {{"--rmsprop-decay", "0.8"}, "--optimiser rmsprop"},
      {{"--rmsprop-epsilon", "0.1"}, "--rmsprop-epsilon"},
      {{"--label-smoothing", "1"}, "--label-smoothing"},
      {{"--label-smoothing", "-0.1"}, "--label-smoothing"},
      {{"--label-smoothing", "nan"}, "--label-smoothing"},
      {{"--ema-decay", "1"}, "--ema-decay"},
      {{"--ema-decay", "-0.5"}, "--ema-decay"},
      {{"--momentum", "1", "--optimiser", "rmsprop"}, "--momentum"},
  };
  for (const Case &c : cases) {
    const std::string m = cliErrorOf(c.args);
    EXPECT_NE(m.find(c.mustMention), std::string::npos) << c.args[0] << ": " << m;
  }
}

TEST(TrainingOptions, UnknownEnumValuesListTheAcceptedOnes) {
  const std::string precision = cliErrorOf({"--precision", "8.8"});
  EXPECT_NE(precision.find("--precision '8.8'"), std::string::npos) << precision;
  EXPECT_NE(precision.find("16.16, 16.32 or 32.32"), std::string::npos) << precision;
  const std::string schedule = cliErrorOf({"--lr-schedule", "exponential"});
  EXPECT_NE(schedule.find("cosine, step, constant or linear"), std::string::npos) << schedule;
  EXPECT_EQ(schedule.find("did you mean"), std::string::npos) << schedule;
}

TEST(TrainingOptions, UnknownOptimiserListsTheOnesThereAreAndSuggests) {
  const std::string adam = cliErrorOf({"--optimiser", "adam"});
  EXPECT_NE(adam.find("--optimiser 'adam'"), std::string::npos) << adam;
  EXPECT_NE(adam.find("use sgd or rmsprop"), std::string::npos) << adam;
  const std::string typo = cliErrorOf({"--optimiser", "rmsprp"});
  EXPECT_NE(typo.find("did you mean rmsprop?"), std::string::npos) << typo;
}

TEST(TrainingOptions, UnknownScheduleSuggestsTheNearestOne) {
  const std::string typo = cliErrorOf({"--lr-schedule", "lineer"});
  EXPECT_NE(typo.find("--lr-schedule 'lineer'"), std::string::npos) << typo;
  EXPECT_NE(typo.find("did you mean linear?"), std::string::npos) << typo;
  EXPECT_NE(cliErrorOf({"--lr-schedule", "cos"}).find("did you mean cosine?"), std::string::npos);
}

TEST(TrainingOptions, BoostErrorsBecomeCliErrorsNamingTheFlag) {
  EXPECT_NE(cliErrorOf({"--batch-size", "abc"}).find("batch-size"), std::string::npos);
  EXPECT_NE(cliErrorOf({"--epochs"}).find("epochs"), std::string::npos);
  EXPECT_NE(cliErrorOf({"--validation", "maybe"}).find("validation"), std::string::npos);
}

TEST(TrainingOptions, UnknownFlagSuggestsTheNearestName) {
  const std::string m = cliErrorOf({"--batch-sise", "4"});
  EXPECT_NE(m.find("--batch-sise"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean --batch-size?"), std::string::npos) << m;
  const std::string far = cliErrorOf({"--zzzzzzzzzzzz"});
  EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
  EXPECT_EQ(nearestName("lerning-rate", {"learning-rate", "seed"}), "learning-rate");
  EXPECT_EQ(nearestName("x", {}), "");
}

TEST(TrainingOptions, DescribeListsTheConfiguration) {
  TrainingOptions o;
  o.targetAccuracy = 0.85;
  o.precision = Precision::Half16Partials16;
  const auto config = describeTrainingOptions(o);
  EXPECT_EQ(config.at("batch-size"), "32");
  EXPECT_EQ(config.at("precision"), "16.16");
  EXPECT_EQ(config.at("lr-schedule"), "cosine");
  EXPECT_EQ(config.at("target-accuracy"), "0.85");
  EXPECT_EQ(config.count("record-file"), 0u);
  EXPECT_EQ(config.at("optimiser"), "sgd");
  EXPECT_EQ(config.at("label-smoothing"), "0");
  EXPECT_EQ(config.at("ema-decay"), "0");
  EXPECT_EQ(config.count("rmsprop-decay"), 0u) << "RMSprop's settings only with RMSprop";
  o.optimiser = OptimiserType::RmsProp;
  o.labelSmoothing = 0.1;
  o.emaDecay = 0.9999;
  const auto rmsprop = describeTrainingOptions(o);
  EXPECT_EQ(rmsprop.at("optimiser"), "rmsprop");
  EXPECT_EQ(rmsprop.at("rmsprop-decay"), "0.9");
  EXPECT_EQ(rmsprop.at("rmsprop-epsilon"), "0.001");
  EXPECT_EQ(rmsprop.at("label-smoothing"), "0.1");
  EXPECT_EQ(rmsprop.at("ema-decay"), "0.9999");
}

TEST(TrainingOptions, NearestNamePrefersTheUniqueCompletion) {
  const std::vector<std::string> names = {"resnet50-synthetic-throughput",
                                          "resnet50-time-to-accuracy"};
  EXPECT_EQ(nearestName("resnet50-synthetic", names), "resnet50-synthetic-throughput");
  EXPECT_EQ(nearestName("resnet50-t", names), "resnet50-time-to-accuracy");
  EXPECT_EQ(nearestName("resnet50-", names), ""); // two completions, both far
}

TEST(TrainingOptions, WholeNumbersAreDigitsOnly) {
  EXPECT_EQ(parseWholeNumber("0"), 0ul);
  EXPECT_EQ(parseWholeNumber("16"), 16ul);
  for (const char *bad :
       {"", "-1", "+2", " 3", "4 ", "2x", "auto", "1e3", "99999999999999999999999999"})
    EXPECT_FALSE(parseWholeNumber(bad).has_value()) << "'" << bad << "'";
}
