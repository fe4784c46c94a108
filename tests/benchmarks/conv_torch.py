#!/usr/bin/python3
"""PyTorch CPU figures for conv_bench: one convolution layer's forward, input-gradient and
weight-gradient passes (conv2d forward + backward with respect to input and weight, no bias).

Prints a `settings` line, then one line per case: `case <name> <milliseconds per iteration>`.
Usage: conv_torch.py [--min-time SECONDS] CASE... where CASE is
  conv:B,C,O,H,K,S[,G]   batch B, C -> O channels in G groups (default 1; G = C = O is
                         depthwise), H x H input, K x K kernel, stride S, padding K//2
The cases come from conv_bench's table (tests/benchmarks/ConvBench.cpp, kConvCases).
Runs with torch.set_num_threads(2) and OMP_WAIT_POLICY=PASSIVE (set before torch is imported).
"""
import os
import sys
import time

os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

try:
    import torch
    import torch.nn.functional as F
except ImportError as e:  # reported by conv_bench, which then shows Tessera figures alone
    print(f"unavailable: python3-torch cannot be imported ({e})")
    sys.exit(0)


def time_it(fn, min_time):
    fn()  # warm up
    iters, start = 0, time.perf_counter()
    while True:
        fn()
        iters += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time and iters >= 3:
            return 1000.0 * elapsed / iters


def conv_case(shape, min_time):
    b, c, o, h, k, s = shape[:6]
    g = shape[6] if len(shape) > 6 else 1
    x = torch.randn(b, c, h, h, requires_grad=True)
    w = torch.randn(o, c // g, k, k, requires_grad=True)

    def step():
        y = F.conv2d(x, w, stride=s, padding=k // 2, groups=g)
        y.backward(torch.ones_like(y))

    return time_it(step, min_time)


def main(argv):
    min_time = 0.5
    cases = []
    i = 0
    while i < len(argv):
        if argv[i] == "--min-time":
            min_time = float(argv[i + 1])
            i += 2
            continue
        cases.append(argv[i])
        i += 1
    torch.set_num_threads(2)
    print(f"settings torch={torch.__version__} torch.get_num_threads()={torch.get_num_threads()} "
          f"OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}")
    for case in cases:
        _, dims = case.split(":")
        print(f"case {case} {conv_case([int(d) for d in dims.split(',')], min_time):.4f}",
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
