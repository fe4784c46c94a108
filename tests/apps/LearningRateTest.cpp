#include <tessera/apps/Errors.hpp>
#include <tessera/apps/LearningRate.hpp>

#include <gtest/gtest.h>

#include <cmath>

using namespace tessera::apps;

TEST(LearningRate, WarmupRisesLinearly) {
  for (LrSchedule s :
       {LrSchedule::Cosine, LrSchedule::Step, LrSchedule::Constant, LrSchedule::Linear}) {
    EXPECT_DOUBLE_EQ(learningRateAt(s, 0.4, 0.5, 10, 2), 0.4 * 0.25);
    EXPECT_DOUBLE_EQ(learningRateAt(s, 0.4, 1.0, 10, 2), 0.2);
    EXPECT_DOUBLE_EQ(learningRateAt(s, 0.4, 0.0, 10, 2), 0.4e-3); // never zero
  }
}

TEST(LearningRate, CosineClosedForm) {
  const double pi = std::acos(-1.0);
  for (double e : {2.0, 3.0, 6.0, 9.5, 10.0}) {
    const double expected = 0.1 * 0.5 * (1 + std::cos(pi * (e - 2.0) / 8.0));
    EXPECT_NEAR(learningRateAt(LrSchedule::Cosine, 0.1, e, 10, 2), expected, 1e-15) << e;
  }
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Cosine, 0.1, 2.0, 10, 2), 0.1);
  EXPECT_NEAR(learningRateAt(LrSchedule::Cosine, 0.1, 6.0, 10, 2), 0.05, 1e-15);
  EXPECT_NEAR(learningRateAt(LrSchedule::Cosine, 0.1, 10.0, 10, 2), 0.0, 1e-15);
}

TEST(LearningRate, StepDecaysAtHalfAndThreeQuarters) {
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Step, 1.0, 4.99, 10, 0), 1.0);
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Step, 1.0, 5.0, 10, 0), 0.1);
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Step, 1.0, 7.5, 10, 0), 0.01);
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Constant, 1.0, 9.0, 10, 0), 1.0);
}

TEST(LearningRate, LinearWarmsUpThenDecaysToZero) {
  // BERT's schedule: 10 % warm-up, then a straight line to 0 at the end of the run.
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Linear, 1e-3, 0.0, 10, 1), 1e-6); // the floor
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Linear, 1e-3, 0.5, 10, 1), 0.5e-3);
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Linear, 1e-3, 1.0, 10, 1), 1e-3); // the peak
  for (double e : {1.0, 2.5, 5.5, 9.0, 9.99, 10.0}) {
    const double expected = 1e-3 * (10.0 - e) / 9.0;
    EXPECT_NEAR(learningRateAt(LrSchedule::Linear, 1e-3, e, 10, 1), expected, 1e-18) << e;
  }
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Linear, 1e-3, 10.0, 10, 1), 0.0);
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Linear, 1e-3, 11.0, 10, 1), 0.0); // never negative
  // Without warm-up it starts at the peak; a warm-up as long as the run never decays.
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Linear, 2.0, 0.0, 4, 0), 2.0);
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Linear, 2.0, 3.0, 4, 0), 0.5);
  EXPECT_DOUBLE_EQ(learningRateAt(LrSchedule::Linear, 2.0, 4.0, 4, 4), 2.0);
}

TEST(LearningRate, FromOptions) {
  TrainingOptions o;
  o.learningRate = 0.2;
  o.epochs = 4;
  o.warmupEpochs = 0;
  o.lrSchedule = LrSchedule::Step;
  EXPECT_DOUBLE_EQ(learningRateAt(o, 2.5), 0.02);
}

TEST(LearningRate, BadScheduleParametersNameTheFlag) {
  auto messageOf = [](auto &&f) -> std::string {
    try {
      f();
    } catch (const cli_error &e) {
      return e.what();
    }
    return "no cli_error";
  };
  EXPECT_NE(messageOf([] { learningRateAt(LrSchedule::Cosine, 1, 0, 0, 0); }).find("--epochs"),
            std::string::npos);
  EXPECT_NE(
      messageOf([] { learningRateAt(LrSchedule::Cosine, 1, 0, 5, 6); }).find("--warmup-epochs"),
      std::string::npos);
}
