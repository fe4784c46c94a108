#include "tessera/apps/TrainingOptions.hpp"

#include "tessera/apps/Errors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <poputil/Suggest.hpp>

namespace po = boost::program_options;

namespace tessera::apps {
namespace {

std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

const std::string &singleToken(const std::vector<std::string> &tokens, const char *flag) {
  if (tokens.size() != 1)
    throw cli_error(std::string(flag) + " takes exactly one value");
  return tokens.front();
}

std::string stripDashes(std::string name) {
  const auto first = name.find_first_not_of('-');
  name.erase(0, first == std::string::npos ? name.size() : first);
  if (const auto eq = name.find('='); eq != std::string::npos)
    name.erase(eq);
  return name;
}

} // namespace

std::string toString(LrSchedule schedule) {
  switch (schedule) {
  case LrSchedule::Cosine:
    return "cosine";
  case LrSchedule::Step:
    return "step";
  case LrSchedule::Constant:
    return "constant";
  case LrSchedule::Linear:
    return "linear";
  }
  return "?";
}

std::string toString(Precision precision) {
  switch (precision) {
  case Precision::Half16Partials16:
    return "16.16";
  case Precision::Half16Partials32:
    return "16.32";
  case Precision::Float32:
    return "32.32";
  }
  return "?";
}

std::string toString(OptimiserType optimiser) {
  switch (optimiser) {
  case OptimiserType::Sgd:
    return "sgd";
  case OptimiserType::RmsProp:
    return "rmsprop";
  }
  return "?";
}

void validate(boost::any &value, const std::vector<std::string> &tokens, OptimiserType *, int) {
  const std::string &text = singleToken(tokens, "--optimiser");
  std::vector<std::string> names;
  for (OptimiserType o : {OptimiserType::Sgd, OptimiserType::RmsProp}) {
    if (text == toString(o)) {
      value = o;
      return;
    }
    names.push_back(toString(o));
  }
  const std::string suggestion = nearestName(text, names);
  throw cli_error("--optimiser '" + text + "' is not an optimiser" +
                  (suggestion.empty() ? std::string("") : "; did you mean " + suggestion + "?") +
                  " (use sgd or rmsprop)");
}

void validate(boost::any &value, const std::vector<std::string> &tokens, LrSchedule *, int) {
  const std::string &text = singleToken(tokens, "--lr-schedule");
  std::vector<std::string> names;
  for (LrSchedule s :
       {LrSchedule::Cosine, LrSchedule::Step, LrSchedule::Constant, LrSchedule::Linear}) {
    if (text == toString(s)) {
      value = s;
      return;
    }
    names.push_back(toString(s));
  }
  const std::string suggestion = nearestName(text, names);
  throw cli_error("--lr-schedule '" + text + "' is not a schedule" +
                  (suggestion.empty() ? std::string("") : "; did you mean " + suggestion + "?") +
                  " (use cosine, step, constant or linear)");
}

void validate(boost::any &value, const std::vector<std::string> &tokens, Precision *, int) {
  const std::string &text = singleToken(tokens, "--precision");
  for (Precision p : {Precision::Half16Partials16, Precision::Half16Partials32, Precision::Float32})
    if (text == toString(p)) {
      value = p;
      return;
    }
  throw cli_error("--precision '" + text + "' is not a precision; use 16.16, 16.32 or 32.32");
}

void addTrainingOptions(po::options_description &description, TrainingOptions &o) {
  // Optional values: bind a plain default-less value and copy it out in the notifier.
  auto optionalDouble = [](std::optional<double> &target) {
    return po::value<double>()->notifier([&target](double v) { target = v; });
  };
  // clang-format off
  description.add_options()
    ("help", po::bool_switch(&o.help), "Print this help and exit")
    ("batch-size", po::value(&o.batchSize)->default_value(o.batchSize), "Images per batch")
    ("epochs", po::value(&o.epochs)->default_value(o.epochs), "Training epochs")
    ("learning-rate", po::value(&o.learningRate)->default_value(o.learningRate),
     "Peak learning rate (> 0)")
    ("optimiser", po::value(&o.optimiser)->default_value(o.optimiser, toString(o.optimiser)),
     "sgd (with momentum) | rmsprop (TensorFlow's, as EfficientNet trained)")
    ("momentum", po::value(&o.momentum)->default_value(o.momentum),
     "Momentum of SGD or RMSprop, in [0, 1)")
    ("weight-decay", po::value(&o.weightDecay)->default_value(o.weightDecay),
     "L2 weight decay (>= 0)")
    ("rmsprop-decay", po::value(&o.rmspropDecay)->default_value(o.rmspropDecay),
     "RMSprop: decay of the mean square gradient, in [0, 1)")
    ("rmsprop-epsilon", po::value(&o.rmspropEpsilon)->default_value(o.rmspropEpsilon),
     "RMSprop: epsilon inside the square root (> 0)")
    ("label-smoothing", po::value(&o.labelSmoothing)->default_value(o.labelSmoothing),
     "Train against (1 - e) one-hot + e / classes, e in [0, 1)")
    ("ema-decay", po::value(&o.emaDecay)->default_value(o.emaDecay),
     "Validate with an exponential moving average of the weights of this decay, in [0, 1) (0: off)")
    ("warmup-epochs", po::value(&o.warmupEpochs)->default_value(o.warmupEpochs),
     "Linear learning-rate warm-up, in epochs")
    ("lr-schedule", po::value(&o.lrSchedule)->default_value(o.lrSchedule, toString(o.lrSchedule)),
     "Learning-rate schedule: cosine | step | constant | linear")
    ("precision", po::value(&o.precision)->default_value(o.precision, toString(o.precision)),
     "Weights/activations.partials bits: 16.16 | 16.32 | 32.32")
    ("seed", po::value(&o.seed)->default_value(o.seed),
     "Seed for initialisation, shuffling and augmentation")
    ("synthetic-data", po::bool_switch(&o.syntheticData),
     "Use deterministic random images instead of the data set (throughput runs)")
    ("dataset-dir", po::value(&o.datasetDir),
     "Fashion-MNIST directory (default $TESSERA_FASHION_MNIST_DIR, else "
     "/usr/share/datasets/fashion-mnist)")
    ("train-subset", po::value(&o.trainSubset)->default_value(o.trainSubset),
     "Train on the first N images only (0: all)")
    ("checkpoint-dir", po::value(&o.checkpointDir), "Directory for checkpoints")
    ("resume", po::bool_switch(&o.resume), "Continue from the latest checkpoint in --checkpoint-dir")
    ("validation", po::value(&o.validation)->default_value(o.validation),
     "Validate on the test set after each epoch (true | false)")
    ("target-accuracy", optionalDouble(o.targetAccuracy),
     "Validation accuracy (fraction, e.g. 0.9) whose first crossing is recorded as time to train")
    ("stop-at-target", po::bool_switch(&o.stopAtTarget),
     "End the run at the first validation that reaches --target-accuracy")
    ("record-file", po::value(&o.recordFile),
     "Write a benchmark record here (.json for JSON, else binary protobuf)")
    ("price-per-hour", optionalDouble(o.pricePerHour),
     "Machine price in dollars per hour, for performance per dollar")
    ("profile-steps", po::value(&o.profileSteps)->default_value(o.profileSteps),
     "Time every compute set; after N training steps print the host time by kind and by layer and write --profile-trace (0: off)")
    ("profile-trace", po::value(&o.profileTrace)->default_value(o.profileTrace),
     "Where --profile-steps writes its Chrome/Perfetto trace (JSON; open in chrome://tracing or ui.perfetto.dev)")
    ("host-threads", po::value(&o.hostThreads)->default_value(o.hostThreads),
     "Host threads for the tile engine (0: one per CPU)");
  // clang-format on
}

std::string nearestName(const std::string &name, const std::vector<std::string> &candidates) {
  // A unique candidate extending what was typed is the obvious completion.
  std::string extension;
  std::size_t extensions = 0;
  for (const std::string &c : candidates)
    if (!name.empty() && c.size() > name.size() && c.rfind(name, 0) == 0) {
      extension = c;
      ++extensions;
    }
  if (extensions == 1)
    return extension;
  std::string best;
  std::size_t bestDistance = 0;
  for (const std::string &c : candidates) {
    const std::size_t d = poputil::editDistance(name, c);
    if (best.empty() || d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  // Beyond a third of the name's length the "suggestion" is noise.
  if (best.empty() || bestDistance > std::max<std::size_t>(2, name.size() / 3))
    return "";
  return best;
}

std::optional<unsigned long> parseWholeNumber(const std::string &text) {
  if (text.empty() ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  try {
    return std::stoul(text);
  } catch (const std::out_of_range &) {
    return std::nullopt;
  }
}

po::variables_map parseCommandLine(int argc, const char *const argv[],
                                   const po::options_description &description,
                                   const po::positional_options_description *positional) {
  po::variables_map values;
  try {
    po::command_line_parser parser(argc, argv);
    parser.options(description);
    if (positional)
      parser.positional(*positional);
    po::store(parser.run(), values);
    po::notify(values);
  } catch (const po::unknown_option &e) {
    const std::string flag = e.get_option_name();
    std::vector<std::string> known;
    for (const auto &option : description.options())
      known.push_back(option->long_name());
    const std::string suggestion = nearestName(stripDashes(flag), known);
    throw cli_error(
        "unknown option " + flag +
        (suggestion.empty() ? std::string("") : "; did you mean --" + suggestion + "?") +
        " (see --help)");
  } catch (const po::error &e) {
    throw cli_error(std::string(e.what()) + " (see --help)");
  }
  return values;
}

void validateTrainingOptions(const TrainingOptions &o) {
  if (o.batchSize == 0)
    throw cli_error("--batch-size 0: use a batch size of at least 1");
  if (o.epochs == 0)
    throw cli_error("--epochs 0: train for at least 1 epoch");
  if (!(o.learningRate > 0))
    throw cli_error("--learning-rate " + number(o.learningRate) + ": must be > 0");
  if (!(o.momentum >= 0 && o.momentum < 1))
    throw cli_error("--momentum " + number(o.momentum) + ": must be in [0, 1)");
  if (!(o.weightDecay >= 0))
    throw cli_error("--weight-decay " + number(o.weightDecay) + ": must be >= 0");
  if (!(o.rmspropDecay >= 0 && o.rmspropDecay < 1))
    throw cli_error("--rmsprop-decay " + number(o.rmspropDecay) + ": must be in [0, 1)");
  if (!(o.rmspropEpsilon > 0 && std::isfinite(o.rmspropEpsilon)))
    throw cli_error("--rmsprop-epsilon " + number(o.rmspropEpsilon) + ": must be > 0");
  if (o.optimiser != OptimiserType::RmsProp) {
    const TrainingOptions defaults;
    for (auto [value, fallback, flag] :
         {std::tuple{o.rmspropDecay, defaults.rmspropDecay, "--rmsprop-decay"},
          std::tuple{o.rmspropEpsilon, defaults.rmspropEpsilon, "--rmsprop-epsilon"}})
      if (value != fallback)
        throw cli_error(std::string(flag) + " " + number(value) +
                        " has no effect with --optimiser " + toString(o.optimiser) +
                        "; add --optimiser rmsprop");
  }
  if (!(o.labelSmoothing >= 0 && o.labelSmoothing < 1))
    throw cli_error("--label-smoothing " + number(o.labelSmoothing) +
                    ": must be in [0, 1) (0: plain one-hot targets)");
  if (!(o.emaDecay >= 0 && o.emaDecay < 1))
    throw cli_error("--ema-decay " + number(o.emaDecay) +
                    ": must be in [0, 1) (0: no moving average; e.g. 0.9999)");
  if (!(o.warmupEpochs >= 0 && o.warmupEpochs <= o.epochs))
    throw cli_error("--warmup-epochs " + number(o.warmupEpochs) + ": must be in [0, --epochs " +
                    std::to_string(o.epochs) + "]");
  if (o.resume && o.checkpointDir.empty())
    throw cli_error("--resume needs --checkpoint-dir to say where the checkpoints are");
  if (o.targetAccuracy && !(*o.targetAccuracy > 0 && *o.targetAccuracy <= 1))
    throw cli_error("--target-accuracy " + number(*o.targetAccuracy) +
                    ": give a fraction in (0, 1], e.g. 0.9");
  if (o.stopAtTarget && (!o.targetAccuracy || !o.validation))
    throw cli_error("--stop-at-target needs --target-accuracy and --validation true: it stops at "
                    "the first validation that reaches the target");
  if (o.pricePerHour && !(*o.pricePerHour > 0))
    throw cli_error("--price-per-hour " + number(*o.pricePerHour) + ": must be > 0 dollars");
  if (o.syntheticData && !o.datasetDir.empty())
    throw cli_error("--dataset-dir " + o.datasetDir +
                    " conflicts with --synthetic-data, which reads no files; drop one of them");
}

std::map<std::string, std::string> describeTrainingOptions(const TrainingOptions &o) {
  std::map<std::string, std::string> config = {
      {"batch-size", std::to_string(o.batchSize)},
      {"epochs", std::to_string(o.epochs)},
      {"learning-rate", number(o.learningRate)},
      {"optimiser", toString(o.optimiser)},
      {"momentum", number(o.momentum)},
      {"weight-decay", number(o.weightDecay)},
      {"label-smoothing", number(o.labelSmoothing)},
      {"ema-decay", number(o.emaDecay)},
      {"warmup-epochs", number(o.warmupEpochs)},
      {"lr-schedule", toString(o.lrSchedule)},
      {"precision", toString(o.precision)},
      {"seed", std::to_string(o.seed)},
      {"synthetic-data", o.syntheticData ? "true" : "false"},
      {"train-subset", std::to_string(o.trainSubset)},
      {"validation", o.validation ? "true" : "false"},
      {"host-threads", std::to_string(o.hostThreads)},
  };
  if (o.optimiser == OptimiserType::RmsProp) {
    config["rmsprop-decay"] = number(o.rmspropDecay);
    config["rmsprop-epsilon"] = number(o.rmspropEpsilon);
  }
  if (o.targetAccuracy)
    config["target-accuracy"] = number(*o.targetAccuracy);
  if (o.stopAtTarget)
    config["stop-at-target"] = "true";
  return config;
}

} // namespace tessera::apps
