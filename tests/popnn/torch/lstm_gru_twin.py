#!/usr/bin/python3
"""PyTorch twin of popnn::lstm, gru and rnn: rebuilds Tessera's layers as nn.LSTM/GRU/RNN.

  lstm_gru_twin.py DUMP_FILE

DUMP_FILE (written by tests/popnn/RecurrentTorchTwinTest.cpp) holds one tensor per line,
"name dim0,dim1,... v0 v1 ...": for each of the prefixes "lstm." and "gru." the inputs (x, h0,
c0, Wi, Wo, b, dOut) and Tessera's results (out, dx, dh0, dc0, dWi, dWo, db); for "rnn." (the
vanilla layer of popnn/Recurrent.hpp, if present) x, h0, Wff, Wfb, b, dOutBatchMajor and out,
dx, dWff, dWfb, db. The script builds
the PyTorch layer with the same weights, runs it forward, backpropagates sum(out * dOut) and
compares every result with Tessera's. Exit status: 0 all agree, 1 a mismatch, 77 torch missing.

Mapping:
  LSTM: PopLibs' default gate order is forget, input, candidate, output; PyTorch's rows are
        input, forget, cell (candidate), output. PopLibs' weights are [gate][in][out], PyTorch's
        weight_ih_l0 is [4*out][in] (rows = gate-major, transposed). PopLibs has one bias per
        gate: it goes to bias_ih_l0 and bias_hh_l0 is zero.
  GRU:  PopLibs' default order reset, update, candidate equals PyTorch's r, z, n. With
        resetAfter PopLibs' biases are [gate][2][out]: [.][0] is PyTorch's bias_ih, [.][1] its
        bias_hh, and c = tanh(x Wc + b_ic + r * (h Uc + b_hc)) is PyTorch's n. Both update the
        state as h' = z * h + (1 - z) * n.
  RNN:  Wff [in][out] and Wfb [out][out] are PyTorch's weight_ih_l0 / weight_hh_l0 transposed;
        PopLibs' single bias goes to bias_ih_l0, bias_hh_l0 is zero; nonlinearity tanh.
Runs with torch.set_num_threads(2) and OMP_WAIT_POLICY=PASSIVE (set before torch is imported).
"""
import os
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
try:
    import torch
except Exception as e:  # noqa: BLE001 (any import failure means "no torch here")
    print(f"unavailable: python3-torch cannot be imported ({e})")
    sys.exit(77)

LSTM_TORCH_FROM_POPLIBS = [1, 0, 2, 3]  # PyTorch gate k is PopLibs slice LSTM_TORCH_FROM_POPLIBS[k]


def load(path):
    tensors = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            shape = [int(d) for d in parts[1].split(",")]
            values = [float(v) for v in parts[2:]]
            tensors[parts[0]] = torch.tensor(values, dtype=torch.float64).reshape(shape)
    return tensors


def gate_major(w, order):
    """PopLibs [gates][in][out] -> PyTorch [gates*out][in] in PyTorch's gate order."""
    return torch.cat([w[g].t() for g in order], 0)


def from_gate_major(w, order, out):
    """PyTorch [gates*out][in] gradient -> PopLibs [gates][in][out] in PopLibs' order."""
    parts = [None] * len(order)
    for k, g in enumerate(order):
        parts[g] = w[k * out:(k + 1) * out].t()
    return torch.stack(parts, 0)


def compare(name, got, want, tol):
    err = (got - want).abs().max().item()
    scale = max(1.0, want.abs().max().item())
    ok = err <= tol * scale
    print(f"{name:12s} max |tessera - torch| = {err:.3e} {'ok' if ok else 'MISMATCH'}")
    return ok


