#!/usr/bin/env python3
"""\brief One GPT-2-small-shaped training step, timed (scripts/gpu-check-preload.sh).

Built from torch.nn only (no downloads): 12 layers, d_model 768, 12 heads, MLP 3072, vocab 50257,
tied embedding / LM head, learned positions, causal scaled_dot_product_attention, AdamW, bf16
autocast over fp32 weights. Prints one line "median_ms=X steps=N tokens=B*T" after `--warmup`
untimed steps and `--steps` timed ones (each ends with torch.cuda.synchronize). The same script
runs with and without LD_PRELOAD=libabft_preload.so; the shell script takes the ratio.
"""
import argparse
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        shape = (b, t, self.heads, d // self.heads)
        q, k, v = (z.view(shape).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT2Small(nn.Module):
    def __init__(self, vocab=50257, ctx=1024, d=768, layers=12, heads=12):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.ln(x) @ self.tok.weight.t()  # tied LM head (a plain product)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("overhead.py: no CUDA device", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    dev = "cuda"
    model = GPT2Small().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    gen = torch.Generator(device="cpu").manual_seed(1)
    data = torch.randint(0, 50257, (args.batch, args.seq + 1), generator=gen).to(dev)
    x, y = data[:, :-1], data[:, 1:]
    times = []
    for step in range(args.warmup + args.steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float().view(-1, logits.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        if step >= args.warmup:
            times.append((time.perf_counter() - t0) * 1e3)
    print(f"median_ms={statistics.median(times):.3f} steps={args.steps} tokens={args.batch}*{args.seq} "
          f"loss={loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
