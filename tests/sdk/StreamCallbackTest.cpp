// poplar::StreamCallback: documented behaviour (Poplar's StreamCallback reference, in our
// words): for a host-to-device stream the engine may call prefetch ahead of the transfer that
// needs the data; a transfer uses prefetched data when there is some and calls fetch otherwise;
// complete follows every transfer; data prefetched but never used is handed back through
// invalidatePrefetched. Device-to-host streams get their data through fetch.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/StreamCallback.hpp>

#include "ErrorMatchers.hpp"

using namespace poplar;
using namespace poplar::program;
using testerrors::throwsWithMessage;

namespace {

constexpr unsigned kN = 4;
constexpr unsigned kTransfers = 5;

/// Supplies transfer k as kN copies of `first + k`, and logs what the engine asked for.
class Counting : public StreamCallback {
public:
  Counting(float first, bool canPrefetch, std::vector<std::string> &log)
      : next_(first), canPrefetch_(canPrefetch), log_(log) {}
  Result prefetch(void *p) override {
    log_.push_back("prefetch");
    if (!canPrefetch_)
      return Result::NotAvailable;
    fill(p);
    return Result::Success;
  }
  void fetch(void *p) override {
    log_.push_back("fetch");
    fill(p);
  }
  void complete() override { log_.push_back("complete"); }
  void invalidatePrefetched() override {
    log_.push_back("invalidate");
    --next_; // the value handed out by that prefetch will be produced again
  }

private:
  void fill(void *p) {
    std::fill_n(static_cast<float *>(p), kN, next_);
    next_ += 1;
  }
  float next_;
  bool canPrefetch_;
  std::vector<std::string> &log_;
};

/// Repeat(kTransfers, in → t → out), with `out` a ring of kTransfers transfers on the host.
struct Looping {
  Device device;
  Graph graph;
  Program program;
  std::vector<float> out = std::vector<float>(kN * kTransfers);
  explicit Looping(const OptionFlags &options = {})
      : device(makeDevice()), graph(device.getTarget()), program(build()),
        engine(graph, program, options) {
    engine.load(device);
    engine.connectStream("out", out.data(), out.data() + out.size());
  }
  Device makeDevice() {
    IPUModel model;
    model.tilesPerIPU = 2;
    return model.createDevice();
  }
  Program build() {
    Tensor t = graph.addVariable(FLOAT, {kN}, "t");
    graph.setTileMapping(t, 1);
    DataStream in = graph.addHostToDeviceFIFO("in", FLOAT, kN);
    DataStream toHost = graph.addDeviceToHostFIFO("out", FLOAT, kN);
    return Repeat(kTransfers, Sequence{Copy(in, t), Copy(t, toHost)});
  }
  /// The first element of each transfer that came out.
  std::vector<float> firsts() const {
    std::vector<float> v;
    for (unsigned k = 0; k < kTransfers; ++k)
      v.push_back(out[k * kN]);
    return v;
  }
  Engine engine;
};

std::size_t count(const std::vector<std::string> &log, const std::string &what) {
  return static_cast<std::size_t>(std::count(log.begin(), log.end(), what));
}

} // namespace

TEST(StreamCallback, PrefetchedDataFeedsEveryTransferButTheFirst) {
  std::vector<std::string> log; // outlives the engine, whose destructor still tells the callback
  Looping l;
  l.engine.connectStreamToCallback("in", std::make_unique<Counting>(10.0f, true, log));
  l.engine.run();
  EXPECT_EQ(l.firsts(), (std::vector<float>{10, 11, 12, 13, 14}));
  EXPECT_EQ(count(log, "fetch"), 1u) << "only the first transfer had nothing prefetched";
  EXPECT_EQ(count(log, "prefetch"), kTransfers) << "one after each transfer";
  EXPECT_EQ(count(log, "complete"), kTransfers);
  EXPECT_EQ(log.front(), "fetch");
  // The data prefetched at the end of one run feeds the next run's first transfer.
  l.engine.run();
  EXPECT_EQ(l.firsts(), (std::vector<float>{15, 16, 17, 18, 19}));
  EXPECT_EQ(count(log, "fetch"), 1u);
}

