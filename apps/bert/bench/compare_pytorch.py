#!/usr/bin/python3
"""Tessera's bert beside the same BERT in PyTorch CPU (bert_torch.py), on the same data and weights.

  compare_pytorch.py --trainer build/release/apps/bert/bert [--mode throughput|train]
                     [--config mini --sequence-length 128 --batch-size 16 --steps 200 ...]

The Tessera trainer runs first with --export-run, which writes its step-0 weights (initial.ckpt)
and the exact training and held-out batches (batches.pb); the twin then starts from those weights
and trains on those batches in the same order with the same optimiser, schedule and dropout rates.

throughput: sequences per second of the training steps only, in --rounds rounds alternating which
framework runs first (medians reported; the export is made once, by the first Tessera run).
train: held-out masked-LM accuracy of both after the same --steps, their difference (the goal is
|Δ| <= --max-accuracy-gap, 0.02), time to --target-mlm-accuracy, and both accuracy curves side by
side. Dropout masks come from different generators, so with dropout the runs agree only
statistically; --dropout 0 makes them comparable step by step.

The runs are sequential so they never share the cores. PyTorch runs with
torch.set_num_threads(--threads) and OMP_WAIT_POLICY=PASSIVE; Tessera with --host-threads
(--threads). On a virtual machine the hypervisor may take CPU time from either run ("steal"); the
share stolen during each run is printed beside the figures.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "common", "bench"))
from cpu_steal import measured  # noqa: E402 (needs the path above)
TESSERA_EVAL = re.compile(r"^eval step (\d+): held-out loss ([-\d.naninf]+), MLM acc ([\d.]+), "
                          r"NSP acc ([\d.]+)")
TESSERA_TRAINED = re.compile(r"^trained \d+ steps in [\d.]+ s on the device \(([\d.]+) seq/s\)")


def run_streaming(cmd, quiet, env=None):
    """Runs `cmd`, echoing its output as it comes (to stderr with --quiet); returns the lines."""
    lines = []
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, bufsize=1) as proc:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            (sys.stderr if quiet else sys.stdout).write(line)
            (sys.stderr if quiet else sys.stdout).flush()
    if proc.returncode != 0:
        raise SystemExit(f"compare_pytorch: {cmd[0]} failed (exit status {proc.returncode})")
    return lines


def shared_args(a):
    """Training flags both trainers take with the same meaning."""
    args = [f"--steps={a.steps}", f"--steps-per-run={a.steps_per_run}",
            f"--optimiser={a.optimiser}", f"--learning-rate={a.learning_rate}",
            f"--warmup={a.warmup}", f"--weight-decay={a.weight_decay}",
            f"--hidden-dropout={a.hidden_dropout}", f"--attention-dropout={a.attention_dropout}"]
    if a.mode == "throughput":  # evaluation is not timed; keep it short
        args += ["--evaluate-every=0", "--evaluation-batches=1"]
    else:
        args += [f"--evaluate-every={a.evaluate_every}",
                 f"--evaluation-batches={a.evaluation_batches}"]
        if a.target_mlm_accuracy is not None:
            args += [f"--target-mlm-accuracy={a.target_mlm_accuracy}"]
    return args


def run_tessera(a, run_dir):
    """Trains with the Tessera trainer; exports the run into `run_dir` unless it is there."""
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "record.json")
        cmd = [a.trainer, f"--config={a.config}", f"--sequence-length={a.sequence_length}",
               f"--batch-size={a.batch_size}", f"--vocab-size={a.vocab_size}", f"--seed={a.seed}",
               f"--host-threads={a.threads}", *shared_args(a), f"--record-file={record}"]
        for flag in ("layers", "hidden", "heads", "ffn", "max_predictions"):
            if getattr(a, flag):
                cmd.append(f"--{flag.replace('_', '-')}={getattr(a, flag)}")
        if a.packing:
            cmd.append("--packing")
        if not os.path.exists(os.path.join(run_dir, "batches.pb")):
            cmd.append(f"--export-run={run_dir}")
        print("tessera:", " ".join(cmd), flush=True)
        lines = run_streaming(cmd, a.quiet)
        r = {}
        if os.path.exists(record):
            with open(record) as f:
                r = json.load(f)
    metrics = r.get("metrics", {})
    curve = [(int(m[1]), float(m[3]), float(m[4]))
             for m in (TESSERA_EVAL.match(l) for l in lines) if m]
    trained = [float(m[1]) for m in (TESSERA_TRAINED.match(l) for l in lines) if m]
    return {"sequences_per_second": metrics.get("sequences_per_second",
                                                trained[-1] if trained else 0.0),
            "time_to_target_seconds": r.get("timeToTargetSeconds"),
            "final_mlm_accuracy": metrics.get("held_out_mlm_accuracy", r.get(
                "finalAccuracy", curve[-1][1] if curve else 0.0)),
            "final_nsp_accuracy": metrics.get("held_out_nsp_accuracy",
                                              curve[-1][2] if curve else 0.0),
            "curve": curve}


def run_torch(a, run_dir):
    cmd = ["/usr/bin/python3", os.path.join(HERE, "bert_torch.py"),
           f"--checkpoint={os.path.join(run_dir, 'initial.ckpt')}",
           f"--batches={os.path.join(run_dir, 'batches.pb')}", *shared_args(a),
           f"--threads={a.threads}", f"--seed={a.seed}"]
    print("pytorch:", " ".join(cmd), flush=True)
    lines = run_streaming(cmd, True, env=dict(os.environ, OMP_WAIT_POLICY="PASSIVE"))
    settings = next((l for l in lines if l.startswith("settings")), "")
    result = next((l for l in lines if l.startswith("result")), None)
    if result is None:
        return None, "\n".join(lines).strip()
    kv = dict(item.split("=", 1) for item in result.split()[1:])
    ttt = kv["time_to_target_seconds"]
    curve = []
    for l in lines:
        if l.startswith("eval "):
            e = dict(item.split("=", 1) for item in l.split()[1:])
            curve.append((int(e["step"]), float(e["mlm_accuracy"]), float(e["nsp_accuracy"])))
    return {"sequences_per_second": float(kv["sequences_per_second"]),
            "time_to_target_seconds": None if ttt == "none" else float(ttt),
            "final_mlm_accuracy": float(kv["final_mlm_accuracy"]),
            "final_nsp_accuracy": float(kv["final_nsp_accuracy"]),
            "curve": curve}, settings


def interleaved(a, run_dir):
    """Rounds alternating which framework goes first (T P, P T, …), so a stretch of heavy steal
    lands on both rather than one; each framework's median round and the median per-round ratio."""
    rounds, settings = [], ""
    for r in range(a.rounds):
        order = ["tessera", "torch"] if r % 2 == 0 else ["torch", "tessera"]
        got = {}
        for name in order:
            if name == "tessera":
                got[name] = measured(run_tessera, a, run_dir)
            else:
                (result, settings), steal = measured(run_torch, a, run_dir)
                got[name] = (result, steal)
        rounds.append(got)
        t, p_ = got["tessera"][0], got["torch"][0]
        print(f"round {r + 1}: Tessera {t['sequences_per_second']:.2f} seq/s, PyTorch "
              f"{p_['sequences_per_second'] if p_ else float('nan'):.2f} seq/s", flush=True)

    def median_of(name):
        ranked = sorted(rounds, key=lambda g: (g[name][0] or {}).get("sequences_per_second", 0))
        return ranked[len(ranked) // 2][name]

    ratios = sorted(g["tessera"][0]["sequences_per_second"] / g["torch"][0]["sequences_per_second"]
                    for g in rounds if g["torch"][0] and g["torch"][0]["sequences_per_second"])
    if len(ratios) > 1:
        print(f"per-round ratios: {', '.join(f'{r:.2f}x' for r in ratios)}; median "
              f"{ratios[len(ratios) // 2]:.2f}x")
    return median_of("tessera"), median_of("torch"), settings


def print_report(a, tessera, t_steal, torch, p_steal, settings):
    print()
    shape = "".join(f" {f}={getattr(a, f)}" for f in ("layers", "hidden", "heads", "ffn")
                    if getattr(a, f))
    print(f"BERT {a.config}{shape}, sequence {a.sequence_length}, batch {a.batch_size}, packing "
          f"{'on' if a.packing else 'off'}, {a.optimiser} lr {a.learning_rate} warm-up {a.warmup} "
          f"wd {a.weight_decay}, dropout {a.hidden_dropout}/{a.attention_dropout}, {a.steps} "
          f"steps ({a.steps_per_run} per run), mode {a.mode}")
    print(f"Tessera --host-threads={a.threads}; PyTorch {settings}")
    if torch is None:
        print(f"PyTorch unavailable: {settings}")
        torch = {}
    print(f"{'':30}{'Tessera':>12}{'PyTorch':>12}{'ratio':>10}")
    t_sps, p_sps = tessera["sequences_per_second"], torch.get("sequences_per_second")
    ratio = f"{t_sps / p_sps:.2f}x" if p_sps else "-"
    print(f"{'sequences/s':30}{t_sps:12.2f}{(p_sps or 0):12.2f}{ratio:>10}")
    gap_ok = True
    if a.mode == "train":
        t_acc, p_acc = tessera["final_mlm_accuracy"], torch.get("final_mlm_accuracy")
        delta = t_acc - p_acc if p_acc is not None else None
        gap = f"Δ {delta:+.4f}" if delta is not None else "-"
        print(f"{f'held-out MLM acc @ {a.steps}':30}{t_acc:12.4f}{(p_acc or 0):12.4f}{gap:>12}")
        print(f"{'held-out NSP acc':30}{tessera['final_nsp_accuracy']:12.4f}"
              f"{torch.get('final_nsp_accuracy', 0):12.4f}")
        if a.target_mlm_accuracy is not None:
            t_t, p_t = tessera["time_to_target_seconds"], torch.get("time_to_target_seconds")
            fmt = lambda v: f"{v:.1f}" if v is not None else "not reached"  # noqa: E731
            ratio = f"{t_t / p_t:.2f}x" if (t_t and p_t) else "-"
            print(f"{f'time to MLM acc {a.target_mlm_accuracy} (s)':30}{fmt(t_t):>12}"
                  f"{fmt(p_t):>12}{ratio:>10}")
    pct = lambda v: f"{100 * v:.1f}" if v is not None else "-"  # noqa: E731
    print(f"{'CPU stolen (%)':30}{pct(t_steal):>12}{pct(p_steal):>12}")
    print("(sequences/s ratio: Tessera / PyTorch, higher is better; time ratio: Tessera / PyTorch, "
          "lower is better; Δ: Tessera − PyTorch)")
    if a.mode == "train":
        p_curve = {s: (m, n) for s, m, n in torch.get("curve", [])}
        print(f"\nheld-out accuracy curves\n{'step':>8}{'MLM Tessera':>14}{'MLM PyTorch':>14}"
              f"{'Δ':>9}{'NSP Tessera':>14}{'NSP PyTorch':>14}")
        for step, m, n in tessera["curve"]:
            pm, pn = p_curve.get(step, (None, None))
            d = f"{m - pm:+.4f}" if pm is not None else "-"
            pmf = f"{pm:.4f}" if pm is not None else "-"
            pnf = f"{pn:.4f}" if pn is not None else "-"
            print(f"{step:8d}{m:14.4f}{pmf:>14}{d:>9}{n:14.4f}{pnf:>14}")
        if delta is not None:
            gap_ok = abs(delta) <= a.max_accuracy_gap
            print(f"\nfinal MLM accuracy gap |Δ| = {abs(delta):.4f} "
                  f"{'<=' if gap_ok else '>'} {a.max_accuracy_gap}: "
                  f"{'within' if gap_ok else 'OUTSIDE'} the goal")
    return gap_ok


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trainer", required=True, help="the Tessera bert binary")
    p.add_argument("--mode", choices=["throughput", "train"], default="throughput")
    p.add_argument("--rounds", type=int, default=3,
                   help="throughput mode: alternating rounds per framework (medians reported)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--config", default="mini", choices=["tiny", "mini", "base", "large"])
    for flag in ("layers", "hidden", "heads", "ffn", "max-predictions"):
        p.add_argument(f"--{flag}", type=int, default=0, help="0: the configuration's")
    p.add_argument("--sequence-length", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--steps-per-run", type=int, default=4)
    p.add_argument("--optimiser", choices=["lamb", "adamw", "sgd"], default="adamw")
    p.add_argument("--learning-rate", type=float, default=2e-3)
    p.add_argument("--warmup", type=float, default=0.1)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--packing", action="store_true")
    p.add_argument("--vocab-size", type=int, default=8192)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--dropout", type=float, default=None, help="both dropout rates")
    p.add_argument("--hidden-dropout", type=float, default=0.1)
    p.add_argument("--attention-dropout", type=float, default=0.1)
    p.add_argument("--evaluate-every", type=int, default=20)
    p.add_argument("--evaluation-batches", type=int, default=8)
    p.add_argument("--target-mlm-accuracy", type=float, default=None)
    p.add_argument("--max-accuracy-gap", type=float, default=0.02,
                   help="train mode: the |Δ| of final held-out MLM accuracy that passes")
    p.add_argument("--strict", action="store_true",
                   help="train mode: exit with status 1 when the gap is over --max-accuracy-gap")
    p.add_argument("--keep-run", default=None,
                   help="export the run into this directory and keep it (default: a temporary one)")
    p.add_argument("--quiet", action="store_true", help="send the trainers' progress to stderr")
    a = p.parse_args()
    if a.dropout is not None:
        a.hidden_dropout = a.attention_dropout = a.dropout
    run_dir = a.keep_run or tempfile.mkdtemp(prefix="bert-compare-")
    os.makedirs(run_dir, exist_ok=True)
    for stale in ("initial.ckpt", "batches.pb"):  # always export this run's settings
        if os.path.exists(os.path.join(run_dir, stale)):
            os.remove(os.path.join(run_dir, stale))
    try:
        if a.mode == "throughput":
            (tessera, t_steal), (torch, p_steal), settings = interleaved(a, run_dir)
        else:
            tessera, t_steal = measured(run_tessera, a, run_dir)
            (torch, settings), p_steal = measured(run_torch, a, run_dir)
        ok = print_report(a, tessera, t_steal, torch, p_steal, settings)
    finally:
        if not a.keep_run:
            shutil.rmtree(run_dir, ignore_errors=True)
    sys.exit(1 if (a.strict and not ok) else 0)


if __name__ == "__main__":
    main()
