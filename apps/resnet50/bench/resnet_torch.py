#!/usr/bin/python3
"""The PyTorch CPU peer of apps/resnet50: the same ResNet v1.5 (depth, width multiplier, small or
ImageNet stem, 1-channel input, 10 classes), the same data order and hyper-parameters (SGD with
momentum and weight decay on conv/dense weights, linear warm-up + cosine schedule per step,
Fashion-MNIST normalised with the same constants), timed the same way (training steps only).

Prints one `settings` line and one `result` line of key=value pairs:
  images_per_second, time_to_target_seconds (or "none"), final_accuracy, final_loss, steps.
Runs with torch.set_num_threads(THREADS) (default 2) and OMP_WAIT_POLICY=PASSIVE, set before torch
is imported.
"""
import argparse
import gzip
import math
import os
import struct
import sys
import time

os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

try:
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as e:
    print(f"unavailable: python3-torch cannot be imported ({e})")
    sys.exit(0)

MEAN, STD = 0.2860, 0.3530
DATA_DIR = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack(">I", data[:4])
    dims = magic & 0xFF
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(split, data_dir, subset):
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(data_dir, f"{prefix}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte.gz"))
    if subset:
        images, labels = images[:subset], labels[:subset]
    x = (torch.from_numpy(images.astype(np.float32)) / 255.0 - MEAN) / STD
    return x.unsqueeze(1), torch.from_numpy(labels.astype(np.int64))


def scaled(c, width):
    return max(4, int(round(c * width)))


def conv_bn(cin, cout, k, stride, relu):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, bias=False), nn.BatchNorm2d(cout)]
    if relu:
        layers.append(nn.ReLU(inplace=True))
    return nn.Sequential(*layers)


class Block(nn.Module):
    def __init__(self, cin, width, cout, stride, bottleneck):
        super().__init__()
        if bottleneck:
            self.main = nn.Sequential(conv_bn(cin, width, 1, 1, True),
                                      conv_bn(width, width, 3, stride, True),
                                      conv_bn(width, cout, 1, 1, False))
        else:
            self.main = nn.Sequential(conv_bn(cin, cout, 3, stride, True),
                                      conv_bn(cout, cout, 3, 1, False))
        self.shortcut = conv_bn(cin, cout, 1, stride, False) if (stride != 1 or cin != cout) else None

    def forward(self, x):
        s = self.shortcut(x) if self.shortcut is not None else x
        return F.relu(self.main(x) + s)


def resnet(depth, width, stem, classes=10):
    blocks = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3]}[depth]
    bottleneck = depth >= 50
    expansion = 4 if bottleneck else 1
    stem_out = scaled(64, width)
    layers = [conv_bn(1, stem_out, 3, 1, True)] if stem == "small" else \
        [conv_bn(1, stem_out, 7, 2, True), nn.MaxPool2d(3, 2, 1)]
    c = stem_out
    for s, n in enumerate(blocks):
        w = scaled([64, 128, 256, 512][s], width)
        for b in range(n):
            layers.append(Block(c, w, w * expansion, 2 if (s > 0 and b == 0) else 1, bottleneck))
            c = w * expansion
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, classes)]
    net = nn.Sequential(*layers)
    for m in net.modules():  # He normal for convolutions, as the Tessera trainer initialises
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_in", nonlinearity="relu")
        elif isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)
            nn.init.zeros_(m.bias)
    return net


