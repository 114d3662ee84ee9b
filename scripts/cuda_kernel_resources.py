#!/usr/bin/env python3
"""Registers, spills and the register-limited occupancy of every kernel in CUDA sources of the
engine, as ptxas reports them for sm_90 (no GPU needed): the static side of a kernel's speed,
and of what its checks cost (a checked kernel that needs more registers runs fewer blocks per SM
than the unprotected one it is timed against).

Usage: scripts/cuda_kernel_resources.py [--build DIR] [--threads N] FILE.cu ...
  --build DIR   a configured CUDA build (default build/): its abft_cuda flags and includes
  --threads N   threads per block, for the blocks-per-SM column (default 128: the attention's)
Prints one Markdown row per kernel: name and template arguments, registers, stack, spill
stores / loads (bytes), and the blocks an H100/H200 SM holds by registers alone (64 K 32-bit
registers, allocated per warp in units of 256; shared memory may limit further).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def ptxas_report(build, src):
    """ptxas's -v lines for src compiled as abft_cuda compiles it, for sm_90 only."""
    d = os.path.join(build, "cuda")
    rsp = os.path.join(d, "CMakeFiles", "abft_cuda.dir", "includes_CUDA.rsp")
    if not os.path.exists(rsp):
        sys.exit(f"no {rsp}: configure a CUDA build first (cmake -S . -B {build})")
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["nvcc", "-O3", "-DNDEBUG", "-std=c++17", "--expt-relaxed-constexpr", "-arch=sm_90",
               "--options-file", rsp, "-Xptxas", "-v", "-c", os.path.abspath(src), "-o", os.path.join(tmp, "x.o")]
        r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"nvcc failed on {src}:\n{r.stderr[-2000:]}")
    return r.stdout + r.stderr


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout
    return out.splitlines()


def blocks_by_registers(regs, threads):
    warps = (threads + 31) // 32
    per_warp = ((regs * 32 + 255) // 256) * 256
    return 65536 // (warps * per_warp) if regs > 0 else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--threads", type=int, default=128)
    ap.add_argument("sources", nargs="+")
    a = ap.parse_args()
    print("| kernel | registers | stack B | spill st / ld B | blocks/SM by registers |")
    print("|---|---:|---:|---:|---:|")
    for src in a.sources:
        text = ptxas_report(a.build, src)
        blocks = re.split(r"ptxas info\s*: Compiling entry function '", text)[1:]
        names = [b.split("'")[0] for b in blocks]
        rows = []
        for name, b in zip(demangle(names), blocks):
            regs = re.search(r"Used (\d+) registers", b)
            mem = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", b)
            k = re.search(r"(\w+)<(.*)>\(", name)
            label = f"{k.group(1)}<{k.group(2)}>" if k else name.split("(")[0]
            r = int(regs.group(1)) if regs else 0
            st, sp_s, sp_l = mem.groups() if mem else ("?", "?", "?")
            rows.append((label, r, st, f"{sp_s} / {sp_l}", blocks_by_registers(r, a.threads)))
        for label, r, st, sp, bl in sorted(rows):
            print(f"| {label} | {r} | {st} | {sp} | {bl} |")


if __name__ == "__main__":
    main()
