#pragma once

namespace poplar {

/// What a Target describes. Every kind runs on Tessera's CPU tile engine; IPU devices from the
/// DeviceManager are simulated hardware and IPU_MODEL comes from `IPUModel::createDevice`.
enum class TargetType { IPU, IPU_MODEL, CPU };

const char *toString(TargetType t);

} // namespace poplar
