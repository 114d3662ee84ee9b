#!/usr/bin/env python3
"""Markdown table of a GPU benchmark's JSON (bench/cuda_gemm_bench.cpp, bench/cuda_fft_bench.cpp,
bench/cuda_attention_bench.cpp) with the issue's bar per row; exit status 1 when a row misses its
bar or failed. GEMM and FFT rows give two ratios: each call timed from an idle device (its
latency, the host's launches included: the bar is read on it) and bursts of back-to-back calls
(the device's time per call with the host ahead of it, as in a pipelined program).

Usage: gpu_bench_table.py gemm|fft FILE.json                (run by scripts/gpu-check.sh)
       gpu_bench_table.py attention FILE.json [SDPA.json]   (SDPA.json: scripts/gpu_attention_sdpa.py)
"""
import json
import re
import sys


def gemm_row(name, r):
    """(cells, bar) of a GEMM row: >= 0.9x cuBLAS (0.85x bf16) for square n >= 4096."""
    ratio = 1.0 / r["vs_cublas"]
    m = re.search(r"/(f32|f64|bf16)/(?:b\d+)?m(\d+)n(\d+)k(\d+)", name)
    t, n = m.group(1), min(int(m.group(2)), int(m.group(3)), int(m.group(4)))
    need = 0.85 if t == "bf16" else 0.9
    square = m.group(2) == m.group(3) == m.group(4)
    barred = square and n >= 4096 and "-overlap/" not in name and "-batched/" not in name  # (comparisons)
    bar = ("ok" if ratio >= need else f"**miss** (< {need}x)") if barred else ""
    return [f"{r['cublas_TFLOPs']:.1f}", f"{r['abft_TFLOPs']:.1f}", f"{ratio:.3f}x", burst(r, "vs_cublas_burst")], bar


def burst(r, key):
    """The ratio of bursts of back-to-back calls (the device's time per call with the host ahead
    of it: cuda_bench_util.hpp), '-' when the row has none."""
    v = r.get(key, 0)
    return f"{1.0 / v:.3f}x" if v > 0 else "-"


def fft_row(name, r):
    """(cells, bar) of an FFT row: >= 0.85x cuFFT for every size of the default plans
    (cuda_fft/...); the cuda_fft-passes/... rows (sums in passes, for comparison) and the 2D / 3D
    cuda_fft-md/... rows have no bar."""
    ratio = 1.0 / r["vs_cufft"]
    sums = "callbacks" if r.get("sums", 0) >= 0.5 else "passes"
    if r.get("cb_refused", 0):  # asked for callbacks, refused by cuFFT: its cufftResult
        sums += f" (refused: cufftResult {int(r['cb_refused'])})"
    bar = "" if ("-passes/" in name or "-md/" in name) else ("ok" if ratio >= 0.85 else "**miss** (< 0.85x)")
    return [sums, str(int(r["batch"])), f"{r['cufft_GFLOPs']:.0f}", f"{r['abft_GFLOPs']:.0f}", f"{ratio:.3f}x",
            burst(r, "vs_cufft_burst"), f"{r.get('plan_ms', 0):.0f}"], bar


SDPA = {}  # row name -> {"ms", "backend"} of PyTorch's SDPA on the same shape (attention only)


