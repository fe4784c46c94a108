#!/usr/bin/python3
"""Tessera's resnet50 beside the same model in PyTorch CPU, in one run, as ratios.

  compare_pytorch.py --trainer build/release/apps/resnet50/resnet50 [--mode throughput|train]
                     [--depth 50 --width 0.125 --batch-size 32 --epochs 3 ...]

throughput: both train on synthetic data (Tessera: --synthetic-data for --steps steps; PyTorch:
--synthetic-steps) and report images/s, in --rounds rounds
that alternate which framework runs first (medians reported). train: both train on Fashion-MNIST with the same
hyper-parameters to --target-accuracy, reporting time-to-target, final accuracy and images/s;
each stops at its first validation that reaches the target (--full-run: every epoch).
The runs are sequential so they never share the cores. PyTorch runs with
torch.set_num_threads(--threads) and OMP_WAIT_POLICY=PASSIVE; Tessera with
--host-threads (--threads). On a virtual machine the hypervisor may take CPU time from either
run ("steal"); the share stolen during each run is printed beside the figures, since a ratio
between a run that lost a quarter of its CPU and one that lost none says little.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "common", "bench"))
from cpu_steal import measured  # noqa: E402 (needs the path above)


def run_tessera(a, model_args):
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "record.json")
        cmd = [a.trainer, *model_args, f"--host-threads={a.threads}", f"--record-file={record}"]
        if a.mode == "throughput":
            cmd += ["--synthetic-data", f"--train-subset={a.steps * a.batch_size}", "--epochs=1",
                    "--validation=false"]
        else:
            cmd += [f"--epochs={a.epochs}", f"--target-accuracy={a.target_accuracy}"]
            if not a.full_run:
                cmd += ["--stop-at-target"]
        print("tessera:", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True, stdout=sys.stderr if a.quiet else None)
        with open(record) as f:
            r = json.load(f)
    return {"images_per_second": r.get("throughputImagesPerSecond", 0.0),
            "time_to_target_seconds": r.get("timeToTargetSeconds"),
            "final_accuracy": r.get("finalAccuracy", 0.0)}


def run_torch(a, model_args):
    cmd = ["/usr/bin/python3", os.path.join(HERE, "resnet_torch.py"), *model_args,
           f"--threads={a.threads}"]
    if a.mode == "throughput":
        cmd += [f"--synthetic-steps={a.steps}"]
    else:
        cmd += [f"--epochs={a.epochs}", f"--target-accuracy={a.target_accuracy}"]
        if not a.full_run:
            cmd += ["--stop-at-target"]
    print("pytorch:", " ".join(cmd), flush=True)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    sys.stderr.write(out)
    settings = next((l for l in out.splitlines() if l.startswith("settings")), "")
    result = next((l for l in out.splitlines() if l.startswith("result")), None)
    if result is None:
        return None, out.strip()
    kv = dict(item.split("=", 1) for item in result.split()[1:])
    ttt = kv["time_to_target_seconds"]
    return {"images_per_second": float(kv["images_per_second"]),
            "time_to_target_seconds": None if ttt == "none" else float(ttt),
            "final_accuracy": float(kv["final_accuracy"])}, settings


def interleaved(a, model_args):
    """Throughput rounds alternating which framework goes first (T P, P T, …), so a stretch of
    heavy steal lands on both rather than one; reports each framework's median round, and the
    median of the per-round ratios."""
    rounds = []
    for r in range(a.rounds):
        order = ["tessera", "torch"] if r % 2 == 0 else ["torch", "tessera"]
        got = {}
        for name in order:
            if name == "tessera":
                got[name] = measured(run_tessera, a, model_args)
            else:
                (result, settings), steal = measured(run_torch, a, model_args)
                got[name] = (result, steal)
                got["settings"] = settings
        rounds.append(got)
        t, p_ = got["tessera"][0], got["torch"][0]
        print(f"round {r + 1}: Tessera {t['images_per_second']:.1f} img/s, PyTorch "
              f"{p_['images_per_second'] if p_ else float('nan'):.1f} img/s", flush=True)

    def median_of(name):
        ranked = sorted(rounds, key=lambda g: (g[name][0] or {}).get("images_per_second", 0))
        return ranked[len(ranked) // 2][name]

    (tessera, t_steal), (torch, p_steal) = median_of("tessera"), median_of("torch")
    ratios = sorted(g["tessera"][0]["images_per_second"] / g["torch"][0]["images_per_second"]
                    for g in rounds if g["torch"][0])
    if len(ratios) > 1:
        print(f"per-round ratios: {', '.join(f'{r:.2f}x' for r in ratios)}; median "
              f"{ratios[len(ratios) // 2]:.2f}x")
    return tessera, t_steal, torch, p_steal, rounds[-1]["settings"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trainer", required=True)
    p.add_argument("--mode", choices=["throughput", "train"], default="throughput")
    p.add_argument("--steps", type=int, default=60, help="throughput mode: steps per framework")
    p.add_argument("--rounds", type=int, default=3,
                   help="throughput mode: alternating rounds per framework (medians reported)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--depth", type=int, default=50)
    p.add_argument("--width", type=float, default=0.125)
    p.add_argument("--stem", default="small")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--learning-rate", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--weight-decay", type=float, default=5e-5)
    p.add_argument("--warmup-epochs", type=float, default=0.2)
    p.add_argument("--target-accuracy", type=float, default=0.90)
    p.add_argument("--full-run", action="store_true",
                   help="train mode: run every epoch instead of stopping at the target")
    p.add_argument("--quiet", action="store_true", help="send the trainers' progress to stderr")
    a = p.parse_args()
    model_args = [f"--depth={a.depth}", f"--width={a.width}", f"--stem={a.stem}",
                  f"--batch-size={a.batch_size}", f"--learning-rate={a.learning_rate}",
                  f"--momentum={a.momentum}", f"--weight-decay={a.weight_decay}",
                  f"--warmup-epochs={a.warmup_epochs}"]
    if a.mode == "throughput":
        tessera, tessera_steal, torch, torch_steal, settings = interleaved(a, model_args)
    else:
        tessera, tessera_steal = measured(run_tessera, a, model_args)
        (torch, settings), torch_steal = measured(run_torch, a, model_args)
    print()
    print(f"ResNet-{a.depth} width {a.width} stem {a.stem}, batch {a.batch_size}, mode {a.mode}")
    print(f"PyTorch {settings}")
    if torch is None:
        print(f"PyTorch unavailable: {settings}")
        torch = {}
    print(f"{'':24}{'Tessera':>12}{'PyTorch':>12}{'ratio':>10}")
    t_ips, p_ips = tessera["images_per_second"], torch.get("images_per_second")
    ratio = f"{t_ips / p_ips:.2f}x" if p_ips else "-"
    print(f"{'images/s':24}{t_ips:12.1f}{(p_ips or 0):12.1f}{ratio:>10}")
    if a.mode == "train":
        t_t, p_t = tessera["time_to_target_seconds"], torch.get("time_to_target_seconds")
        fmt = lambda v: f"{v:.1f}" if v is not None else "not reached"
        ratio = f"{t_t / p_t:.2f}x" if (t_t and p_t) else "-"
        print(f"{'time to target (s)':24}{fmt(t_t):>12}{fmt(p_t):>12}{ratio:>10}")
        print(f"{'final accuracy':24}{tessera['final_accuracy']:12.4f}"
              f"{torch.get('final_accuracy', 0):12.4f}")
    pct = lambda v: f"{100 * v:.1f}" if v is not None else "-"
    print(f"{'CPU stolen (%)':24}{pct(tessera_steal):>12}{pct(torch_steal):>12}")
    print("(images/s ratio: Tessera / PyTorch, higher is better; time ratio: Tessera / PyTorch, "
          "lower is better)")


if __name__ == "__main__":
    main()
