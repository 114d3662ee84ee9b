#!/usr/bin/env python3
"""\\brief Turn abft_bench_fft JSON output into Markdown tables and the FFT bars of issue 4.

Usage: scripts/bench_fft_table.py [--separate] [--describe] [--note TEXT]... FILE.json

One table per precision: per case (kind/size) the GFLOP/s of FFTW and of abft
off / detect / correct, correct / FFTW, and the detect and correct overheads
vs off. Figures are the median aggregates (--benchmark_repetitions=N); without
aggregates the median of the single runs. The ratios are the paired counters
of the suite (x_fftw: FFTW time / abft correct time, vs_off: protected time /
off time, both timed alternately inside one benchmark) when present; otherwise,
or with --separate, ratios of the separately measured medians (marked with a
dagger). Then the bars: geometric means over c2c single transforms with
n = 2^10 ... 2^20 of correct / FFTW (float, double) and of the correct overhead
vs off. The FFTW peer is the faster of the rows fftw (the suite's thread
count) and fftw_1t (one thread; present when the suite ran several threads).
--describe lists the abft plan of each case (abft_fft_describe).
Standard library only.
"""
import math
import sys

from bench_common import (fmt_gflops as common_fmt_gflops, load_cells, parse_args,
                          print_errors, print_machine_lines, print_notes)

PRECISIONS = (("f32", "float"), ("f64", "double"))
VARIANTS = ("fftw", "fftw_1t", "abft_off", "abft_detect", "abft_correct")
BAR_RATIO = 0.80      # correct >= 0.8x FFTW (geometric mean)
BAR_OVERHEAD = 10.0   # correct overhead <= 10 % vs off (geometric mean)
BAR_LOG2 = (10, 20)   # c2c single transforms n = 2^10 ... 2^20


def split_name(run_name):
    """'c2c/f64/n:1024/abft_correct/manual_time' -> ('c2c', 'f64', 'n:1024', 'abft_correct')."""
    parts = run_name.split("/")
    if len(parts) < 4 or parts[3] not in VARIANTS:
        return None
    return parts[0], parts[1], parts[2], parts[3]


def bar_log2(kind, size):
    """log2 n for a c2c single 1D transform of a power-of-two length in the bar range, else None."""
    if kind != "c2c" or not size.startswith("n:"):
        return None
    try:
        n = int(size[2:])
    except ValueError:
        return None  # 2D (n:AxB) or batch (n:A,batch:B)
    if n <= 0 or n & (n - 1):
        return None
    e = n.bit_length() - 1
    return e if BAR_LOG2[0] <= e <= BAR_LOG2[1] else None


FIELDS = ("GFLOP/s", "vs_off", "x_fftw", "time/call", "checks", "fftw_threads", "err_vs_fftw")


def load(path):
    """Return (context, {(kind, prec, size): {variant: cell}}, case order, repetitions)."""
    return load_cells(path, split_name, {f: f for f in FIELDS}, count_singles=True)


def ok(cell, field="GFLOP/s"):
    return cell is not None and not cell.get("error") and cell.get(field) is not None


def best_fftw(cells):
    """The faster FFTW row (fftw: the suite's thread count, fftw_1t: one thread) or None."""
    rows = [cells[v] for v in ("fftw", "fftw_1t") if ok(cells.get(v))]
    return max(rows, key=lambda c: c["GFLOP/s"]) if rows else None


def ratio_fftw(cells, separate):
    """(abft correct throughput / the faster FFTW's, paired?) or (None, False)."""
    cor, peer = cells.get("abft_correct"), best_fftw(cells)
    if not separate and ok(cor, "x_fftw"):
        return cor["x_fftw"], True
    if ok(cor) and peer and peer["GFLOP/s"] > 0:
        return cor["GFLOP/s"] / peer["GFLOP/s"], False
    return None, False


def time_ratio_off(cells, variant, separate):
    """(protected time / off time, paired?) or (None, False)."""
    prot, off = cells.get(variant), cells.get("abft_off")
    if not separate and ok(prot, "vs_off"):
        return prot["vs_off"], True
    if ok(prot) and ok(off) and prot["GFLOP/s"] > 0:
        return off["GFLOP/s"] / prot["GFLOP/s"], False
    return None, False


def fmt_gflops(cell):
    return common_fmt_gflops(cell, "GFLOP/s", "%.2f")


def fmt_ratio(r):
    return "—" if r[0] is None else "%.2fx%s" % (r[0], "" if r[1] else " †")


def fmt_overhead(r):
    return "—" if r[0] is None else "%+.1f%%%s" % ((r[0] - 1.0) * 100.0, "" if r[1] else " †")


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def print_header(path, ctx, reps, notes):
    print("## FFT throughput: abft vs FFTW\n")
    print_machine_lines(ctx, "FFTW", "fftw_threads", "FFTW: %s, planner %s"
                        % (ctx.get("fftw_version", "?"), ctx.get("fftw_planner", "?")))
    print("- Date: %s; figures are medians of %d repetitions (`%s`, case set: %s); "
          "GFLOP/s = 5 N log2 N (complex) or 2.5 N log2 N (real) per transform / wall time, "
          "FFTW's convention; out-of-place, forward (c2r: backward), random data"
          % (ctx.get("date", "?"), reps, path, ctx.get("case_set", "?")))
    print("- FFTW: `fftw` is planned with the same thread count as abft%s; correct / FFTW "
          "is against the faster of the two"
          % (", `fftw 1t` with one thread (FFTW_MEASURE may pick a threaded plan that is "
             "slower than its serial one for small sizes)"
             if ctx.get("fftw_1t_rows") == "yes" else ""))
    print("- Ratios: paired (abft correct, abft off and FFTW timed alternately in the same "
          "benchmark: x_fftw, vs_off; paired timing: %s); † = from separately measured medians"
          % ctx.get("paired_timing", "?"))
    print_notes(notes)


