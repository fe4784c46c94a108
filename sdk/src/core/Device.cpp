#include <poplar/Device.hpp>
#include <poplar/DeviceManager.hpp>

#include <mutex>
#include <set>

#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>

namespace poplar {

namespace {
/// Device ids claimed by `attach()` in this process (part of the simulated system's state).
struct AttachTable {
  std::mutex mutex;
  std::set<unsigned> attached;
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
    if (!t.attached.insert(impl_->id).second)
      return false;
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
    t.attached.erase(impl_->id);
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
Device makeManaged(unsigned id, unsigned numIPUs) {
  auto impl = std::make_unique<Device::Impl>();
  impl->target = Target::createIPUTarget(numIPUs, "ipu2");
  impl->id = id;
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
        out.push_back(makeManaged(g.firstId + i, g.size));
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
      return makeManaged(deviceId, g.size);
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
