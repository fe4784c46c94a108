// The command-line options every trainer shares, named as in Graphcore's examples. A trainer
// adds them to its boost::program_options description next to its model-specific ones, parses
// with parseCommandLine (which turns Boost's errors into cli_error with a suggestion), then
// calls validateTrainingOptions.
#pragma once

#include <boost/any.hpp>
#include <boost/program_options.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera::apps {

enum class LrSchedule { Cosine, Step, Constant, Linear };
/// The classifier trainers' optimisers: SGD with momentum, or RMSprop as EfficientNet trained.
enum class OptimiserType { Sgd, RmsProp };
/// "<weights/activations>.<partials/accumulation>" bits, as Graphcore's --precision.
enum class Precision { Half16Partials16, Half16Partials32, Float32 };

std::string toString(LrSchedule schedule);     // "cosine" | "step" | "constant" | "linear"
std::string toString(Precision precision);     // "16.16" | "16.32" | "32.32"
std::string toString(OptimiserType optimiser); // "sgd" | "rmsprop"

struct TrainingOptions {
  std::size_t batchSize = 32;
  unsigned epochs = 10;
  double learningRate = 0.1;
  OptimiserType optimiser = OptimiserType::Sgd;
  /// Momentum of SGD and of RMSprop, in [0, 1).
  double momentum = 0.9;
  /// L2 added to the gradient of weights (not norms or biases), whatever the optimiser.
  double weightDecay = 1e-4;
  /// RMSprop's decay ρ of the mean square, in [0, 1), and ε inside its square root, > 0.
  double rmspropDecay = 0.9;
  double rmspropEpsilon = 1e-3;
  /// Cross entropy of the training loss against (1 − ε)·one-hot + ε/classes; in [0, 1).
  double labelSmoothing = 0;
  /// Decay d of an exponential moving average of the weights, ema ← d·ema + (1 − d)·w after
  /// every optimiser step, validated with instead of the weights; in [0, 1), 0 keeps none.
  double emaDecay = 0;
  /// Linear warm-up length in epochs (fractions allowed), within epochs.
  double warmupEpochs = 0;
  LrSchedule lrSchedule = LrSchedule::Cosine;
  Precision precision = Precision::Float32;
  std::uint64_t seed = 42;
  bool syntheticData = false;
  /// Fashion-MNIST directory; empty → $TESSERA_FASHION_MNIST_DIR or the Debian path.
  std::string datasetDir;
  /// Train on the first N images only; 0 uses all.
  std::size_t trainSubset = 0;
  std::string checkpointDir;
  /// Continue from the latest checkpoint in checkpointDir.
  bool resume = false;
  bool validation = true;
  /// Stop-and-record target as a fraction in (0, 1], e.g. 0.9.
  std::optional<double> targetAccuracy;
  /// End the run at the first validation that reaches targetAccuracy (as MLPerf runs do).
  bool stopAtTarget = false;
  /// Where to write a BenchmarkRecord (".json" → JSON); empty writes none.
  std::string recordFile;
  /// Dollars per hour of the machine, for performance-per-dollar figures.
  std::optional<double> pricePerHour;
  /// Measure host time per compute set (debug.instrument) and, after this many training steps,
  /// print where it went by kind and layer and write `profileTrace` (0: off).
  unsigned profileSteps = 0;
  /// The Chrome/Perfetto trace of those steps (JSON).
  std::string profileTrace = "profile_trace.json";
  /// Engine option target.hostThreads; 0 lets the SDK choose.
  unsigned hostThreads = 0;
  bool help = false;
};

/// Adds the shared options to `description`, storing parsed values into `options` (which must
/// outlive the parse). Defaults are the values `options` holds when this is called.
void addTrainingOptions(boost::program_options::options_description &description,
                        TrainingOptions &options);

/// Parses argv against `description`, runs the notifiers (filling bound structs) and returns
/// the variables map. Boost errors become cli_error naming the flag; an unknown flag's message
/// suggests the nearest known one. `positional`, when given, maps bare arguments to options.
boost::program_options::variables_map parseCommandLine(
    int argc, const char *const argv[],
    const boost::program_options::options_description &description,
    const boost::program_options::positional_options_description *positional = nullptr);

/// `text` as a whole decimal number (digits only: no sign, space or suffix), or nothing —
/// for flags whose values are parsed by hand ("auto" or a count, comma-separated lists).
std::optional<unsigned long> parseWholeNumber(const std::string &text);

/// Rejects nonsense values (batch size 0, negative learning rate, --resume without
/// --checkpoint-dir, …) with cli_error naming the flag and the accepted values.
void validateTrainingOptions(const TrainingOptions &options);

/// The options as flag → text, for checkpoints and benchmark records.
std::map<std::string, std::string> describeTrainingOptions(const TrainingOptions &options);

/// The only candidate that extends `name`, else the one nearest by edit distance, or "" when
/// none is close.
std::string nearestName(const std::string &name, const std::vector<std::string> &candidates);

// Boost.Program_options hooks so the enums parse from their flag text.
void validate(boost::any &value, const std::vector<std::string> &tokens, LrSchedule *, int);
void validate(boost::any &value, const std::vector<std::string> &tokens, Precision *, int);
void validate(boost::any &value, const std::vector<std::string> &tokens, OptimiserType *, int);

} // namespace tessera::apps
