#!/usr/bin/python3
"""Trainer start-up with a cold and a warm executable cache, in alternating rounds.

  startup.py --trainer build/release/apps/resnet50/resnet50 [--rounds 3] [--width 0.125]
             [--baseline-trainer OTHER_BUILD/apps/resnet50/resnet50]

Each round runs the trainer for one step twice against a fresh cache directory: the first run
compiles (cold) and stores the executable, the second loads it (warm). Prints per run the graph
build time, the compile (or cache load) time including `Engine::load`, and the whole wall time
of the process, then the medians and warm/cold ratios. With --baseline-trainer an earlier build
(which has no cache) runs in the same rounds, for "cold compile not slower".
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

GRAPH = re.compile(r"graph ([\d.]+) s")
COMPILED = re.compile(r"^(compiled|loaded from the executable cache) in ([\d.]+) s", re.M)
OLD_COMPILED = re.compile(r"compiled in ([\d.]+) s")


def run(trainer, args, cache_dir):
    env = dict(os.environ, TESSERA_EXECUTABLE_CACHE=cache_dir)
    start = time.monotonic()
    out = subprocess.run([trainer] + args, env=env, capture_output=True, text=True, check=True)
    wall = time.monotonic() - start
    text = out.stdout + out.stderr
    graph = float(GRAPH.search(text).group(1))
    m = COMPILED.search(text)
    if m:
        how, compile_s = m.group(1), float(m.group(2))
    else:  # a build from before the cache: "graph X s, compiled in Y s"
        how, compile_s = "compiled", float(OLD_COMPILED.search(text).group(1))
    return {"how": how, "graph": graph, "compile": compile_s, "wall": wall}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trainer", required=True)
    p.add_argument("--baseline-trainer")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--width", default="0.125")
    p.add_argument("--image-size", default="32")
    p.add_argument("--host-threads", default="2")
    p.add_argument("--batch-size", default="32")
    p.add_argument("--trainer-arg", action="append", default=[],
                   help="passed to the trainer as is (e.g. --trainer-arg=--ipus=16)")
    a = p.parse_args()
    args = [f"--width={a.width}", f"--image-size={a.image_size}", f"--host-threads={a.host_threads}",
            "--synthetic-data", f"--train-subset={a.batch_size}", f"--batch-size={a.batch_size}",
            "--epochs=1", "--validation=false"] + a.trainer_arg
    print(f"trainer: {a.trainer} {' '.join(args)}")
    runs = {"cold": [], "warm": [], "baseline": []}
    for r in range(a.rounds):
        cache = tempfile.mkdtemp(prefix="tessera-startup-")
        try:
            order = ["baseline", "cold", "warm"] if r % 2 else ["cold", "warm", "baseline"]
            for kind in order:
                if kind == "baseline":
                    if not a.baseline_trainer:
                        continue
                    res = run(a.baseline_trainer, args, tempfile.mkdtemp(prefix="tessera-base-"))
                else:
                    res = run(a.trainer, args, cache)
                    expected = "compiled" if kind == "cold" else "loaded from the executable cache"
                    if res["how"] != expected:
                        sys.exit(f"round {r + 1}: the {kind} run {res['how']} (expected {expected})")
                runs[kind].append(res)
                print(f"round {r + 1} {kind:8s}: graph {res['graph']:6.2f} s, {res['how']} in "
                      f"{res['compile']:6.2f} s, process {res['wall']:6.2f} s", flush=True)
        finally:
            shutil.rmtree(cache, ignore_errors=True)

    def med(kind, key):
        return statistics.median(x[key] for x in runs[kind])

    print("\nmedians          graph   compile/load   process")
    for kind in ("cold", "warm", "baseline"):
        if runs[kind]:
            print(f"{kind:12s} {med(kind, 'graph'):8.2f} {med(kind, 'compile'):12.2f} "
                  f"{med(kind, 'wall'):9.2f}")
    print(f"cold / warm, compile or load: {med('cold', 'compile') / med('warm', 'compile'):.2f}x")
    print(f"cold / warm, graph + compile: "
          f"{(med('cold', 'graph') + med('cold', 'compile')) / (med('warm', 'graph') + med('warm', 'compile')):.2f}x")
    print(f"cold / warm, whole process:   {med('cold', 'wall') / med('warm', 'wall'):.2f}x")
    if runs["baseline"]:
        print(f"cold compile / baseline compile: "
              f"{med('cold', 'compile') / med('baseline', 'compile'):.2f}x")


if __name__ == "__main__":
    main()