TEST(StreamCallback, ConnectingAnotherCallbackHandsBackUnusedPrefetchedData) {
  std::vector<std::string> first, second; // outlive the engine, which tells its callback at the end
  Looping l;
  l.engine.connectStreamToCallback("in", std::make_unique<Counting>(1.0f, true, first));
  l.engine.run();
  l.engine.connectStreamToCallback("in", std::make_unique<Counting>(100.0f, true, second));
  EXPECT_EQ(count(first, "invalidate"), 1u);
  l.engine.run();
  EXPECT_EQ(l.firsts(), (std::vector<float>{100, 101, 102, 103, 104}))
      << "nothing of the old callback's prefetched data is used";
  EXPECT_EQ(second.front(), "fetch");
}

TEST(StreamCallback, NotAvailableFallsBackToFetch) {
  std::vector<std::string> log; // outlives the engine, whose destructor still tells the callback
  Looping l;
  l.engine.connectStreamToCallback("in", std::make_unique<Counting>(0.0f, false, log));
  l.engine.run();
  EXPECT_EQ(l.firsts(), (std::vector<float>{0, 1, 2, 3, 4}));
  EXPECT_EQ(count(log, "fetch"), kTransfers);
}

TEST(StreamCallback, PrefetchOffMeansFetchOnly) {
  std::vector<std::string> log; // outlives the engine, whose destructor still tells the callback
  Looping l({{"exchange.enablePrefetch", "false"}});
  l.engine.connectStreamToCallback("in", std::make_unique<Counting>(0.0f, true, log));
  l.engine.run();
  EXPECT_EQ(l.firsts(), (std::vector<float>{0, 1, 2, 3, 4}));
  EXPECT_EQ(count(log, "prefetch"), 0u);
  EXPECT_EQ(count(log, "fetch"), kTransfers);
}

TEST(StreamCallback, DeviceToHostCallbackReceivesEachTransfer) {
  std::vector<std::string> log; // outlives the engine, whose destructor still tells the callback
  Looping l;
  l.engine.connectStreamToCallback("in", std::make_unique<Counting>(7.0f, true, log));
  struct Sink : LegacyStreamCallback {
    std::vector<float> seen;
    void operator()(void *p) override { seen.push_back(static_cast<float *>(p)[0]); }
  };
  auto sink = std::make_unique<Sink>();
  Sink *s = sink.get();
  l.engine.connectStreamToCallback("out", 0, std::move(sink));
  l.engine.run();
  EXPECT_EQ(s->seen, (std::vector<float>{7, 8, 9, 10, 11}));
}

TEST(StreamCallbackErrors, ThrowingCallbackNamesTheStreamAndTheEngineRunsAgain) {
  std::vector<std::string> log; // outlives the engine, whose destructor still tells the callback
  Looping l;
  struct Throws : LegacyStreamCallback {
    void operator()(void *) override { throw std::runtime_error("disk gone"); }
  };
  l.engine.connectStreamToCallback("in", std::make_unique<Throws>());
  EXPECT_TRUE(throwsWithMessage<poplar::runtime_error>([&] { l.engine.run(); },
                                                       {"stream 'in'", "fetch", "disk gone"}));
  l.engine.connectStreamToCallback("in", std::make_unique<Counting>(3.0f, true, log));
  l.engine.run();
  EXPECT_EQ(l.firsts(), (std::vector<float>{3, 4, 5, 6, 7}));
}

TEST(StreamCallbackErrors, UnknownHandleSuggestsTheNearest) {
  std::vector<std::string> log; // outlives the engine, whose destructor still tells the callback
  Looping l;
  EXPECT_TRUE(throwsWithMessage<stream_connection_error>(
      [&] { l.engine.connectStreamToCallback("inn", std::make_unique<Counting>(0, true, log)); },
      {"'inn'", "'in'"}));
}

TEST(StreamCallbackErrors, NullCallbackAndOtherReplicaAreNamed) {
  Looping l;
  EXPECT_TRUE(throwsWithMessage<stream_connection_error>(
      [&] { l.engine.connectStreamToCallback("in", std::unique_ptr<StreamCallback>()); },
      {"'in'", "null"}));
  std::vector<std::string> log;
  EXPECT_TRUE(throwsWithMessage<index_error>(
      [&] { l.engine.connectStreamToCallback("in", 1, std::make_unique<Counting>(0, true, log)); },
      {"replica 1", "'in'"}));
}
