// <print.h>: printf from vertex code, as Poplar's codelet runtime provides it.
//
// After this header, `printf` in a codelet file goes to the Engine's print stream (std::cout
// unless Engine::setPrintStream / setPrintTensorStream chose another), not straight to the
// process's stdout. The output is deterministic whatever `target.hostThreads` is: what the
// vertices of a compute set print is kept per tile while the set runs and written when it
// ends, by tile, then by vertex in compute-set order, then in call order — so it also lands in
// order with PrintTensor output. Called outside a vertex (host code that includes this
// header), printf writes to stdout as usual.
//
// `printf` is a macro naming Tessera's function; `std::printf` works too.
#pragma once

#include <cstdio>
#include <stdio.h>

extern "C" int tessera_vertex_printf(const char *format, ...)
    __attribute__((format(__printf__, 1, 2)));

namespace std {
using ::tessera_vertex_printf;
} // namespace std

#define printf tessera_vertex_printf
