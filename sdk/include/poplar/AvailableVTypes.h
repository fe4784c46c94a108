// Which vertex field layouts the target offers, as macros codelets test with #ifdef to pick a
// compact layout where there is one (`#ifdef VECTOR_AVAIL_SCALED_PTR64 … SCALED_PTR64 #else
// ONE_PTR`). Tessera accepts every layout of <poplar/FieldTypes.hpp> (each stores a full pointer
// and a size), so all of them are available.
#pragma once

#include <poplar/FieldTypes.hpp>

#define VECTOR_AVAIL_SCALED_PTR32
#define VECTOR_AVAIL_SCALED_PTR64
#define VECTOR_AVAIL_SCALED_PTR128
#define VECTOR_AVAIL_SHORT_SPAN
#define VECTORLIST_AVAIL_DELTAN