def lstm_twin(t):
    x, h0, c0 = t["lstm.x"], t["lstm.h0"], t["lstm.c0"]
    wi, wo, b, d_out = t["lstm.Wi"], t["lstm.Wo"], t["lstm.b"], t["lstm.dOut"]
    inputs, hidden = wi.shape[1], wi.shape[2]
    order = LSTM_TORCH_FROM_POPLIBS
    layer = torch.nn.LSTM(inputs, hidden).double()
    with torch.no_grad():
        layer.weight_ih_l0.copy_(gate_major(wi, order))
        layer.weight_hh_l0.copy_(gate_major(wo, order))
        layer.bias_ih_l0.copy_(torch.cat([b[g] for g in order]))
        layer.bias_hh_l0.zero_()
    x = x.clone().requires_grad_()
    h0 = h0.clone().unsqueeze(0).requires_grad_()
    c0 = c0.clone().unsqueeze(0).requires_grad_()
    out, _ = layer(x, (h0, c0))
    (out * d_out).sum().backward()
    bias_grad = layer.bias_ih_l0.grad
    checks = [
        compare("lstm.out", t["lstm.out"], out.detach(), 1e-5),
        compare("lstm.dx", t["lstm.dx"], x.grad, 1e-5),
        compare("lstm.dh0", t["lstm.dh0"], h0.grad[0], 1e-5),
        compare("lstm.dc0", t["lstm.dc0"], c0.grad[0], 1e-5),
        compare("lstm.dWi", t["lstm.dWi"], from_gate_major(layer.weight_ih_l0.grad, order, hidden),
                1e-5),
        compare("lstm.dWo", t["lstm.dWo"], from_gate_major(layer.weight_hh_l0.grad, order, hidden),
                1e-5),
        compare("lstm.db", t["lstm.db"],
                torch.stack([bias_grad[order.index(g) * hidden:(order.index(g) + 1) * hidden]
                             for g in range(4)]), 1e-5),
    ]
    return all(checks)


def gru_twin(t):
    x, h0 = t["gru.x"], t["gru.h0"]
    wi, wo, b, d_out = t["gru.Wi"], t["gru.Wo"], t["gru.b"], t["gru.dOut"]
    inputs, hidden = wi.shape[1], wi.shape[2]
    order = [0, 1, 2]
    layer = torch.nn.GRU(inputs, hidden).double()
    with torch.no_grad():
        layer.weight_ih_l0.copy_(gate_major(wi, order))
        layer.weight_hh_l0.copy_(gate_major(wo, order))
        layer.bias_ih_l0.copy_(b[:, 0, :].reshape(-1))
        layer.bias_hh_l0.copy_(b[:, 1, :].reshape(-1))
    x = x.clone().requires_grad_()
    h0 = h0.clone().unsqueeze(0).requires_grad_()
    out, _ = layer(x, h0)
    (out * d_out).sum().backward()
    db = torch.stack([layer.bias_ih_l0.grad.reshape(3, hidden),
                      layer.bias_hh_l0.grad.reshape(3, hidden)], 1)
    checks = [
        compare("gru.out", t["gru.out"], out.detach(), 1e-5),
        compare("gru.dx", t["gru.dx"], x.grad, 1e-5),
        compare("gru.dh0", t["gru.dh0"], h0.grad[0], 1e-5),
        compare("gru.dWi", t["gru.dWi"], from_gate_major(layer.weight_ih_l0.grad, order, hidden),
                1e-5),
        compare("gru.dWo", t["gru.dWo"], from_gate_major(layer.weight_hh_l0.grad, order, hidden),
                1e-5),
        compare("gru.db", t["gru.db"], db, 1e-5),
    ]
    return all(checks)


def rnn_twin(t):
    x, h0 = t["rnn.x"], t["rnn.h0"]
    wff, wfb, b = t["rnn.Wff"], t["rnn.Wfb"], t["rnn.b"]
    d_out = t["rnn.dOutBatchMajor"].transpose(0, 1)
    layer = torch.nn.RNN(wff.shape[0], wff.shape[1], nonlinearity="tanh").double()
    with torch.no_grad():
        layer.weight_ih_l0.copy_(wff.t())
        layer.weight_hh_l0.copy_(wfb.t())
        layer.bias_ih_l0.copy_(b)
        layer.bias_hh_l0.zero_()
    x = x.clone().requires_grad_()
    out, _ = layer(x, h0.clone().unsqueeze(0))
    (out * d_out).sum().backward()
    checks = [
        compare("rnn.out", t["rnn.out"], out.detach(), 1e-5),
        compare("rnn.dx", t["rnn.dx"], x.grad, 1e-5),
        compare("rnn.dWff", t["rnn.dWff"], layer.weight_ih_l0.grad.t(), 1e-5),
        compare("rnn.dWfb", t["rnn.dWfb"], layer.weight_hh_l0.grad.t(), 1e-5),
        compare("rnn.db", t["rnn.db"], layer.bias_ih_l0.grad, 1e-5),
    ]
    return all(checks)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    torch.set_num_threads(2)
    tensors = load(sys.argv[1])
    ok = lstm_twin(tensors)
    ok = gru_twin(tensors) and ok
    if "rnn.x" in tensors:
        ok = rnn_twin(tensors) and ok
    print("twin: all agree" if ok else "twin: MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