def print_tables(table, order, separate):
    errors = []
    for prec, pname in PRECISIONS:
        cases = [c for c in order if c[1] == prec]
        if not cases:
            continue
        print("**%s** (%s)\n" % (pname, prec))
        print("| case | FFTW | FFTW 1t | abft off | abft detect | abft correct | correct / FFTW "
              "| detect ovh | correct ovh |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for case in cases:
            cells = table.get(case, {})
            print("| %s/%s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                case[0], case[2], fmt_gflops(cells.get("fftw")), fmt_gflops(cells.get("fftw_1t")),
                fmt_gflops(cells.get("abft_off")), fmt_gflops(cells.get("abft_detect")),
                fmt_gflops(cells.get("abft_correct")), fmt_ratio(ratio_fftw(cells, separate)),
                fmt_overhead(time_ratio_off(cells, "abft_detect", separate)),
                fmt_overhead(time_ratio_off(cells, "abft_correct", separate))))
            for v in VARIANTS:
                if (cells.get(v) or {}).get("error"):
                    errors.append("%s/%s/%s/%s: %s" % (case + (v, cells[v]["error"])))
        print()
    print_errors(errors)


def print_bars(table, order, separate):
    lo, hi = BAR_LOG2
    print("### Bars (issue 4): c2c single transforms, n = 2^%d ... 2^%d, geometric means\n"
          % (lo, hi))
    print("| precision | sizes | correct / FFTW (bar >= %.1fx) | overhead correct vs off "
          "(bar <= %.0f %%) | verdict |" % (BAR_RATIO, BAR_OVERHEAD))
    print("|---|---|---:|---:|---|")
    pooled_r, pooled_o = [], []
    for prec, pname in PRECISIONS + (("all", "both"),):
        ratios, overheads, sizes, marks = [], [], [], set()
        for case in order:
            e = bar_log2(case[0], case[2])
            if e is None or (prec != "all" and case[1] != prec):
                continue
            cells = table.get(case, {})
            r = ratio_fftw(cells, separate)
            o = time_ratio_off(cells, "abft_correct", separate)
            if r[0] is not None and r[0] > 0:
                ratios.append(r[0])
                marks.add(r[1])
            if o[0] is not None and o[0] > 0:
                overheads.append(o[0])
                marks.add(o[1])
            if prec != "all" and e not in sizes:
                sizes.append(e)
        if prec == "all":
            ratios, overheads = pooled_r, pooled_o
            sizes_txt = "float and double"
        else:
            pooled_r += ratios
            pooled_o += overheads
            sizes_txt = ("2^" + ",".join(str(e) for e in sorted(sizes))) if sizes else "none"
        g_r, g_o = geomean(ratios), geomean(overheads)
        misses = []
        if g_r is not None and g_r < BAR_RATIO:
            misses.append("ratio")
        if g_o is not None and (g_o - 1.0) * 100.0 > BAR_OVERHEAD:
            misses.append("overhead")
        verdict = "n/a" if g_r is None or g_o is None else (
            "met" if not misses else "**miss** (" + ", ".join(misses) + ")")
        dagger = "" if marks <= {True} else " †"
        print("| %s | %s | %s | %s | %s |" % (
            pname, sizes_txt,
            "—" if g_r is None else "%.2fx%s (%d)" % (g_r, dagger, len(ratios)),
            "—" if g_o is None else "%+.1f%%%s (%d)" % ((g_o - 1.0) * 100.0, dagger, len(overheads)),
            verdict))
    print("\n(n) = number of sizes in the mean; overhead = geometric mean of "
          "(correct time / off time) - 1.\n")


def print_describe(table, order):
    """Each case's abft plan, checks per call and largest output error against FFTW."""
    print("### abft plans\n")
    for case in order:
        cells = table.get(case, {})
        abft = [cells[v] for v in VARIANTS if v.startswith("abft") and ok(cells.get(v), "label")]
        if not abft:
            continue
        checks = [c["checks"] for c in abft if c.get("checks")]
        errs = [c["err_vs_fftw"] for c in abft if c.get("err_vs_fftw") is not None]
        tol = 1e-4 if case[1] == "f32" else 1e-11
        extra = []
        if checks:
            extra.append("%d checks/call" % max(checks))
        if errs:
            extra.append("max err vs FFTW %.1e%s" % (max(errs), " **(large)**" if max(errs) > tol else ""))
        print("- %s/%s/%s: `%s`%s" % (case + (abft[0]["label"],
                                               "; " + ", ".join(extra) if extra else "")))
    print()


def main(argv):
    flags, notes, paths = parse_args(argv, ("--separate", "--describe"))
    separate, describe = flags["--separate"], flags["--describe"]
    if len(paths) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        ctx, table, order, reps = load(paths[0])
    except (OSError, ValueError) as e:
        print("bench_fft_table: cannot read %s: %s" % (paths[0], e), file=sys.stderr)
        return 1
    print_header(paths[0], ctx, reps, notes)
    print_tables(table, order, separate)
    print_bars(table, order, separate)
    if describe:
        print_describe(table, order)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
