"""The training half of the apps' PyTorch twins (resnet_torch.py, efficientnet_torch.py): the
Fashion-MNIST reader, the schedule (linear warm-up then cosine, per step), SGD with momentum and
weight decay on weight tensors only, synthetic-data throughput and the run's `settings` and
`result` lines — what the Tessera trainers do, so only the model differs between twins.

Import after setting OMP_WAIT_POLICY (classifier_twin_env() does it) and before importing torch
elsewhere.
"""
import gzip
import math
import os
import struct
import time

import numpy as np
import torch
import torch.nn.functional as F

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


def load(split, data_dir, subset, image_size=28):
    """Normalised images [N][1][S][S] (28×28 centred on background when S > 28) and labels."""
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(data_dir, f"{prefix}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte.gz"))
    if subset:
        images, labels = images[:subset], labels[:subset]
    x = (torch.from_numpy(images.astype(np.float32)) / 255.0 - MEAN) / STD
    if image_size > 28:
        pad = image_size - 28
        x = F.pad(x, (pad // 2, pad - pad // 2, pad // 2, pad - pad // 2), value=-MEAN / STD)
    return x.unsqueeze(1), torch.from_numpy(labels.astype(np.int64))


def lr_at(epoch, base, total, warmup):
    if warmup > 0 and epoch < warmup:
        return base * max(epoch / warmup, 1e-3)
    return base * 0.5 * (1 + math.cos(math.pi * (epoch - warmup) / (total - warmup)))


def add_training_arguments(p, weight_decay):
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--learning-rate", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--weight-decay", type=float, default=weight_decay)
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


def start(a):
    """Threads and seed, before the model is built."""
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)


def settings_line(a, model_settings):
    return (f"settings torch={torch.__version__} threads={torch.get_num_threads()} "
            f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')} {model_settings} "
            f"batch={a.batch_size} epochs={a.epochs} lr={a.learning_rate}")


def train(net, a, image_size=28):
    """Trains `net` as the Tessera trainer does and prints the `result` line."""
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
        x = torch.randn(a.batch_size, 1, image_size, image_size, generator=g)
        y = torch.randint(0, 10, (a.batch_size,), generator=g)
        net.train()
        step(x, y)  # warm-up (allocations, oneDNN primitive creation)
        begin = time.perf_counter()
        for _ in range(a.synthetic_steps):
            step(x, y)
        seconds = time.perf_counter() - begin
        print(f"result images_per_second={a.synthetic_steps * a.batch_size / seconds:.2f} "
              f"time_to_target_seconds=none final_accuracy=0 final_loss=0 "
              f"steps={a.synthetic_steps}", flush=True)
        return

    xtr, ytr = load("train", a.dataset_dir, a.train_subset, image_size)
    xte, yte = load("test", a.dataset_dir, 0, image_size)
    per_epoch = len(xtr) // a.batch_size
    gen = torch.Generator().manual_seed(a.seed)
    step_seconds, images, steps = 0.0, 0, 0
    time_to_target, acc, last_loss = None, 0.0, 0.0
    begin = time.perf_counter()
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
            time_to_target = time.perf_counter() - begin
            if a.stop_at_target:
                break
    ttt = f"{time_to_target:.2f}" if time_to_target is not None else "none"
    print(f"result images_per_second={images / step_seconds:.2f} time_to_target_seconds={ttt} "
          f"final_accuracy={acc:.4f} final_loss={last_loss:.4f} steps={steps}", flush=True)
