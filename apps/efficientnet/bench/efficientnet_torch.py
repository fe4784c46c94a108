#!/usr/bin/python3
"""The PyTorch CPU peer of apps/efficientnet: EfficientNet on Fashion-MNIST with the same shape
rules (compound scaling, small-image stem, 1-channel input, 10 classes), the same data and
hyper-parameters (apps/common/bench/classifier_torch.py), timed the same way.

The paper's depthwise B0 is torchvision's `efficientnet_b0` (Debian python3-torchvision) with its
stem adapted to 1-channel images (stride 1 for the small stem); every other configuration —
Graphcore's G16 grouped variant, other widths, depths or expansion ratios — is this file's own
torch.nn implementation of the same blocks, so both frameworks run the same network.

Prints one `settings` and one `result` line (see classifier_torch.py).
"""
import argparse
import math
import os
import sys

os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

try:
    import torch
    import torch.nn as nn
except ImportError as e:
    print(f"unavailable: python3-torch cannot be imported ({e})")
    sys.exit(0)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common",
                                "bench"))
import classifier_torch as ct  # noqa: E402 (needs the path above)

# B0's stages: expansion, kernel, stride, output channels, repeats (as EfficientNetConfig.cpp).
B0_STAGES = [(1, 3, 1, 16, 1), (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3),
             (6, 5, 1, 112, 3), (6, 5, 2, 192, 4), (6, 3, 1, 320, 1)]
VARIANTS = {"b0": (1.0, 1.0, 0.2), "b1": (1.0, 1.1, 0.2), "b2": (1.1, 1.2, 0.3),
            "b3": (1.2, 1.4, 0.3), "b4": (1.4, 1.8, 0.4)}


def round_filters(channels, width):
    exact = channels * width
    rounded = max(8, math.floor((exact + 4) / 8) * 8)
    return rounded + 8 if rounded < 0.9 * exact else rounded


def blocks_of(a):
    """(in, out, expansion, kernel, stride, groups, squeeze, drop rate) per block."""
    width_c, depth_c, _ = VARIANTS[a.variant]
    width = a.width or width_c
    depth = a.depth_multiplier or depth_c
    later = a.expand_ratio or (4 if a.group_size > 1 else 6)
    repeats = [math.ceil(depth * r) for *_, r in B0_STAGES]
    total = sum(repeats)
    cin, index, out = round_filters(32, width), 0, []
    for stage, ((expand, kernel, stride, channels, _), n) in enumerate(zip(B0_STAGES, repeats)):
        cout = round_filters(channels, width)
        for r in range(n):
            e = expand if stage == 0 else later
            expanded = cin * e
            out.append((cin, cout, e, kernel, stride if r == 0 else 1,
                        expanded // a.group_size, max(1, cin // 4),
                        a.drop_connect * index / total))
            cin = cout
            index += 1
    return round_filters(32, width), out, round_filters(1280, width)


class SqueezeExcite(nn.Module):
    def __init__(self, channels, squeeze):
        super().__init__()
        self.reduce = nn.Conv2d(channels, squeeze, 1)
        self.expand = nn.Conv2d(squeeze, channels, 1)

    def forward(self, x):
        s = x.mean((2, 3), keepdim=True)
        return x * torch.sigmoid(self.expand(nn.functional.silu(self.reduce(s))))


def conv_norm(cin, cout, kernel, stride, groups, act):
    layers = [nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.SiLU())
    return layers


class MBConv(nn.Module):
    def __init__(self, cin, cout, expand, kernel, stride, groups, squeeze, drop):
        super().__init__()
        expanded = cin * expand
        layers = conv_norm(cin, expanded, 1, 1, 1, True) if expand != 1 else []
        layers += conv_norm(expanded, expanded, kernel, stride, groups, True)
        layers.append(SqueezeExcite(expanded, squeeze))
        layers += conv_norm(expanded, cout, 1, 1, 1, False)
        self.main = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout
        self.drop = drop

    def forward(self, x):
        y = self.main(x)
        if not self.residual:
            return y
        if self.training and self.drop > 0:  # stochastic depth, per sample
            keep = torch.rand(y.shape[0], 1, 1, 1) >= self.drop
            y = y * keep / (1 - self.drop)
        return x + y


def own_efficientnet(a):
    stem, blocks, head = blocks_of(a)
    layers = conv_norm(1, stem, 3, 1 if a.stem == "small" else 2, 1, True)
    layers += [MBConv(*b) for b in blocks]
    layers += conv_norm(blocks[-1][1], head, 1, 1, 1, True)
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(VARIANTS[a.variant][2]),
               nn.Linear(head, 10)]
    return nn.Sequential(*layers)


def torchvision_b0(a):
    import torchvision
    net = torchvision.models.efficientnet_b0(num_classes=10, stochastic_depth_prob=a.drop_connect)
    stem = net.features[0][0]
    net.features[0][0] = nn.Conv2d(1, stem.out_channels, 3, 1 if a.stem == "small" else 2, 1,
                                   bias=False)
    return net


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="b0", choices=sorted(VARIANTS))
    p.add_argument("--width", type=float, default=0)
    p.add_argument("--depth-multiplier", type=float, default=0)
    p.add_argument("--group-size", type=int, default=1)
    p.add_argument("--expand-ratio", type=int, default=0)
    p.add_argument("--drop-connect", type=float, default=0.2)
    p.add_argument("--stem", default="small", choices=["small", "imagenet"])
    p.add_argument("--image-size", type=int, default=32)
    ct.add_training_arguments(p, weight_decay=1e-5)
    a = p.parse_args()
    ct.start(a)
    paper_b0 = (a.variant == "b0" and a.group_size == 1 and not a.width and
                not a.depth_multiplier and a.expand_ratio in (0, 6))
    try:
        net, source = (torchvision_b0(a), "torchvision") if paper_b0 else (own_efficientnet(a),
                                                                            "torch.nn")
    except ImportError as e:
        print(f"unavailable: python3-torchvision cannot be imported ({e})")
        return
    print(ct.settings_line(a, f"model={source} variant={a.variant} group_size={a.group_size} "
                              f"image_size={a.image_size} stem={a.stem}"), flush=True)
    ct.train(net, a, a.image_size)


if __name__ == "__main__":
    main()
