// Stack-size annotations for codelets. On the IPU, DEF_STACK_USAGE(bytes, "function") tells the
// graph compiler how much stack a function it cannot analyse (recursive, called through a
// pointer, written in assembly) needs, since each worker's stack is a fixed piece of tile
// memory. Vertices run on host threads with ordinary stacks in Tessera, so the annotations are
// accepted and have no effect (each expands to a declaration, so the usual trailing `;` is
// valid at namespace and class scope).
#pragma once

#define DEF_STACK_USAGE(...) static_assert(true, "stack usage annotation")
#define DEF_FUNC_CALL_PTRS(...) static_assert(true, "function pointer annotation")
