// Constants shared by the encoding and loss functions.
#pragma once

/// The index (label) value meaning "no class": encodeOneHot leaves its row all "off" and the
/// popnn losses give it no loss, no gradient and no accuracy count. All bits set, so -1 as INT.
#define MASKED_LABEL_CODE 0xFFFFFFFFU

/// Smallest positive values added before a natural logarithm so that log(0) stays finite:
/// the smallest normal FLOAT and the smallest subnormal HALF.
#define EPS_LOG_N_FLOAT (1.17549435e-38F)
#define EPS_LOG_N_HALF (0.000000059605F)
