#include "tessera/apps/Progress.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace tessera::apps {
namespace {

std::string formatDuration(double seconds) {
  const auto total = static_cast<std::uint64_t>(std::llround(seconds));
  char text[48];
  std::snprintf(text, sizeof(text), "%llu:%02llu:%02llu",
                static_cast<unsigned long long>(total / 3600),
                static_cast<unsigned long long>(total / 60 % 60),
                static_cast<unsigned long long>(total % 60));
  return text;
}

} // namespace

std::string formatProgressLine(const ProgressState &s, double imagesPerSecond, double etaSeconds) {
  char text[256];
  std::snprintf(text, sizeof(text), "step %llu/%llu | epoch %llu/%llu | loss %.4f",
                static_cast<unsigned long long>(s.step),
                static_cast<unsigned long long>(s.totalSteps),
                static_cast<unsigned long long>(s.epoch),
                static_cast<unsigned long long>(s.totalEpochs), s.loss);
  std::string line = text;
  if (s.accuracy) {
    std::snprintf(text, sizeof(text), " | acc %.2f%%", 100.0 * *s.accuracy);
    line += text;
  }
  if (imagesPerSecond >= 0) {
    std::snprintf(text, sizeof(text), " | %.1f img/s", imagesPerSecond);
    line += text;
  } else {
    line += " | - img/s";
  }
  line += " | ETA " + (etaSeconds >= 0 ? formatDuration(etaSeconds) : std::string("-"));
  return line;
}

ProgressPrinter::ProgressPrinter(std::ostream &out, bool interactive,
                                 std::chrono::duration<double> interval, Clock clock)
    : out_(out), interactive_(interactive), interval_(interval), clock_(std::move(clock)) {}

ProgressPrinter ProgressPrinter::forStdout(std::chrono::duration<double> interval) {
  return ProgressPrinter(std::cout, ::isatty(STDOUT_FILENO) != 0, interval);
}

std::string ProgressPrinter::render(const ProgressState &state,
                                    std::chrono::steady_clock::time_point now) {
  if (!started_) {
    started_ = true;
    start_ = now;
    startStep_ = state.step;
    startImages_ = state.imagesSeen;
  }
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  double rate = -1, eta = -1;
  if (elapsed > 0 && state.step > startStep_) {
    rate = static_cast<double>(state.imagesSeen - startImages_) / elapsed;
    const double perStep = elapsed / static_cast<double>(state.step - startStep_);
    const std::uint64_t left = state.totalSteps > state.step ? state.totalSteps - state.step : 0;
    eta = perStep * static_cast<double>(left);
  }
  return formatProgressLine(state, rate, eta);
}

void ProgressPrinter::emit(const std::string &line, bool endLine) {
  if (interactive_) {
    // Blank out the tail of a longer previous line.
    const std::size_t pad = lastLength_ > line.size() ? lastLength_ - line.size() : 0;
    out_ << '\r' << line << std::string(pad, ' ');
    lastLength_ = endLine ? 0 : line.size();
    if (endLine)
      out_ << '\n';
  } else {
    out_ << line << '\n';
  }
  out_.flush();
}

void ProgressPrinter::update(const ProgressState &state) {
  const auto now = clock_();
  const std::string line = render(state, now);
  if (!interactive_ && lastPrint_ && now - *lastPrint_ < interval_)
    return;
  lastPrint_ = now;
  emit(line, false);
}

void ProgressPrinter::finish(const ProgressState &state) {
  const auto now = clock_();
  lastPrint_ = now;
  emit(render(state, now), true);
}

} // namespace tessera::apps
