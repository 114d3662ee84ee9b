#!/usr/bin/env python3
"""\brief An unmodified PyTorch workload for the preload check (scripts/gpu-check-preload.sh).

Nothing in here knows about abft: the same script runs with and without
LD_PRELOAD=libabft_preload.so, and its results are compared afterwards (compare.py).

  --dtype fp32|bf16|both   a few training steps of a 2-layer MLP (Linear + GELU + Linear, SGD,
                           fixed seed and data) in that precision; the losses, the final weights
                           and the gradients of the last step are saved
  --fft                    torch.fft on fixed data: fft / ifft (C2C, float), rfft (R2C), irfft
                           (C2R, 1-D), fft2 (2-D C2C), rfft2 / irfft2 (2-D R2C and C2R), in
                           float32 (keys fft.*); and irfft2 of a spectrum filtered unevenly in its
                           k_last = 0 column, which is then not Hermitian there (key fftnh.*:
                           what a C2R makes of it depends on the library's algorithm)
  --out FILE               the results (torch.save of a dict of CPU tensors)
"""
import argparse
import sys

import torch


def mlp_steps(dtype, steps, device):
    torch.manual_seed(1234)
    d_in, d_hidden, d_out, batch = 256, 1024, 128, 512
    model = torch.nn.Sequential(
        torch.nn.Linear(d_in, d_hidden), torch.nn.GELU(), torch.nn.Linear(d_hidden, d_out)
    ).to(device=device, dtype=dtype)
    # Plain SGD: the weights move by lr * gradient, so a rounding-level difference in a product
    # stays rounding-level (Adam's normalised step would turn the sign of a ~0 gradient into lr).
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    gen = torch.Generator(device="cpu").manual_seed(99)
    xs = [torch.randn(batch, d_in, generator=gen).to(device=device, dtype=dtype) for _ in range(steps)]
    ys = [torch.randn(batch, d_out, generator=gen).to(device=device, dtype=dtype) for _ in range(steps)]
    losses = []
    grads = {}
    for step in range(steps):
        opt.zero_grad(set_to_none=True)
        out = model(xs[step])
        loss = torch.nn.functional.mse_loss(out.float(), ys[step].float())
        loss.backward()
        if step == steps - 1:
            grads = {f"grad.{n}": p.grad.detach().float().cpu() for n, p in model.named_parameters()}
        opt.step()
        losses.append(loss.detach().float().cpu())
    res = {"losses": torch.stack(losses)}
    res.update({f"weight.{n}": p.detach().float().cpu() for n, p in model.named_parameters()})
    res.update(grads)
    # A batched product (bmm: strided-batched GEMM) and a plain one without bias (mm).
    a = torch.randn(12, 64, 96, generator=gen).to(device=device, dtype=dtype)
    b = torch.randn(12, 96, 80, generator=gen).to(device=device, dtype=dtype)
    res["bmm"] = torch.bmm(a, b).float().cpu()
    res["mm"] = (a[0] @ b[0]).float().cpu()
    return res


def fft_results(device):
    gen = torch.Generator(device="cpu").manual_seed(7)
    x = torch.randn(16, 1000, dtype=torch.complex64, generator=gen).to(device)
    r = torch.randn(16, 1024, generator=gen).to(device)
    img = torch.randn(4, 64, 48, dtype=torch.complex64, generator=gen).to(device)
    real_img = torch.randn(3, 64, 48, generator=gen).to(device)
    spec = torch.fft.rfft(r)
    spec2 = torch.fft.rfft2(real_img)
    return {
        "fft": torch.fft.fft(x).cpu(),
        "ifft": torch.fft.ifft(x).cpu(),
        "rfft": spec.cpu(),
        "irfft": torch.fft.irfft(spec, n=1024).cpu(),
        "fft2": torch.fft.fft2(img).cpu(),
        "rfft2": spec2.cpu(),
        "irfft2": torch.fft.irfft2(spec2, s=(64, 48)).cpu(),
    }


def fft_non_hermitian(device):
    """irfft2 of a spectrum whose k_last = 0 column weights rows k and -k differently (a spectral
    filter's doing): not Hermitian in that column."""
    gen = torch.Generator(device="cpu").manual_seed(9)
    spec = torch.fft.rfft2(torch.randn(3, 64, 48, generator=gen).to(device))
    gain = torch.ones(64, 1, device=device)
    gain[1:9] = 2.0  # rows 1..8 doubled, their mirrors 56..63 not
    filt = spec.clone()
    filt[:, :, :1] = filt[:, :, :1] * gain
    return {"irfft2_filtered": torch.fft.irfft2(filt, s=(64, 48)).cpu()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", choices=["fp32", "bf16", "both", "none"], default="both")
    ap.add_argument("--fft", action="store_true")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("workload.py: no CUDA device", file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False  # PyTorch's default, stated: fp32 products in fp32
    res = {}
    dtypes = {"fp32": [torch.float32], "bf16": [torch.bfloat16], "both": [torch.float32, torch.bfloat16],
              "none": []}[args.dtype]
    for dt in dtypes:
        tag = "fp32" if dt == torch.float32 else "bf16"
        for k, v in mlp_steps(dt, args.steps, args.device).items():
            res[f"{tag}.{k}"] = v
    if args.fft:
        for k, v in fft_results(args.device).items():
            res[f"fft.{k}"] = v
        for k, v in fft_non_hermitian(args.device).items():
            res[f"fftnh.{k}"] = v
    if args.device == "cuda":
        torch.cuda.synchronize()
    torch.save(res, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
