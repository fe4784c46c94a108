"""Runs an image-classifier trainer of Tessera and its PyTorch twin one after the other and
reports them side by side, for the apps' compare_pytorch.py scripts.

A Tessera trainer writes its figures to a benchmark record (--record-file); a PyTorch twin prints
one `settings` line and one `result` line of key=value pairs (images_per_second,
time_to_target_seconds or "none", final_accuracy). Throughput is measured in rounds that
alternate which framework goes first (T P, P T, …), so a stretch of CPU steal on a virtual
machine lands on both rather than one; the share of CPU stolen during each run is reported
beside the figures.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_steal import measured  # noqa: E402 (needs the path above)


def run_tessera(a, trainer, model_args):
    """Runs Tessera's `trainer` with `model_args`; a.mode, a.threads, a.steps, a.batch_size,
    a.epochs, a.target_accuracy, a.full_run and a.quiet say how."""
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "record.json")
        cmd = [trainer, *model_args, f"--host-threads={a.threads}", f"--record-file={record}"]
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


def run_torch(a, script, model_args):
    """Runs the PyTorch twin `script`; returns (figures or None, its settings line)."""
    cmd = ["/usr/bin/python3", script, *model_args, f"--threads={a.threads}"]
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


def interleaved(a, runs):
    """Throughput in a.rounds rounds over `runs`, a list of (label, function) whose function
    returns (figures, settings-or-None); the order rotates every round. Returns, per label, the
    median round's (figures, steal) and the rounds themselves."""
    rounds = []
    for r in range(a.rounds):
        shift = r % len(runs)
        order = runs[shift:] + runs[:shift]
        got = {}
        for label, fn in order:
            (result, settings), steal = measured(fn)
            got[label] = (result, steal, settings)
        rounds.append(got)
        print(f"round {r + 1}: " + ", ".join(
            f"{label} {got[label][0]['images_per_second']:.1f} img/s" if got[label][0]
            else f"{label} unavailable" for label, _ in runs), flush=True)
    medians = {}
    for label, _ in runs:
        ranked = sorted(rounds, key=lambda g: (g[label][0] or {}).get("images_per_second", 0))
        medians[label] = ranked[len(ranked) // 2][label]
    return medians, rounds


def ratios(rounds, top, bottom):
    """Per-round images/s ratios top / bottom (rounds where both ran), sorted."""
    return sorted(g[top][0]["images_per_second"] / g[bottom][0]["images_per_second"]
                  for g in rounds if g[top][0] and g[bottom][0])


def ratio_text(values):
    if not values:
        return "-"
    return f"{values[len(values) // 2]:.2f}x (rounds: {', '.join(f'{v:.2f}x' for v in values)})"


def print_train_table(tessera, tessera_steal, torch, torch_steal):
    """The train mode's table: images/s, time to target and final accuracy side by side."""
    torch = torch or {}
    print(f"{'':24}{'Tessera':>12}{'PyTorch':>12}{'ratio':>10}")
    t_ips, p_ips = tessera["images_per_second"], torch.get("images_per_second")
    print(f"{'images/s':24}{t_ips:12.1f}{(p_ips or 0):12.1f}"
          f"{(f'{t_ips / p_ips:.2f}x' if p_ips else '-'):>10}")
    t_t, p_t = tessera["time_to_target_seconds"], torch.get("time_to_target_seconds")
    fmt = lambda v: f"{v:.1f}" if v is not None else "not reached"
    print(f"{'time to target (s)':24}{fmt(t_t):>12}{fmt(p_t):>12}"
          f"{(f'{t_t / p_t:.2f}x' if (t_t and p_t) else '-'):>10}")
    print(f"{'final accuracy':24}{tessera['final_accuracy']:12.4f}"
          f"{torch.get('final_accuracy', 0):12.4f}")
    pct = lambda v: f"{100 * v:.1f}" if v is not None else "-"
    print(f"{'CPU stolen (%)':24}{pct(tessera_steal):>12}{pct(torch_steal):>12}")
    print("(images/s ratio: Tessera / PyTorch, higher is better; time ratio: Tessera / PyTorch, "
          "lower is better)")