def lr_at(epoch, base, total, warmup):
    if warmup > 0 and epoch < warmup:
        return base * max(epoch / warmup, 1e-3)
    return base * 0.5 * (1 + math.cos(math.pi * (epoch - warmup) / (total - warmup)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depth", type=int, default=50)
    p.add_argument("--width", type=float, default=0.25)
    p.add_argument("--stem", default="small", choices=["small", "imagenet"])
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--learning-rate", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--weight-decay", type=float, default=5e-5)
    p.add_argument("--warmup-epochs", type=float, default=0.2)
    p.add_argument("--target-accuracy", type=float, default=0.90)
    p.add_argument("--stop-at-target", action="store_true",
                   help="end the run at the first validation that reaches --target-accuracy")
    p.add_argument("--train-subset", type=int, default=0)
    p.add_argument("--synthetic-steps", type=int, default=0,
                   help="throughput only: this many steps on random data, no validation")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--dataset-dir", default=os.environ.get("TESSERA_FASHION_MNIST_DIR", DATA_DIR))
    a = p.parse_args()

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    print(f"settings torch={torch.__version__} threads={torch.get_num_threads()} "
          f"OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']} depth={a.depth} width={a.width} "
          f"stem={a.stem} batch={a.batch_size} epochs={a.epochs} lr={a.learning_rate}", flush=True)
    net = resnet(a.depth, a.width, a.stem)
    decay = [p_ for n, p_ in net.named_parameters() if p_.dim() > 1]
    no_decay = [p_ for n, p_ in net.named_parameters() if p_.dim() <= 1]
    opt = torch.optim.SGD([{"params": decay, "weight_decay": a.weight_decay},
                           {"params": no_decay, "weight_decay": 0.0}],
                          lr=a.learning_rate, momentum=a.momentum)

    def step(x, y):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    if a.synthetic_steps:
        g = torch.Generator().manual_seed(a.seed)
        x = torch.randn(a.batch_size, 1, 28, 28, generator=g)
        y = torch.randint(0, 10, (a.batch_size,), generator=g)
        net.train()
        step(x, y)  # warm-up (allocations, oneDNN primitive creation)
        start = time.perf_counter()
        for _ in range(a.synthetic_steps):
            step(x, y)
        seconds = time.perf_counter() - start
        print(f"result images_per_second={a.synthetic_steps * a.batch_size / seconds:.2f} "
              f"time_to_target_seconds=none final_accuracy=0 final_loss=0 "
              f"steps={a.synthetic_steps}", flush=True)
        return

    xtr, ytr = load("train", a.dataset_dir, a.train_subset)
    xte, yte = load("test", a.dataset_dir, 0)
    per_epoch = len(xtr) // a.batch_size
    gen = torch.Generator().manual_seed(a.seed)
    step_seconds, images, steps = 0.0, 0, 0
    time_to_target, acc, last_loss = None, 0.0, 0.0
    start = time.perf_counter()
    for epoch in range(a.epochs):
        net.train()
        order = torch.randperm(len(xtr), generator=gen)
        losses = []
        for i in range(per_epoch):
            for group in opt.param_groups:
                group["lr"] = lr_at(steps / per_epoch, a.learning_rate, a.epochs, a.warmup_epochs)
            idx = order[i * a.batch_size:(i + 1) * a.batch_size]
            t0 = time.perf_counter()
            losses.append(step(xtr[idx], ytr[idx]))
            step_seconds += time.perf_counter() - t0
            images += a.batch_size
            steps += 1
        last_loss = sum(losses) / len(losses)
        net.eval()
        correct = 0
        with torch.no_grad():
            for i in range(0, len(xte), 500):
                correct += (net(xte[i:i + 500]).argmax(1) == yte[i:i + 500]).sum().item()
        acc = correct / len(xte)
        print(f"epoch {epoch + 1}: loss {last_loss:.4f} validation accuracy {acc:.4f} "
              f"({images / step_seconds:.1f} img/s)", flush=True)
        if time_to_target is None and acc >= a.target_accuracy:
            time_to_target = time.perf_counter() - start
            if a.stop_at_target:
                break
    ttt = f"{time_to_target:.2f}" if time_to_target is not None else "none"
    print(f"result images_per_second={images / step_seconds:.2f} time_to_target_seconds={ttt} "
          f"final_accuracy={acc:.4f} final_loss={last_loss:.4f} steps={steps}", flush=True)


if __name__ == "__main__":
    main()
