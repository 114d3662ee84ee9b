#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention on the shapes of bench/cuda_attention_bench.cpp, for
the GPU attention tables (scripts/gpu_bench_table.py attention): the flash backend for bfloat16
and binary16, the memory-efficient one for float (flash has no float kernel); the forward on the
benchmark's cuda_attention/fwd/... and fwd-mma/... shapes (named fwd: every forward engine's
row reads it), the backward (the gradients of Q, K and V from dO, timed alone) on its
cuda_attention/bwd/... shapes. Times are the median of 5 calls after 2 warm-ups (CUDA
events). Writes JSON {name: {"ms", "backend"}} with the benchmark's row names.
Run by scripts/gpu-check.sh on the device machine (PyTorch there).

Usage: gpu_attention_sdpa.py OUT.json
"""
import json
import sys


def shapes():
    """The benchmark's rows: (name, dtype, seq, head_dim, causal, batch, heads, backward)."""
    rows = 1 << 16

    def row(kind, dt, seq, d, causal):
        heads = 8
        batch = max(rows // (seq * heads), 1)
        hb = rows // seq
        name = f"cuda_attention/{kind}/{dt}/d{d}/{'causal' if causal else 'full'}/seq{seq}"
        return name, dt, seq, d, causal, batch, hb // batch, kind == "bwd"

    # The forward at the lengths scripts/gpu-check.sh times by default (the benchmark has 512 ...
    # 16384; 1024, 4096 and 16384 span what moved with length in the last run): every 16-bit
    # shape (the fwd-mma rows have binary16 at both head dims, causal and not), float at 128 full.
    for dt in ("bf16", "f16", "f32"):
        for d in (64, 128):
            for causal in (False, True):
                for seq in (1024, 4096, 16384):
                    if dt != "f32" or (d == 128 and not causal):
                        yield row("fwd", dt, seq, d, causal)
    # The backward: every 16-bit shape (the bwd-mma rows have binary16 too), float at 128 full.
    for dt in ("bf16", "f16", "f32"):
        for d in (64, 128):
            for causal in (False, True):
                for seq in (1024, 4096, 16384):
                    if dt != "f32" or (d == 128 and not causal):
                        yield row("bwd", dt, seq, d, causal)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gpu_attention_sdpa.py OUT.json")
    try:
        import torch
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except Exception as e:  # no PyTorch: an empty result, said
        print(f"gpu_attention_sdpa.py: PyTorch unavailable ({e})", file=sys.stderr)
        json.dump({}, open(sys.argv[1], "w"))
        return
    types = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
    out = {}
    for name, dt, seq, d, causal, batch, heads, backward in shapes():
        backend = SDPBackend.FLASH_ATTENTION if dt != "f32" else SDPBackend.EFFICIENT_ATTENTION
        try:
            q, k, v = (torch.randn(batch, heads, seq, d, device="cuda", dtype=types[dt], requires_grad=backward)
                       for _ in range(3))
            with sdpa_kernel([backend]):
                if backward:
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    do = torch.randn_like(o)

                    def step():
                        torch.autograd.grad(o, (q, k, v), do, retain_graph=True)
                else:
                    def step():
                        F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                for _ in range(2):
                    step()
                times = []
                for _ in range(5):
                    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    e0.record()
                    step()
                    e1.record()
                    torch.cuda.synchronize()
                    times.append(e0.elapsed_time(e1))
            times.sort()
            out[name] = {"ms": times[len(times) // 2], "backend": str(backend).split(".")[-1]}
        except Exception as e:  # a backend that refuses the shape: recorded, not fatal
            out[name] = {"ms": None, "backend": f"error: {(str(e).splitlines() or [type(e).__name__])[0][:60]}"}
        finally:
            q = k = v = o = do = None
    json.dump(out, open(sys.argv[1], "w"), indent=1)


if __name__ == "__main__":
    main()
