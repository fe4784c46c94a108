#!/usr/bin/python3
"""PyTorch CPU figures for popnn_bench: batch-norm and softmax-cross-entropy forward+backward.

Prints a `settings` line, then one line per case: `case <name> <milliseconds per iteration>`.
Usage: popnn_torch.py [--min-time SECONDS] CASE... where CASE is
  bn:B,C,H,W   training batch norm (statistics, normalise, input and parameter gradients)
  ce:N,V       softmax + cross-entropy with label indices (every 7th ignored), fwd and bwd
Runs with torch.set_num_threads(2) and OMP_WAIT_POLICY=PASSIVE (set before torch is imported).
"""
import os
import sys
import time

os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

try:
    import torch
    import torch.nn.functional as F
except ImportError as e:  # reported by popnn_bench, which then shows Tessera figures alone
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


def bn_case(shape, min_time):
    b, c, h, w = shape
    x = torch.randn(b, c, h, w, requires_grad=True)
    gamma = torch.ones(c, requires_grad=True)
    beta = torch.zeros(c, requires_grad=True)
    grad = torch.randn(b, c, h, w)

    def step():
        y = F.batch_norm(x, None, None, gamma, beta, training=True, eps=1e-5)
        y.backward(grad)

    return time_it(step, min_time)


def ce_case(shape, min_time):
    n, v = shape
    logits = torch.randn(n, v, requires_grad=True)
    labels = torch.randint(0, v, (n,))
    labels[::7] = -100  # masked positions, as popnn's MASKED_LABEL_CODE

    def step():
        loss = F.cross_entropy(logits, labels, ignore_index=-100, reduction="sum")
        loss.backward()

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
        kind, dims = case.split(":")
        shape = [int(d) for d in dims.split(",")]
        ms = bn_case(shape, min_time) if kind == "bn" else ce_case(shape, min_time)
        print(f"case {case} {ms:.4f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
