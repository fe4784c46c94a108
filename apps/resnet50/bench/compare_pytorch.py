#!/usr/bin/python3
"""Tessera's resnet50 beside the same model in PyTorch CPU, in one run, as ratios.

  compare_pytorch.py --trainer build/release/apps/resnet50/resnet50 [--mode throughput|train]
                     [--depth 50 --width 0.125 --image-size 28 --batch-size 32 --epochs 3 ...]

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
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "common", "bench"))
import classifier_compare as cc  # noqa: E402 (needs the path above)
from cpu_steal import measured  # noqa: E402


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
    p.add_argument("--image-size", type=int, default=28,
                   help="side of the square images (full-size ResNet-50: --width 1 --stem imagenet "
                        "--image-size 224)")
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
                  f"--image-size={a.image_size}",
                  f"--batch-size={a.batch_size}", f"--learning-rate={a.learning_rate}",
                  f"--momentum={a.momentum}", f"--weight-decay={a.weight_decay}",
                  f"--warmup-epochs={a.warmup_epochs}"]
    twin = os.path.join(HERE, "resnet_torch.py")
    print(f"ResNet-{a.depth} width {a.width} stem {a.stem} at {a.image_size} px, "
          f"batch {a.batch_size}, mode {a.mode}")
    if a.mode == "throughput":
        medians, rounds = cc.interleaved(a, [
            ("Tessera", lambda: (cc.run_tessera(a, a.trainer, model_args), None)),
            ("PyTorch", lambda: cc.run_torch(a, twin, model_args))])
        tessera, t_steal, _ = medians["Tessera"]
        torch, p_steal, settings = medians["PyTorch"]
        print()
        print(f"PyTorch {settings}")
        pct = lambda v: f"{100 * v:.1f}" if v is not None else "-"
        print(f"{'':24}{'Tessera':>12}{'PyTorch':>12}")
        print(f"{'images/s (median)':24}{tessera['images_per_second']:12.1f}"
              f"{(torch or {}).get('images_per_second', 0):12.1f}")
        print(f"{'CPU stolen (%)':24}{pct(t_steal):>12}{pct(p_steal):>12}")
        print(f"Tessera / PyTorch: {cc.ratio_text(cc.ratios(rounds, 'Tessera', 'PyTorch'))}")
    else:
        tessera, tessera_steal = measured(cc.run_tessera, a, a.trainer, model_args)
        (torch, settings), torch_steal = measured(cc.run_torch, a, twin, model_args)
        print()
        print(f"PyTorch {settings}")
        cc.print_train_table(tessera, tessera_steal, torch, torch_steal)


if __name__ == "__main__":
    main()
