#!/usr/bin/python3
"""Tessera's efficientnet beside the same EfficientNet in PyTorch CPU, in one run, as ratios.

  compare_pytorch.py --trainer build/release/apps/efficientnet/efficientnet [--mode throughput|train]
                     [--variant b0 --image-size 32 --batch-size 32 ...]

throughput: B0 (depthwise) and B0-G16 (Graphcore's grouped variant) in both frameworks on
synthetic data, in --rounds rounds that rotate the order of the four runs; reports each median,
Tessera / PyTorch for both models and G16 / depthwise for both frameworks. train: the chosen
--group-size on Fashion-MNIST in both frameworks to --target-accuracy (time to target, final
accuracy, images/s). PyTorch runs with torch.set_num_threads(--threads) and
OMP_WAIT_POLICY=PASSIVE (its depthwise B0 is torchvision's efficientnet_b0); Tessera with
--host-threads; the CPU time stolen by the hypervisor during each run is printed beside it.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "common", "bench"))
import classifier_compare as cc  # noqa: E402 (needs the path above)
from cpu_steal import measured  # noqa: E402


def model_args(a, group_size):
    return [f"--variant={a.variant}", f"--group-size={group_size}", f"--image-size={a.image_size}",
            f"--stem={a.stem}", f"--drop-connect={a.drop_connect}",
            f"--batch-size={a.batch_size}", f"--learning-rate={a.learning_rate}",
            f"--momentum={a.momentum}", f"--weight-decay={a.weight_decay}",
            f"--warmup-epochs={a.warmup_epochs}"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trainer", required=True)
    p.add_argument("--mode", choices=["throughput", "train"], default="throughput")
    p.add_argument("--steps", type=int, default=30, help="throughput mode: steps per run")
    p.add_argument("--rounds", type=int, default=3,
                   help="throughput mode: rounds of the four runs (medians reported)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--variant", default="b0")
    p.add_argument("--group-size", type=int, default=1, help="train mode: the model trained")
    p.add_argument("--image-size", type=int, default=32)
    p.add_argument("--stem", default="small")
    p.add_argument("--drop-connect", type=float, default=0.2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--learning-rate", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--weight-decay", type=float, default=1e-5)
    p.add_argument("--warmup-epochs", type=float, default=0.2)
    p.add_argument("--target-accuracy", type=float, default=0.90)
    p.add_argument("--full-run", action="store_true",
                   help="train mode: run every epoch instead of stopping at the target")
    p.add_argument("--quiet", action="store_true", help="send the trainers' progress to stderr")
    a = p.parse_args()
    twin = os.path.join(HERE, "efficientnet_torch.py")
    print(f"EfficientNet-{a.variant.upper()} at {a.image_size} px, stem {a.stem}, batch "
          f"{a.batch_size}, mode {a.mode}")
    if a.mode == "train":
        args = model_args(a, a.group_size)
        tessera, tessera_steal = measured(cc.run_tessera, a, a.trainer, args)
        (torch, settings), torch_steal = measured(cc.run_torch, a, twin, args)
        print()
        print(f"PyTorch {settings}")
        cc.print_train_table(tessera, tessera_steal, torch, torch_steal)
        return

    dw, g16 = model_args(a, 1), model_args(a, 16)
    runs = [("Tessera B0", lambda: (cc.run_tessera(a, a.trainer, dw), None)),
            ("PyTorch B0", lambda: cc.run_torch(a, twin, dw)),
            ("Tessera G16", lambda: (cc.run_tessera(a, a.trainer, g16), None)),
            ("PyTorch G16", lambda: cc.run_torch(a, twin, g16))]
    medians, rounds = cc.interleaved(a, runs)
    print()
    for label in ("PyTorch B0", "PyTorch G16"):
        print(f"{label}: {medians[label][2]}")
    pct = lambda v: f"{100 * v:.1f}" if v is not None else "-"
    ips = lambda label: (medians[label][0] or {}).get("images_per_second", 0.0)
    print(f"{'images/s (median)':24}{'Tessera':>12}{'PyTorch':>12}{'CPU stolen (%)':>18}")
    for model in ("B0", "G16"):
        print(f"{model:24}{ips('Tessera ' + model):12.1f}{ips('PyTorch ' + model):12.1f}"
              f"{pct(medians['Tessera ' + model][1]):>9}{pct(medians['PyTorch ' + model][1]):>9}")
    print(f"Tessera / PyTorch, B0:  {cc.ratio_text(cc.ratios(rounds, 'Tessera B0', 'PyTorch B0'))}")
    print(f"Tessera / PyTorch, G16: "
          f"{cc.ratio_text(cc.ratios(rounds, 'Tessera G16', 'PyTorch G16'))}")
    print(f"G16 / depthwise, Tessera: "
          f"{cc.ratio_text(cc.ratios(rounds, 'Tessera G16', 'Tessera B0'))}")
    print(f"G16 / depthwise, PyTorch: "
          f"{cc.ratio_text(cc.ratios(rounds, 'PyTorch G16', 'PyTorch B0'))}")


if __name__ == "__main__":
    main()
