#include "data/SentencePieceTraining.hpp"

#include "tessera/apps/Errors.hpp"

#include <dlfcn.h>

#include <fstream>
#include <mutex>
#include <sstream>
#include <string_view>

namespace tessera::bert {
namespace {

constexpr const char *kTrainerLibrary = "libsentencepiece_train.so.0";

// sentencepiece::SentencePieceTrainer::Train(std::string_view args, SentenceIterator *,
// std::string *serialized_model_proto) and util::Status's destructor.
constexpr const char *kTrainSymbol =
    "_ZN13sentencepiece20SentencePieceTrainer5TrainESt17basic_string_viewIcSt11char_"
    "traitsIcEEPNS_16SentenceIteratorEPNSt7__cxx1112basic_stringIcS3_SaIcEEE";
constexpr const char *kStatusDestructorSymbol = "_ZN13sentencepiece4util6StatusD1Ev";

// sentencepiece::util::Status is one pointer to a Rep { StatusCode code; std::string message; },
// null when ok, with a user-provided destructor, so it is returned through a hidden pointer. This
// stand-in has the same layout and calling convention; it is destroyed by the library's own
// destructor (the Rep was allocated in the library's namespace, see below).
struct RawStatus {
  struct Rep {
    int code;
    std::string message;
  };
  Rep *rep;
  ~RawStatus() {}
};
using TrainFn = RawStatus (*)(std::string_view, void *, std::string *);
using DestroyFn = void (*)(RawStatus *);

struct Trainer {
  TrainFn train = nullptr;
  DestroyFn destroy = nullptr;
};

// The library is opened in a link-map namespace of its own (dlmopen), with its own C and C++
// runtimes, so its embedded protobuf never meets the system libprotobuf and its iostreams are
// initialised normally. Nothing allocated on one side is freed on the other: the arguments are
// read-only views, the model comes back as a file, and the status is read, then destroyed by the
// library. Opened once and kept for the life of the process.
const Trainer &trainer() {
  static const Trainer loaded = [] {
    void *handle = ::dlmopen(LM_ID_NEWLM, kTrainerLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw apps::app_error(std::string("cannot load the SentencePiece trainer ") +
                            kTrainerLibrary + " (" + ::dlerror() +
                            "); install the Debian package libsentencepiece0 (scripts/bootstrap "
                            "does)");
    Trainer t;
    t.train = reinterpret_cast<TrainFn>(::dlsym(handle, kTrainSymbol));
    t.destroy = reinterpret_cast<DestroyFn>(::dlsym(handle, kStatusDestructorSymbol));
    if (!t.train || !t.destroy)
      throw apps::app_error(std::string(kTrainerLibrary) +
                            " lacks SentencePieceTrainer::Train(string_view, ...) or util::Status; "
                            "this code expects SentencePiece 0.1.9x as Debian 12 ships it");
    return t;
  }();
  return loaded;
}

} // namespace

std::string trainSentencePieceModel(const std::filesystem::path &inputFile,
                                    const std::string &arguments) {
  const Trainer &t = trainer();
  static std::mutex oneAtATime; // the trainer sets process-wide logging state
  std::lock_guard<std::mutex> lock(oneAtATime);
  const std::filesystem::path prefix = inputFile.string() + ".spm";
  const std::string args =
      "--input=" + inputFile.string() + " --model_prefix=" + prefix.string() + " " + arguments;
  RawStatus status = t.train(args, nullptr, nullptr);
  std::string failure;
  if (status.rep != nullptr)
    failure = status.rep->message.empty()
                  ? "code " + std::to_string(status.rep->code)
                  : std::string(status.rep->message.data(), status.rep->message.size());
  t.destroy(&status);
  std::filesystem::path modelFile = prefix, vocabFile = prefix;
  modelFile += ".model";
  vocabFile += ".vocab";
  std::string model;
  if (failure.empty()) {
    std::ifstream in(modelFile, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    model = bytes.str();
    if (!in || model.empty())
      failure = "SentencePiece wrote no model to " + modelFile.string();
  }
  std::error_code ignored;
  std::filesystem::remove(modelFile, ignored);
  std::filesystem::remove(vocabFile, ignored);
  if (!failure.empty())
    throw apps::cli_error(failure);
  return model;
}

} // namespace tessera::bert
