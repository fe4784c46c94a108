// A one-line training progress report: step/total, epoch, loss, accuracy, images/s and ETA.
// On a terminal the line is rewritten in place with '\r'; in logs (not a TTY) a full line is
// printed at most every `interval` so CI output stays short. Clock and stream are injectable so
// tests drive it with a fake clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

namespace tessera::apps {

struct ProgressState {
  std::uint64_t step = 0;       // steps done so far
  std::uint64_t totalSteps = 0; // steps in the whole run
  std::uint64_t epoch = 0;      // 1-based current epoch
  std::uint64_t totalEpochs = 0;
  double loss = 0;
  std::optional<double> accuracy; // fraction in [0, 1]
  std::uint64_t imagesSeen = 0;   // cumulative images processed
};

/// "step 120/1875 | epoch 1/10 | loss 0.4321 | acc 84.25% | 1234.5 img/s | ETA 0:01:05".
/// Rate and ETA print "-" when unknown (negative values).
std::string formatProgressLine(const ProgressState &state, double imagesPerSecond,
                               double etaSeconds);

class ProgressPrinter {
public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  /// `interactive` selects '\r' rewriting (pass isatty of the stream's descriptor);
  /// `interval` is the minimum time between lines when not interactive.
  ProgressPrinter(std::ostream &out, bool interactive,
                  std::chrono::duration<double> interval = std::chrono::seconds(10),
                  Clock clock = std::chrono::steady_clock::now);

  /// A printer on std::cout, interactive when stdout is a terminal.
  static ProgressPrinter
  forStdout(std::chrono::duration<double> interval = std::chrono::seconds(10));

  /// Reports `state`; prints when interactive or when the interval has passed since the last
  /// line (the first update always prints). Rate and ETA are averaged since the first update,
  /// so a resumed run's rate counts only its own work.
  void update(const ProgressState &state);
  /// Prints `state` unconditionally and ends the line.
  void finish(const ProgressState &state);

private:
  std::string render(const ProgressState &state, std::chrono::steady_clock::time_point now);
  void emit(const std::string &line, bool endLine);

  std::ostream &out_;
  bool interactive_;
  std::chrono::duration<double> interval_;
  Clock clock_;
  bool started_ = false;
  std::chrono::steady_clock::time_point start_{};
  std::uint64_t startStep_ = 0;
  std::uint64_t startImages_ = 0;
  std::optional<std::chrono::steady_clock::time_point> lastPrint_;
  std::size_t lastLength_ = 0;
};

} // namespace tessera::apps
