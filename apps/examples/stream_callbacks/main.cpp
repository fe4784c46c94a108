// Stream callbacks with prefetch: feeding a device loop from host code, one batch at a time.
//
// A loop on the device copies one batch of four numbers from a host-to-device stream per
// iteration and adds it to a running total, which another stream sends back after every batch.
// Instead of connecting the streams to buffers, the host connects them to StreamCallback
// objects: the producer makes each batch when asked, and because prefetch is on (the engine
// option `exchange.enablePrefetch`), the engine asks for the next batch as soon as the previous
// transfer has finished, so a real program could prepare data while the device computes.
#include <cstdio>
#include <memory>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/Program.hpp>
#include <poplar/StreamCallback.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>

using namespace poplar;
using namespace poplar::program;

namespace {

constexpr unsigned batchSize = 4, numBatches = 5;

/// How the producer's batches were delivered. Kept outside the producer, which the engine owns.
struct DeliveryCounts {
  unsigned prefetched = 0, fetched = 0, completed = 0, invalidated = 0;
};

/// Produces batch n as n, n+1, n+2, n+3.
class BatchProducer : public StreamCallback {
public:
  explicit BatchProducer(DeliveryCounts &counts) : counts(counts) {}

  Result prefetch(void *p) override {
    fill(static_cast<float *>(p));
    ++counts.prefetched;
    return Result::Success;
  }
  void fetch(void *p) override {
    fill(static_cast<float *>(p));
    ++counts.fetched;
  }
  void complete() override { ++counts.completed; }
  void invalidatePrefetched() override {
    // The engine will not use the last prefetched batch: make it again next time.
    --next;
    ++counts.invalidated;
  }

private:
  void fill(float *batch) {
    for (unsigned i = 0; i < batchSize; ++i)
      batch[i] = static_cast<float>(next + i);
    ++next;
  }
  DeliveryCounts &counts;
  unsigned next = 0;
};

/// Prints each running total the device sends back.
class TotalPrinter : public StreamCallback {
public:
  Result prefetch(void *) override { return Result::NotAvailable; } // not called for outputs
  void fetch(void *p) override {
    const float *total = static_cast<const float *>(p);
    std::printf("total after batch %u:", ++batches);
    for (unsigned i = 0; i < batchSize; ++i)
      std::printf(" %g", total[i]);
    std::printf("\n");
  }
  void complete() override {}

private:
  unsigned batches = 0;
};

} // namespace

int main() {
  IPUModel model;
  model.tilesPerIPU = 2;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);

  Tensor batch = graph.addVariable(FLOAT, {batchSize}, "batch");
  Tensor total = graph.addVariable(FLOAT, {batchSize}, "total");
  graph.setTileMapping(batch, 0);
  graph.setTileMapping(total, 1);
  graph.setInitialValue(total, 0.0f);

  DataStream in = graph.addHostToDeviceFIFO("batches", FLOAT, batchSize);
  DataStream out = graph.addDeviceToHostFIFO("totals", FLOAT, batchSize);
  Sequence body;
  body.add(Copy(in, batch));
  popops::addInPlace(graph, total, batch, body, "accumulate");
  body.add(Copy(total, out));
  Sequence prog{Repeat(numBatches, body)};

  DeliveryCounts counts;
  {
    Engine engine(graph, prog, OptionFlags{{"exchange.enablePrefetch", "true"}});
    engine.load(device);
    engine.connectStreamToCallback("batches", std::make_unique<BatchProducer>(counts));
    engine.connectStreamToCallback("totals", std::make_unique<TotalPrinter>());
    engine.run(0);
  }

  // The first batch had to be fetched on demand; every later one was ready in advance. The
  // engine prefetched one more batch after the last transfer, and handed it back unused when it
  // was destroyed.
  std::printf("batches fetched on demand: %u, prefetched: %u (unused: %u), completed: %u\n",
              counts.fetched, counts.prefetched, counts.invalidated, counts.completed);
  return 0;
}
