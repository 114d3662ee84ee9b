#!/usr/bin/env python3
"""\\brief Turn abft_bench_fftw JSON output (the FFTW3 shim against FFTW through the same
FFTW API) into Markdown tables and the bar of the drop-in FFTW issue.

Usage: scripts/bench_fftw_table.py [--note TEXT]... FILE.json [FILE.json ...]

Files are grouped by their thread count (context 'threads'). In each group, the
run with ABFT_POLICY unset or 'correct' (protection on) gives the abft and FFTW
columns; a run with ABFT_POLICY=off (context 'abft_policy'), when given, adds
an "abft off" column whose ratio is against the protected run's FFTW median
(a separate process: a reported figure, not the bar). One table per thread
count with a row per (precision, kind, n): abft GFLOP/s, FFTW GFLOP/s, abft /
FFTW, the largest output difference from FFTW; then the bar: geometric means
of abft / FFTW over n = 2^10 ... 2^20, c2c and r2c, per precision and overall,
bar >= 0.8x; with several thread counts, the same bar once more with each library at
its fastest thread count per case. Figures are medians of the repetitions (the median aggregate when
present, else the median of the single runs). Standard library only.
"""
import sys

from bench_common import (fmt_gflops as common_fmt_gflops, geomean, git_commit, load_cells,
                          parse_args, print_errors, print_machine_lines, print_notes)

PRECISIONS = ("float", "double")
KINDS = ("c2c", "r2c")
BAR_RATIO = 0.80        # abft (protected) >= 0.8x FFTW, geometric mean
BAR_LOG2 = (10, 20)     # n = 2^10 ... 2^20
FIELDS = {"GFLOP/s": "GFLOP/s", "err": "err_vs_fftw"}


def split_name(run_name):
    """'fftw_api/double/c2c/1024/lib:abft/real_time' -> ('double', 'c2c', 1024, 'abft')."""
    parts = run_name.split("/")
    if len(parts) < 5 or parts[0] != "fftw_api" or not parts[4].startswith("lib:"):
        return None
    try:
        n = int(parts[3])
    except ValueError:
        return None
    return parts[1], parts[2], n, parts[4][4:]


def ok(cell):
    return cell is not None and not cell.get("error") and (cell.get("GFLOP/s") or 0) > 0


def in_bar(n):
    e = n.bit_length() - 1
    return n > 0 and n & (n - 1) == 0 and BAR_LOG2[0] <= e <= BAR_LOG2[1]


def is_off(ctx):
    return str(ctx.get("abft_policy", "")).strip().lower().startswith("off")


def group_runs(loaded):
    """{threads: {'on': (path, ctx, table, order, reps), 'off': ...}}, in first-seen order;
    a later file of the same kind and thread count replaces an earlier one."""
    groups = {}
    for item in loaded:
        ctx = item[1]
        groups.setdefault(ctx.get("threads", "?"), {})["off" if is_off(ctx) else "on"] = item
    return groups


def ratio(a, b):
    return a["GFLOP/s"] / b["GFLOP/s"] if ok(a) and ok(b) else None


def fmt_gflops(cell):
    return common_fmt_gflops(cell, "GFLOP/s", "%.2f")


def fmt_x(r):
    return "—" if r is None else "%.2fx" % r


def print_header(groups, reps, notes):
    first = next(iter(groups.values()))
    ctx = (first.get("on") or first.get("off"))[1]
    print("## FFTW API: abft's FFTW3 shim vs FFTW, same API, same process\n")
    commit = git_commit(__file__)
    print("- Commit: %s" % (commit or "? (not a git checkout)"))
    print_machine_lines(ctx, "FFTW", "fftw_threads", "FFTW: %s, planner %s (both libraries)"
                        % (ctx.get("fftw_version", "?"), ctx.get("fftw_planner", "?")))
    print("- ours: `%s` (fftw_plan_dft_1d resolved in `%s`); peer: `%s` (resolved in `%s`)"
          % (ctx.get("abft_lib", "?"), ctx.get("abft_lib_resolved", "?"),
             ctx.get("peer_lib", "?"), ctx.get("peer_lib_resolved", "?")))
    if ctx.get("same_library") == "yes":
        print("- **Both sets are the same library (harness test): the ratios compare FFTW "
              "with itself.**")
    print("- Date: %s; figures are medians of %d randomly interleaved repetitions; GFLOP/s = "
          "5 n log2 n (c2c) or 2.5 n log2 n (r2c) per transform / wall time, FFTW's convention; "
          "1D, forward, out of place, arrays from each library's fftw_malloc, same random input"
          % (ctx.get("date", "?"), reps))
    print("- Threads: fftw_plan_with_nthreads(T) in both libraries and OMP_NUM_THREADS=T "
          "(omp_num_threads in the run: %s); protection: ABFT_POLICY unset = correct"
          % ctx.get("omp_num_threads", "?"))
    print("- Bar: abft (protection on) >= %.1fx FFTW, geometric mean over c2c and r2c, "
          "n = 2^%d ... 2^%d, float and double" % (BAR_RATIO, BAR_LOG2[0], BAR_LOG2[1]))
    print_notes(notes)


