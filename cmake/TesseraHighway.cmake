# tessera_highway(target): compile `target`'s Highway kernels for the x86 targets worth
# dispatching to on the machines we run on (AVX-512, AVX2, SSE4, and the portable fallback),
# and no others, to keep builds lean. Dispatch picks the best one at run time.
find_package(hwy CONFIG REQUIRED)
function(tessera_highway target)
  target_link_libraries(${target} PRIVATE hwy::hwy)
  target_compile_definitions(${target} PRIVATE "HWY_DISABLED_TARGETS=(HWY_SSSE3|HWY_AVX3_DL)")
endfunction()
