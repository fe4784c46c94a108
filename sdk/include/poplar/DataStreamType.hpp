// Which way a data stream moves data, and whether it is a FIFO or backs a remote buffer.
#pragma once

namespace poplar {

enum class DataStreamType {
  HostToDeviceFIFO,
  DeviceToHostFIFO,
  HostToDeviceBuffer,
  DeviceToHostBuffer,
};

/// True for the streams that carry data from the device to the host.
constexpr bool isDeviceToHost(DataStreamType type) {
  return type == DataStreamType::DeviceToHostFIFO || type == DataStreamType::DeviceToHostBuffer;
}
/// True for the streams that carry data from the host to the device.
constexpr bool isHostToDevice(DataStreamType type) {
  return type == DataStreamType::HostToDeviceFIFO || type == DataStreamType::HostToDeviceBuffer;
}
/// True for the streams behind a remote buffer (the *Buffer types).
constexpr bool isRemoteBuffer(DataStreamType type) {
  return type == DataStreamType::HostToDeviceBuffer || type == DataStreamType::DeviceToHostBuffer;
}

} // namespace poplar
