#!/usr/bin/python3
"""Twin test: popnn::ctc loss and gradient against torch.nn.functional.ctc_loss.

Runs the ctc_loss_twin executable (argv[1]), which prints one JSON line per case with its inputs
and Tessera's loss and gradient, recomputes each with PyTorch (reduction='none', in double) and
compares. The gradient compared is PyTorch's gradient with respect to log_probs, which for CTC is
exp(log_probs) - occupancy, the logits gradient Tessera returns with includeSoftmaxGradient.
Exits 77 (skipped) when torch cannot be imported.
"""
import json
import subprocess
import sys

try:
    import torch
except ImportError:
    print("torch is not importable: skipped")
    sys.exit(77)

torch.set_num_threads(2)


def main():
    out = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout
    passed = failed = 0
    for line in out.splitlines():
        case = json.loads(line)
        T, B, C, maxL = case["T"], case["B"], case["C"], case["maxL"]
        log_probs = torch.tensor(case["logProbs"], dtype=torch.float64).reshape(T, B, C)
        log_probs.requires_grad_(True)
        targets = torch.tensor(case["labels"], dtype=torch.long).reshape(B, maxL)
        input_lengths = torch.tensor(case["dataLengths"], dtype=torch.long)
        target_lengths = torch.tensor(case["labelLengths"], dtype=torch.long)
        loss = torch.nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths,
                                            blank=case["blank"], reduction="none")
        loss.sum().backward()
        want_loss = loss.detach()
        want_grad = log_probs.grad.detach()
        got_loss = torch.tensor(case["loss"], dtype=torch.float64)
        got_grad = torch.tensor(case["grad"], dtype=torch.float64).reshape(T, B, C)
        loss_ok = torch.allclose(got_loss, want_loss, rtol=1e-4, atol=1e-4)
        grad_ok = torch.allclose(got_grad, want_grad, rtol=1e-3, atol=1e-5)
        name = f"T={T} B={B} C={C} maxL={maxL} blank={case['blank']}"
        if loss_ok and grad_ok:
            passed += 1
            print(f"ok   {name}: max |dloss| {float((got_loss - want_loss).abs().max()):.2e}, "
                  f"max |dgrad| {float((got_grad - want_grad).abs().max()):.2e}")
        else:
            failed += 1
            print(f"FAIL {name}: loss {got_loss.tolist()} vs torch {want_loss.tolist()}; "
                  f"max |dgrad| {float((got_grad - want_grad).abs().max()):.2e}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
