#include <poplar/Device.hpp>
#include <poplar/DeviceManager.hpp>

#include <mutex>
#include <set>

#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>

namespace poplar {

namespace {
/// IPUs of the simulated system claimed by `attach()` in this process. Devices that share an
/// IPU (device 0 is IPU 0, device 16 is IPUs 0 and 1) exclude each other, as on an IPU-POD.
struct AttachTable {
  std::mutex mutex;
  std::set<unsigned> claimedIPUs;
};
AttachTable &attachTable() {
  static AttachTable table;
  return table;
}
constexpr unsigned kUnmanagedId = ~0u;
} // namespace

struct Device::Impl {
  Target target;
  unsigned id = kUnmanagedId;
  unsigned firstIPU = 0; ///< Managed devices: the system IPUs [firstIPU, firstIPU + numIPUs).
  mutable bool attached = false;
};

Device::Device() = default;
Device::~Device() {
  if (impl_)
    detach();
}
Device::Device(Device &&) noexcept = default;
Device &Device::operator=(Device &&o) noexcept {
  if (this != &o) {
    if (impl_)
      detach();
    impl_ = std::move(o.impl_);
  }
  return *this;
}
Device::Device(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Device Device::createCPUDevice(unsigned numIPUs) {
  auto impl = std::make_unique<Impl>();
  impl->target = Target::createCPUTarget(false, numIPUs);
  return Device(std::move(impl));
}

Device Device::createSimulatorDevice(const Target &target, const OptionFlags &) {
  if (!target.isValid())
    throw invalid_machine_model("createSimulatorDevice needs a valid target");
  auto impl = std::make_unique<Impl>();
  impl->target = target;
  return Device(std::move(impl));
}

Device Device::createVirtualDevice(unsigned tilesPerIPU) {
  const Target &t = getTarget();
  if (tilesPerIPU == 0 || tilesPerIPU > t.getTilesPerIPU())
    throw invalid_machine_model("createVirtualDevice: asked for " + std::to_string(tilesPerIPU) +
                                " tiles per IPU of a device with " +
                                std::to_string(t.getTilesPerIPU()) +
                                " (a virtual device has between 1 and that many)");
  auto impl = std::make_unique<Impl>();
  impl->target = t.createVirtualTarget(t.getNumIPUs(), tilesPerIPU);
  impl->id = impl_->id;
  impl->firstIPU = impl_->firstIPU;
  return Device(std::move(impl));
}

const Target &Device::getTarget() const {
  if (!impl_)
    throw poplar_error("getTarget on an empty Device");
  return impl_->target;
}

unsigned Device::getId() const { return impl_ ? impl_->id : kUnmanagedId; }

bool Device::attach() const {
  if (!impl_)
    return false;
  if (impl_->attached)
    return true;
  if (impl_->id != kUnmanagedId) {
    auto &t = attachTable();
    std::lock_guard lock(t.mutex);
    const unsigned n = impl_->target.getNumIPUs();
    for (unsigned i = 0; i < n; ++i)
      if (t.claimedIPUs.count(impl_->firstIPU + i))
        return false;
    for (unsigned i = 0; i < n; ++i)
      t.claimedIPUs.insert(impl_->firstIPU + i);
  }
  impl_->attached = true;
  return true;
}

void Device::detach() const {
  if (!impl_ || !impl_->attached)
    return;
  if (impl_->id != kUnmanagedId) {
    auto &t = attachTable();
    std::lock_guard lock(t.mutex);
    for (unsigned i = 0; i < impl_->target.getNumIPUs(); ++i)
      t.claimedIPUs.erase(impl_->firstIPU + i);
  }
  impl_->attached = false;
}

bool Device::isAttached() const { return impl_ && impl_->attached; }

// ---- DeviceManager: a simulated system of kSystemIPUs Mk2 IPUs --------------------------
// Device ids follow IPU-POD numbering: the single IPUs first (0..15), then pairs, quads, ….
namespace {
struct GroupSpan {
  unsigned firstId;
  unsigned size;
};
std::vector<GroupSpan> groupSizes() {
  std::vector<GroupSpan> out;
  unsigned id = 0;
  for (unsigned size = 1; size <= DeviceManager::kSystemIPUs; size *= 2) {
    out.push_back({id, size});
    id += DeviceManager::kSystemIPUs / size;
  }
  return out;
}
Device makeManaged(unsigned id, unsigned firstIPU, unsigned numIPUs) {
  auto impl = std::make_unique<Device::Impl>();
  impl->target = Target::createIPUTarget(numIPUs, "ipu2");
  impl->id = id;
  impl->firstIPU = firstIPU;
  return Device(std::move(impl));
}
} // namespace

DeviceManager::DeviceManager() = default;
DeviceManager DeviceManager::createDeviceManager() { return DeviceManager(); }

std::vector<Device> DeviceManager::getDevices(TargetType type, unsigned requiredNumIPUs,
                                              const OptionFlags &) const {
  std::vector<Device> out;
  if (type != TargetType::IPU)
    return out;
  for (const auto &g : groupSizes())
    if (g.size == requiredNumIPUs)
      for (unsigned i = 0; i < kSystemIPUs / g.size; ++i)
        out.push_back(makeManaged(g.firstId + i, i * g.size, g.size));
  return out;
}

std::vector<Device> DeviceManager::getDevices(const OptionFlags &opts) const {
  std::vector<Device> out;
  for (const auto &g : groupSizes())
    for (auto &d : getDevices(TargetType::IPU, g.size, opts))
      out.push_back(std::move(d));
  return out;
}

Device DeviceManager::getDevice(unsigned deviceId, const OptionFlags &) const {
  for (const auto &g : groupSizes())
    if (deviceId >= g.firstId && deviceId < g.firstId + kSystemIPUs / g.size)
      return makeManaged(deviceId, (deviceId - g.firstId) * g.size, g.size);
  throw index_error("no device with id " + std::to_string(deviceId) + " (the system has " +
                    std::to_string(getNumDevices()) + " devices)");
}

std::size_t DeviceManager::getNumDevices() const {
  std::size_t n = 0;
  for (const auto &g : groupSizes())
    n += kSystemIPUs / g.size;
  return n;
}

} // namespace poplar
