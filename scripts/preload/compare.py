#!/usr/bin/env python3
"""\brief Compares the results of two runs of workload.py and reads libabft_preload.so's report
(scripts/gpu-check-preload.sh).

  compare.py results REF RUN --prefix P --rtol R [--expect-different]
      max relative difference (max|a-b| / max|a|) per tensor whose name starts with P; prints
      one line "P maxrel=... worst=NAME" and exits 0 when every tensor is within R (or, with
      --expect-different, when some tensor is not: the injected faults landed)
  compare.py report FILE [--need-protected N] [--need-corrected] [--need-detected]
      parses the report (entry rows, device outcome rows) of the process with the most calls in
      FILE (reports are appended, one per process), prints one summary line
      "calls=.. protected=.. unprotected=.. failed=.. checks=.. detected=.. corrected=..
      uncorrectable=.. rejected=.. top=ENTRY:calls/protected,.. pid=..", exits 0 when the
      conditions hold (and no call failed or was rejected by the engine)
"""
import argparse
import math
import re
import sys


def results(args):
    import torch

    ref = torch.load(args.ref)
    run = torch.load(args.run)
    worst, worst_name = 0.0, "-"
    finite = True
    for name, a in ref.items():
        if not name.startswith(args.prefix):
            continue
        if name not in run:
            print(f"{args.prefix} missing {name}")
            return 1
        b = run[name]
        if a.shape != b.shape:
            print(f"{args.prefix} shape {name} {tuple(a.shape)} vs {tuple(b.shape)}")
            return 1
        a64 = a.to(torch.complex128) if a.is_complex() else a.double()
        b64 = b.to(torch.complex128) if b.is_complex() else b.double()
        if not torch.isfinite(b64).all():
            finite = False
            rel = math.inf
        else:
            scale = a64.abs().max().item() or 1.0
            rel = (a64 - b64).abs().max().item() / scale
        if rel > worst or (math.isnan(rel)):
            worst, worst_name = rel, name
    ok = worst <= args.rtol and finite
    print(f"{args.prefix} maxrel={worst:.3g} worst={worst_name}")
    if args.expect_different:
        return 0 if not ok else 1
    return 0 if ok else 1


ENTRY_ROW = re.compile(r"^(cublas\w+|cufft\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$")
DEVICE_ROW = re.compile(r"^(cuBLAS entry points|cuBLASLt matmul|cuFFT executions)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$")


def pick_report(text):
    """The report of the process that made the most intercepted calls (the workload), of the
    reports appended to one file. Helper processes that inherit LD_PRELOAD (timeout, env, a
    shell, a compiler PyTorch starts) write none when they made no call, and one with few calls
    otherwise; the last of equals wins."""
    best, best_calls = "", -1
    for part in text.split("abft-preload report")[1:]:
        calls = sum(int(m.group(2)) for m in map(ENTRY_ROW.match, part.splitlines()) if m)
        if calls >= best_calls:
            best, best_calls = part, calls
    return best


def report(args):
    try:
        text = open(args.file).read()
    except OSError as e:
        print(f"report missing: {e}")
        return 1
    chosen = pick_report(text)
    if not chosen:
        print("report empty: no process wrote one")
        return 1
    pid = re.match(r"\s*\(pid (\d+)", chosen)
    tot = dict(calls=0, protected=0, unprotected=0, failed=0, checks=0, detected=0, corrected=0, uncorrectable=0)
    rows = []
    rejected = 0
    for line in chosen.splitlines():
        m = ENTRY_ROW.match(line)
        if m:
            c, p, u, f = (int(m.group(i)) for i in range(2, 6))
            rows.append((m.group(1), c, p))
            tot["calls"] += c
            tot["protected"] += p
            tot["unprotected"] += u
            tot["failed"] += f
            continue
        m = DEVICE_ROW.match(line)
        if m:
            for key, i in (("checks", 2), ("detected", 3), ("corrected", 4), ("uncorrectable", 5)):
                tot[key] += int(m.group(i))
            continue
        m = re.match(r"^\s+\w+\s+(\d+)\s+engine rejected", line)
        if m:
            rejected += int(m.group(1))
    top = ",".join(f"{n}:{c}/{p}" for n, c, p in sorted(rows, key=lambda r: -r[1])[:4])
    print(" ".join(f"{k}={v}" for k, v in tot.items()) + f" rejected={rejected} top={top or '-'}"
          + (f" pid={pid.group(1)}" if pid else ""))
    if "device outcome: unavailable" in chosen:
        print("device counters unavailable at exit")
    # engine_rejected: the engine refused what the translation gave it — a bug, even though the
    # calls ran unprotected and the results are right.
    ok = tot["protected"] >= args.need_protected and tot["failed"] == 0 and rejected == 0
    if args.need_detected:
        ok = ok and tot["detected"] > 0
    if args.need_corrected:
        ok = ok and tot["corrected"] > 0 and tot["uncorrectable"] == 0
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("results")
    r.add_argument("ref")
    r.add_argument("run")
    r.add_argument("--prefix", default="")
    r.add_argument("--rtol", type=float, required=True)
    r.add_argument("--expect-different", action="store_true")
    p = sub.add_parser("report")
    p.add_argument("file")
    p.add_argument("--need-protected", type=int, default=0)
    p.add_argument("--need-detected", action="store_true")
    p.add_argument("--need-corrected", action="store_true")
    args = ap.parse_args()
    return results(args) if args.cmd == "results" else report(args)


if __name__ == "__main__":
    sys.exit(main())
