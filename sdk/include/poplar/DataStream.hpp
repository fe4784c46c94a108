// Poplar declares DataStream and RemoteBuffer in this header; Tessera declares them with the
// other graph handles in <poplar/GraphElements.hpp>, which this brings in.
#pragma once

#include <poplar/GraphElements.hpp>