def print_group(threads, runs):
    on, off = runs.get("on"), runs.get("off")
    files = ", ".join("`%s`" % r[0] for r in (on, off) if r)
    print("### %s thread%s (%s)\n" % (threads, "" if str(threads) == "1" else "s", files))
    if on is None:
        print("(no protected run for this thread count)\n")
        return {}
    table, order = on[2], on[3]
    off_table = off[2] if off else {}
    have_off = bool(off)
    print("| precision | kind | n | abft GFLOP/s | FFTW GFLOP/s | abft / FFTW |%s max err vs FFTW |"
          % (" abft off GFLOP/s | off / FFTW |" if have_off else ""))
    print("|---|---|---:|---:|---:|---:|%s---:|" % ("---:|---:|" if have_off else ""))
    errors, ratios = [], {}
    cases = sorted(order, key=lambda c: (PRECISIONS.index(c[0]) if c[0] in PRECISIONS else 9,
                                         KINDS.index(c[1]) if c[1] in KINDS else 9, c[2]))
    for case in cases:
        cells = table.get(case, {})
        a, f = cells.get("abft"), cells.get("fftw")
        o = (off_table.get(case) or {}).get("abft")
        r, ro = ratio(a, f), ratio(o, f)
        if in_bar(case[2]):
            ratios.setdefault((case[0], case[1]), []).append((r, ro))
        err = a.get("err") if a and not a.get("error") else None
        row = "| %s | %s | %d | %s | %s | %s |" % (case[0], case[1], case[2], fmt_gflops(a),
                                                  fmt_gflops(f), fmt_x(r))
        if have_off:
            row += " %s | %s |" % (fmt_gflops(o), fmt_x(ro))
        large = err is not None and err > (1e-4 if case[0] == "float" else 1e-10)
        row += " %s |" % ("—" if err is None else "%.1e%s" % (err, " **(large)**" if large else ""))
        print(row)
        for who, cell in (("abft", a), ("fftw", f), ("abft off", o)):
            if cell and cell.get("error"):
                errors.append("%s/%s/%d/%s: %s" % (case + (who, cell["error"])))
    print()
    print_errors(errors)
    print_bar(ratios, have_off)
    return ratios


def print_bar(ratios, have_off):
    lo, hi = BAR_LOG2
    print("**Bar**: geometric means of abft / FFTW, n = 2^%d ... 2^%d\n" % (lo, hi))
    print("| set | cases | abft / FFTW (protected) |%s bar >= %.1fx |"
          % (" off / FFTW |" if have_off else "", BAR_RATIO))
    print("|---|---:|---:|%s---|" % ("---:|" if have_off else ""))
    rows = []
    for prec in PRECISIONS:
        for kind in KINDS:
            rows.append(("%s %s" % (prec, kind), [(prec, kind)], False))
        rows.append(("%s (c2c + r2c)" % prec, [(prec, k) for k in KINDS], True))
    rows.append(("**overall** (float + double, c2c + r2c)",
                 [(p, k) for p in PRECISIONS for k in KINDS], True))
    expected = hi - lo + 1
    for label, keys, judged in rows:
        pairs = [p for k in keys for p in ratios.get(k, [])]
        on = [p[0] for p in pairs if p[0] is not None]
        offs = [p[1] for p in pairs if p[1] is not None]
        g, go = geomean(on), geomean(offs)
        if not judged:
            verdict = ""
        elif g is None:
            verdict = "n/a"
        else:
            verdict = "met" if g >= BAR_RATIO else "**miss**"
            if len(on) < expected * len(keys):
                verdict += " (%d of %d cases)" % (len(on), expected * len(keys))
        row = "| %s | %d | %s |" % (label, len(on), "—" if g is None else "%.2fx" % g)
        if have_off:
            row += " %s |" % ("—" if go is None else "%.2fx" % go)
        print(row + " %s |" % verdict)
    print()


def print_best(groups):
    """With several thread counts: each library at its fastest thread count per case (FFTW's
    2-thread plans lose to its serial ones at small n on a 2-vCPU machine), the same bar."""
    runs = [r["on"] for r in groups.values() if r.get("on")]
    if len(runs) < 2:
        return
    print("### Each library at its best thread count (%s)\n"
          % " / ".join(str(t) for t, r in groups.items() if r.get("on")))
    ratios = {}
    for case in sorted({c for r in runs for c in r[2]}):
        if not in_bar(case[2]):
            continue
        best = {}
        for who in ("abft", "fftw"):
            vals = [r[2].get(case, {}).get(who) for r in runs]
            vals = [c["GFLOP/s"] for c in vals if ok(c)]
            best[who] = max(vals) if vals else None
        if best["abft"] and best["fftw"]:
            ratios.setdefault((case[0], case[1]), []).append((best["abft"] / best["fftw"], None))
    print_bar(ratios, False)


def main(argv):
    _, notes, paths = parse_args(argv, ())
    if not paths:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    loaded = []
    for p in paths:
        try:
            loaded.append((p,) + load_cells(p, split_name, FIELDS, count_singles=True))
        except (OSError, ValueError) as e:
            print("bench_fftw_table: cannot read %s: %s" % (p, e), file=sys.stderr)
    if not loaded:
        return 1
    groups = group_runs(loaded)
    print_header(groups, max(item[4] for item in loaded), notes)
    for threads, runs in groups.items():
        print_group(threads, runs)
    print_best(groups)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
