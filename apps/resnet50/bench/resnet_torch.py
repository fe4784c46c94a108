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
import os
import sys

os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

try:
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as e:
    print(f"unavailable: python3-torch cannot be imported ({e})")
    sys.exit(0)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common",
                                "bench"))
import classifier_torch as ct  # noqa: E402 (needs the path above)


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


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depth", type=int, default=50)
    p.add_argument("--width", type=float, default=0.25)
    p.add_argument("--stem", default="small", choices=["small", "imagenet"])
    p.add_argument("--image-size", type=int, default=28)
    ct.add_training_arguments(p, weight_decay=5e-5)
    a = p.parse_args()
    ct.start(a)
    print(ct.settings_line(a, f"depth={a.depth} width={a.width} stem={a.stem} "
                              f"image_size={a.image_size}"), flush=True)
    ct.train(resnet(a.depth, a.width, a.stem), a, a.image_size)


if __name__ == "__main__":
    main()
