#!/usr/bin/env python3
"""\\brief Turn abft_bench_gemm JSON output into Markdown tables for docs/PERFORMANCE.md.

Usage: scripts/bench_table.py [--separate] [--note TEXT]... FILE.json [FILE.json ...]

One section per JSON file (one OpenBLAS configuration, e.g. as-is and
OPENBLAS_CORETYPE=SkylakeX), one table per type. Figures are the median
aggregates (--benchmark_repetitions=N); without aggregates the median of the
single runs is used. Overhead is the paired, same-repetition counter vs_off
(protected time / off time, timed alternately inside one benchmark) when
present; otherwise, or with --separate, the ratio of the separately measured
medians (marked with a dagger). --note adds a line to the header (bench.sh
uses it to say what happened to the SkylakeX run). Standard library only.
"""
import sys

from bench_common import (fmt_gflops as common_fmt_gflops, load_cells, parse_args,
                          print_errors, print_machine_lines, print_notes)

TYPES = (("sgemm", "float"), ("dgemm", "double"))
VARIANTS = ("openblas", "abft_off", "abft_detect", "abft_correct")
BAR_RATIO = 0.90     # correct >= 0.9x OpenBLAS
BAR_OVERHEAD = 5.0   # correct overhead <= 5 % vs off
BAR_MIN_MNK = 1024 ** 3  # the bar applies to shapes at least as large as n = 1024


def split_name(run_name):
    """'sgemm/n=1024/abft_correct/manual_time' -> ('sgemm', 'n=1024', 'abft_correct')."""
    parts = run_name.split("/")
    if len(parts) < 3:
        return None
    return parts[0], parts[1], parts[2]


def shape_mnk(label):
    """'n=1024' or 'n=1024,beta=1' -> (1024,)*3; 'm=2048,n=768,k=3072' -> (2048, 768, 3072)."""
    fields = dict(kv.split("=", 1) for kv in label.split(",") if "=" in kv)
    try:
        n = int(fields["n"])
        return int(fields.get("m", n)), n, int(fields.get("k", n))
    except (KeyError, ValueError):
        return None


def load(path):
    """Return (context, {(prefix, shape): {variant: {'gflops', 'vs_off', 'error'}}}, shape order, reps)."""
    return load_cells(path, split_name, {"gflops": "GFLOP/s", "vs_off": "vs_off", "x_openblas": "x_openblas"})


def fmt_gflops(cell):
    return common_fmt_gflops(cell, "gflops", "%.1f")


def overhead(cells, variant, separate):
    """(percent, paired?) of variant vs abft_off, or (None, False)."""
    prot, off = cells.get(variant), cells.get("abft_off")
    if prot is None or prot.get("error"):
        return None, False
    if not separate and prot.get("vs_off") is not None:
        return (prot["vs_off"] - 1.0) * 100.0, True
    if off and not off.get("error") and off.get("gflops") and prot.get("gflops"):
        return (off["gflops"] / prot["gflops"] - 1.0) * 100.0, False
    return None, False


def fmt_overhead(pct_paired):
    pct, paired = pct_paired
    if pct is None:
        return "—"
    return "%+.1f%%%s" % (pct, "" if paired else " †")


def bar_verdict(shape, cells, ratio, ovh):
    mnk = shape_mnk(shape)
    if mnk is None or mnk[0] * mnk[1] * mnk[2] < BAR_MIN_MNK:
        return ""
    misses = []
    if ratio is not None and ratio < BAR_RATIO:
        misses.append("ratio")
    if ovh is not None and ovh > BAR_OVERHEAD:
        misses.append("overhead")
    if ratio is None and "openblas" in cells:
        return "n/a"
    if ovh is None:
        return "n/a"
    return "ok" if not misses else "**miss** (" + ", ".join(misses) + ")"


def print_header(ctx, reps, notes):
    print("## GEMM throughput: abft vs OpenBLAS\n")
    print_machine_lines(ctx, "OpenBLAS", "openblas_threads", "sgemm kernel: %s; dgemm kernel: %s"
                        % (ctx.get("abft_sgemm_kernel", "?"), ctx.get("abft_dgemm_kernel", "?")))
    print("- Date: %s; figures are medians of %d repetitions; GFLOP/s = 2mnk / wall time "
          "(column-major, NoTrans/NoTrans, alpha = 1, beta = 0 unless the shape says beta=1)"
          % (ctx.get("date", "?"), reps))
    print("- Bar (issue 2): for n >= 1024 (here: every shape with m*n*k >= 1024^3), "
          "abft correct >= %.1fx OpenBLAS in the same run and ABFT overhead <= %.0f %% "
          "vs abft off" % (BAR_RATIO, BAR_OVERHEAD))
    print("- Overhead: paired (off and protected timed alternately in the same "
          "benchmark, vs_off); correct / OpenBLAS: paired likewise (OpenBLAS timed in the "
          "correct row's iterations, x_openblas); † = from separately measured medians")
    print_notes(notes)


def print_file(path, ctx, table, order, separate):
    env = ctx.get("openblas_coretype_env", "(unset)")
    core = ctx.get("openblas_core", "?")
    print("### OpenBLAS core %s (OPENBLAS_CORETYPE=%s) — `%s`\n" % (core, env, path))
    for prefix, tname in TYPES:
        shapes = [s for p, s in order if p == prefix]
        if not shapes:
            continue
        print("**%s** (%s)\n" % (tname, prefix))
        print("| shape | OpenBLAS | abft off | abft detect | abft correct | correct / OpenBLAS "
              "| detect ovh | correct ovh | bar |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        notes = []
        for shape in shapes:
            cells = table.get((prefix, shape), {})
            ob, cor = cells.get("openblas"), cells.get("abft_correct")
            ratio, ratio_paired = None, False
            if not separate and cor and not cor.get("error") and cor.get("x_openblas") is not None:
                ratio, ratio_paired = cor["x_openblas"], True
            elif ob and cor and not ob.get("error") and not cor.get("error") \
                    and ob.get("gflops") and cor.get("gflops") is not None:
                ratio = cor["gflops"] / ob["gflops"]
            ovh_det = overhead(cells, "abft_detect", separate)
            ovh_cor = overhead(cells, "abft_correct", separate)
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                shape, fmt_gflops(ob), fmt_gflops(cells.get("abft_off")),
                fmt_gflops(cells.get("abft_detect")), fmt_gflops(cor),
                ("%.2fx" % ratio + ("" if ratio_paired else " †")) if ratio is not None else "—",
                fmt_overhead(ovh_det), fmt_overhead(ovh_cor),
                bar_verdict(shape, cells, ratio, ovh_cor[0])))
            for v in VARIANTS:
                if cells.get(v, {}).get("error"):
                    notes.append("%s/%s/%s: %s" % (prefix, shape, v, cells[v]["error"]))
        print()
        print_errors(notes)


def main(argv):
    flags, notes, paths = parse_args(argv, ("--separate",))
    separate = flags["--separate"]
    if not paths:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    loaded = []
    for p in paths:
        try:
            loaded.append((p,) + load(p))
        except (OSError, ValueError) as e:
            print("bench_table: cannot read %s: %s" % (p, e), file=sys.stderr)
    if not loaded:
        return 1
    print_header(loaded[0][1], max(l[4] for l in loaded), notes)
    for path, ctx, table, order, _ in loaded:
        print_file(path, ctx, table, order, separate)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