def attention_row(name, r):
    """(cells, bar) of an attention row: ABFT overhead <= 10 % against our unprotected kernel
    (fwd, fwd-tc, fwd-mma, bwd and bwd-mma rows; the -nokeysums rows, the key blocks' sums formed without
    the pre-pass, are a comparison); the protected kernel's throughput as a ratio of PyTorch
    SDPA's on the same shape and direction (reported, no bar). SDPA's times are keyed by the
    cuda_attention/fwd/... and /bwd/... names: every engine's row (fwd-tc, fwd-mma, bwd-mma, the
    -nokeysums rows) reads its shape's entry of its direction."""
    over = r["overhead"]
    barred = "-nokeysums/" not in name
    bar = ("ok" if over <= 0.10 else "**miss** (> 10 %)") if barred else ""
    bwd = re.search(r"/bwd[^/]*/", name) is not None
    # every engine's row reads SDPA's entry of its shape and direction
    s = SDPA.get(re.sub(r"/(fwd|bwd)[^/]*/", r"/\1/", name), {})
    if s.get("ms"):
        m = re.search(r"/d(\d+)/(causal|full)/seq(\d+)", name)
        d, causal, seq = int(m.group(1)), m.group(2) == "causal", int(m.group(3))
        flops = 4.0 * r["batch_heads"] * seq * seq * d * (0.5 if causal else 1.0) * (2.5 if bwd else 1.0)
        sdpa_tf = flops / (s["ms"] * 1e-3) * 1e-12
        vs = f"{r['abft_TFLOPs'] / sdpa_tf:.3f}x"
        sdpa = f"{sdpa_tf:.1f} ({s['backend'].lower()})"
    else:
        sdpa, vs = s.get("backend", "-"), "-"
    return [f"{r['plain_TFLOPs']:.2f}", f"{r['abft_TFLOPs']:.2f}", f"{100 * over:+.1f} %", sdpa, vs], bar


def load_rows(path):
    """The benchmark rows of a Google Benchmark JSON file, and whether the file was cut short. A
    benchmark stopped by its time limit leaves the rows it finished followed by nothing: those
    rows are still read, one JSON object at a time, so a stopped run keeps its table."""
    text = open(path).read()
    try:
        return json.loads(text)["benchmarks"], False
    except ValueError:
        pass
    start = text.find("[", text.find('"benchmarks"'))
    if '"benchmarks"' not in text or start < 0:
        raise ValueError("no benchmark rows in the file")
    dec, pos, rows = json.JSONDecoder(), start + 1, []
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        try:
            obj, pos = dec.raw_decode(text, pos)
        except ValueError:
            return rows, True
        rows.append(obj)


KINDS = {
    "gemm": (["shape", "cuBLAS TFLOP/s", "abft TFLOP/s", "ratio", "ratio, bursts", "bar"], gemm_row),
    "fft": (["transform", "sums", "batch", "cuFFT GFLOP/s", "abft GFLOP/s", "ratio", "ratio, bursts", "plan ms", "bar"],
            fft_row),
    "attention": (["shape", "unprotected TFLOP/s", "protected TFLOP/s", "overhead", "SDPA TFLOP/s",
                   "protected / SDPA", "bar"], attention_row),
}


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in KINDS or (len(sys.argv) == 4 and sys.argv[1] != "attention"):
        sys.exit("usage: gpu_bench_table.py gemm|fft FILE.json | attention FILE.json [SDPA.json]")
    head, row = KINDS[sys.argv[1]]
    if len(sys.argv) == 4:
        try:
            SDPA.update(json.load(open(sys.argv[3])))
        except Exception as e:  # no SDPA numbers: the table says so per row
            print(f"(no SDPA results: {e})")
    try:
        rows, cut = load_rows(sys.argv[2])
    except Exception as e:  # a missing or empty file: say so, fail
        print(f"no benchmark results ({e})")
        sys.exit(1)
    if cut:
        print(f"(the benchmark was stopped before its end: the {len(rows)} rows it finished)")
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 2) + "---|")
    bad = 0
    for r in rows:
        name = r["name"].split("/iterations")[0]
        if r.get("error_occurred"):
            msg = r.get("error_message", "error").splitlines()[0]
            print("| " + " | ".join([name] + ["-"] * (len(head) - 2) + [msg]) + " |")
            bad += 1
            continue
        cells, bar = row(name, r)
        bad += bar.startswith("**")
        print("| " + " | ".join([name] + cells + [bar]) + " |")
    sys.exit(1 if bad or cut else 0)


if __name__ == "__main__":
    main()
