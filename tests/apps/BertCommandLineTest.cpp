// The bert trainer's flags: each bad value fails before any data is read, with a cli_error (a
// poplar_error) that names the flag, and a misspelt name or value gets the nearest one.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <tessera/apps/Errors.hpp>

#include "training/CommandLine.hpp"

namespace tessera::bert {
namespace {

std::optional<BertCommandLine> parse(std::vector<std::string> args, std::ostream &help) {
  args.insert(args.begin(), "bert");
  std::vector<const char *> argv;
  for (const auto &a : args)
    argv.push_back(a.c_str());
  return parseBertCommandLine(static_cast<int>(argv.size()), argv.data(), help);
}

BertCommandLine parse(std::vector<std::string> args) {
  std::ostringstream help;
  auto o = parse(std::move(args), help);
  EXPECT_TRUE(o.has_value());
  return o.value_or(BertCommandLine{});
}

/// The message of the cli_error `args` raise ("" and a test failure when none).
std::string errorOf(std::vector<std::string> args) {
  std::ostringstream help;
  try {
    parse(args, help);
  } catch (const apps::cli_error &e) {
    static_assert(std::is_base_of_v<poplar::poplar_error, apps::cli_error>);
    return e.what();
  }
  ADD_FAILURE() << "no cli_error for " << args.front();
  return "";
}

TEST(BertCommandLine, DefaultsAreMiniAtLength128) {
  const BertCommandLine o = parse({});
  const BertConfig c = modelConfigOf(o);
  EXPECT_EQ(c.layers, 4u);
  EXPECT_EQ(c.hidden, 256u);
  EXPECT_EQ(c.sequenceLength, 128u);
  EXPECT_EQ(c.maxPredictions, 20u);
  EXPECT_FALSE(lossScalingOf(o).has_value());
  EXPECT_EQ(sessionOptionsOf(o).optimiser, OptimiserKind::AdamW);
}

TEST(BertCommandLine, HelpListsTheFlagsAndParsesNothingElse) {
  std::ostringstream help;
  EXPECT_FALSE(parse({"--help"}, help).has_value());
  for (const char *flag : {"--config", "--precision", "--packing", "--resume", "--record-file"})
    EXPECT_NE(help.str().find(flag), std::string::npos) << flag;
}

TEST(BertCommandLine, OverridesAndScaledPredictions) {
  const BertCommandLine o =
      parse({"--config=base", "--layers=2", "--sequence-length=512", "--packing"});
  const BertConfig c = modelConfigOf(o);
  EXPECT_EQ(c.layers, 2u);
  EXPECT_EQ(c.hidden, 768u);
  EXPECT_EQ(c.maxPredictions, 80u); // 20 per 128 tokens
  EXPECT_EQ(c.maxSequencesPerRow, 3u);
}

TEST(BertCommandLine, LossScalingDefaultsToDynamicWithHalfPrecision) {
  auto half = lossScalingOf(parse({"--precision=16.32"}));
  ASSERT_TRUE(half.has_value());
  EXPECT_TRUE(half->dynamic);
  EXPECT_EQ(half->initialScale, 32768.0f);
  auto fixed = lossScalingOf(parse({"--loss-scaling=static", "--loss-scale=128"}));
  ASSERT_TRUE(fixed.has_value());
  EXPECT_FALSE(fixed->dynamic);
  EXPECT_EQ(fixed->initialScale, 128.0f);
  EXPECT_FALSE(lossScalingOf(parse({"--precision=16.32", "--loss-scaling=off"})).has_value());
}

TEST(BertCommandLine, BadValuesNameTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> mustMention;
  };
  const std::vector<Case> cases = {
      {{"--config=huge"}, {"'huge'", "tiny"}},
      {{"--heads=5"}, {"5", "256"}},
      {{"--sequence-length=1024"}, {"1024"}},
      {{"--max-predictions=200"}, {"200", "128"}},
      {{"--batch-size=0"}, {"--batch-size"}},
      {{"--steps=10"}, {"--steps 10", "--steps-per-run 4"}},
      {{"--steps-per-run=0"}, {"--steps-per-run"}},
      {{"--checkpoint-every=6"}, {"--checkpoint-every 6", "--steps-per-run 4"}},
      {{"--tile-memory=5000"}, {"--tile-memory", "4096"}},
      {{"--tile-memory=-1"}, {"--tile-memory"}},
      {{"--resume"}, {"--resume", "--checkpoint-dir"}},
      {{"--train-subset=10"}, {"--train-subset 10", "--batch-size 16"}},
      {{"--warmup=1"}, {"--warmup"}},
      {{"--epochs=-1"}, {"--epochs"}},
      {{"--learning-rate=0"}, {"--learning-rate"}},
      {{"--loss-scale=0"}, {"--loss-scale"}},
      {{"--gradient-accumulation=0"}, {"--gradient-accumulation"}},
      {{"--gradient-accumulation=2", "--optimiser=sgd"}, {"--gradient-accumulation 2", "sgd"}},
      {{"--precision=16.32", "--optimiser=sgd"}, {"loss scaling", "sgd"}},
      {{"--export-run=/tmp/x", "--gradient-accumulation=2"}, {"--export-run"}},
      {{"--precision=8.8"}, {"--precision '8.8'"}},
  };
  for (const Case &c : cases) {
    const std::string m = errorOf(c.args);
    for (const auto &part : c.mustMention)
      EXPECT_NE(m.find(part), std::string::npos) << c.args.front() << ": " << m;
  }
}

TEST(BertCommandLine, MisspeltNamesAndValuesGetTheNearest) {
  const std::string flag = errorOf({"--sequence-lenght=128"});
  EXPECT_NE(flag.find("did you mean --sequence-length?"), std::string::npos) << flag;
  const std::string optimiser = errorOf({"--optimiser=lamm"});
  EXPECT_NE(optimiser.find("--optimiser 'lamm' is not one of lamb, adamw, sgd"), std::string::npos)
      << optimiser;
  EXPECT_NE(optimiser.find("did you mean 'lamb'?"), std::string::npos) << optimiser;
  const std::string scaling = errorOf({"--loss-scaling=dynamc"});
  EXPECT_NE(scaling.find("--loss-scaling 'dynamc'"), std::string::npos) << scaling;
  EXPECT_NE(scaling.find("did you mean 'dynamic'?"), std::string::npos) << scaling;
}

TEST(BertCommandLine, RunIdentityLeavesOutWhatNeverChangesTheBits) {
  const BertCommandLine o = parse({"--host-threads=2", "--steps-per-run=2", "--steps=8"});
  const auto described = describeRun(o, modelConfigOf(o));
  EXPECT_EQ(described.at("host_threads"), "2");
  const auto identity = runIdentity(o, modelConfigOf(o));
  EXPECT_EQ(identity.count("host_threads"), 0u);
  EXPECT_EQ(identity.count("steps_per_run"), 0u);
  EXPECT_EQ(identity.at("train_subset"), "0");
  EXPECT_EQ(identity.at("hidden"), "256");
}

} // namespace
} // namespace tessera::bert
