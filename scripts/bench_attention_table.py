#!/usr/bin/env python3
"""\\brief Turn abft_bench_attention JSON output into Markdown tables and the attention bar.

Usage: scripts/bench_attention_table.py [--note TEXT]... FILE.json

Per shape (batch 1, heads h, head_dim d, q_len = kv_len = s, causal or not):
forward and backward GFLOP/s of the fused engine protected (policy correct),
unprotected (off) and of the naive unfused baseline (abft_sgemm + a row
softmax); the ABFT overhead = protected time / off time - 1 (the median of the
per-iteration ratios: the variants alternate inside each iteration); the
fused engine's speed-up over the naive baseline (naive time / off time); and
the fused forward (off) GFLOP/s as a fraction of our GEMM's: square
n = 2048 (policy off, the "GEMM GFLOP/s" of the bar) and attention-shaped
(S = Q K^T, s x s x d, then O = P V, s x d x s, policy off). The square
reference is the one each forward row measured around its own loop (same
minutes: the machine is shared) when present. Then our GEMM
rows, the outputs' agreement with the naive baseline, and the bar:
"ABFT overhead <= 10 % forward and backward; fused forward at seq >= 1024
reaches >= 50 % of our GEMM GFLOP/s", judged on the medians over the shapes
(the worst shape is printed next to it). Rows measured while other processes
kept more than 0.2 CPUs busy (counter other_load) are marked ⚠; when some rows
are clean the bar is judged on those, and given over all rows too.

GFLOP/s: forward 4 * b * h * d * (admissible query-key pairs: s^2, causal
s(s+1)/2), backward 2.5 x forward. Figures are medians over repetitions (the
median aggregate when present, else the median of the single runs).
Standard library only.
"""
import statistics
import sys

from bench_common import (git_commit, load_cells, ok, params, parse_args, print_errors,
                          print_machine_lines, print_notes)

BAR_OVERHEAD = 10.0   # % protected vs off, forward and backward
BAR_FRACTION = 50.0   # % of our GEMM GFLOP/s, fused forward, seq >= BAR_MIN_SEQ
BAR_MIN_SEQ = 1024
ERR_WARN = 1e-4       # engine vs naive, relative to the output's largest magnitude
LOAD_WARN = 0.2       # CPUs kept busy by other processes during a row: its figures are suspect
GEMM_REF = ("gemm", "n:2048")

FIELDS = {k: k for k in ("prot_GFLOP/s", "off_GFLOP/s", "naive_GFLOP/s", "prot_s", "off_s",
                         "naive_s", "vs_off", "naive_vs_off", "err_off", "err_prot", "checks",
                         "detected", "flop", "gemm_GFLOP/s", "other_load")}


def split_name(run_name):
    """'attn_fwd/h:12,d:64,s:1024,causal:0/manual_time' -> ('attn_fwd', 'h:12,...', 'row')."""
    parts = run_name.split("/")
    if len(parts) < 2 or parts[0] not in ("attn_fwd", "attn_bwd", "gemm", "gemm_attn"):
        return None
    return parts[0], parts[1], "row"


def fmt(cell, field, pattern="%.1f"):
    if cell is None:
        return "—"
    if cell.get("error"):
        return "error"
    return pattern % cell[field] if cell.get(field) is not None else "—"


def pct(ratio):
    return "—" if ratio is None else "%+.1f %%" % ((ratio - 1.0) * 100.0)


def shape_text(p):
    return "h%d d%d s%d%s" % (p["h"], p["d"], p["s"], " causal" if p.get("causal") else "")


def print_header(path, ctx, reps, notes):
    print("## Fused attention: protected vs unprotected vs naive (our GEMM), one run\n")
    print("- Commit: %s" % (git_commit(__file__) or "? (not a git checkout)"))
    print_machine_lines(ctx, "the naive baseline", "threads",
                        "attention kernel: `%s`; sgemm kernel: `%s`"
                        % (ctx.get("abft_attention_kernel", "?"), ctx.get("abft_sgemm_kernel", "?")))
    print("- Date: %s; `%s` (case set: %s); figures are medians of %d repetition(s) (each "
          "itself the median over its iterations); protected = ABFT_POLICY_CORRECT, off = "
          "ABFT_POLICY_OFF, naive = per head S = scale Q K^T and O = P V (abft_sgemm, off) "
          "around a row softmax, backward likewise (5 GEMMs per head); the variants alternate "
          "inside each iteration" % (ctx.get("date", "?"), path, ctx.get("case_set", "?"), reps))
    print("- Shapes: batch 1, kv_heads = heads, q_len = kv_len = s, fp32, no mask; GFLOP/s: "
          "forward 4·b·h·d·pairs (pairs = s² or, causal, s(s+1)/2), backward 2.5 × forward "
          "(FlashAttention's convention); the naive causal path works by blocks of 128 query "
          "rows and is credited with the same flops")
    print_notes(notes)


def attention_rows(table, order):
    """[(params, fwd cell, bwd cell)] sorted by h, d, causal, s."""
    shapes = {}
    for case in order:
        kind, label = case
        if kind in ("attn_fwd", "attn_bwd"):
            shapes.setdefault(label, {})[kind] = table.get(case, {}).get("row")
    rows = [(params(label), cells.get("attn_fwd"), cells.get("attn_bwd"))
            for label, cells in shapes.items()]
    rows.sort(key=lambda r: (r[0]["h"], r[0]["d"], r[0].get("causal", 0), r[0]["s"]))
    return rows


def gemm_rate(table, key, field="off_GFLOP/s"):
    cell = table.get(key, {}).get("row")
    return cell[field] if ok(cell, field) else None


def fraction(fwd, ref, field="off_GFLOP/s"):
    if ok(fwd, field) and ref:
        return 100.0 * fwd[field] / ref
    return None


def gemm_ref(fwd, table):
    """Our square-2048 GEMM GFLOP/s (off) for a forward row: the row's own bracket
    measurement (same minutes) when present, else the separate gemm/n:2048 row."""
    return fwd["gemm_GFLOP/s"] if ok(fwd, "gemm_GFLOP/s") else gemm_rate(table, GEMM_REF)


def speedup(cell):
    """naive time / off time, bold when the fused engine is slower than the naive one."""
    if not ok(cell, "naive_vs_off"):
        return "—"
    r = cell["naive_vs_off"]
    return ("**%.2fx**" if r < 1.0 else "%.2fx") % r


def print_attention(table, order):
    rows = attention_rows(table, order)
    sq = gemm_rate(table, GEMM_REF)
    print("### Attention (GFLOP/s; overhead = protected / off - 1; fused / naive = naive time / "
          "off time, **bold** when the fused engine is slower)\n")
    print("| shape | fwd prot | fwd off | fwd naive | fwd ovh | fwd fused / naive | bwd prot | "
          "bwd off | bwd naive | bwd ovh | bwd fused / naive | fwd off / GEMM 2048 (same row) | "
          "fwd off / GEMM attn |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    errors = []
    for p, f, b in rows:
        att = gemm_rate(table, ("gemm_attn", "s:%d,d:%d" % (p["s"], p["d"])))
        fr_sq, fr_att = fraction(f, gemm_ref(f, table) if f else sq), fraction(f, att)
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            shape_text(p) + (" ⚠" if loaded(f) or loaded(b) else ""), fmt(f, "prot_GFLOP/s"), fmt(f, "off_GFLOP/s"), fmt(f, "naive_GFLOP/s"),
            pct(f["vs_off"]) if ok(f, "vs_off") else "—", speedup(f),
            fmt(b, "prot_GFLOP/s"), fmt(b, "off_GFLOP/s"), fmt(b, "naive_GFLOP/s"),
            pct(b["vs_off"]) if ok(b, "vs_off") else "—", speedup(b),
            "—" if fr_sq is None else "%.0f %%" % fr_sq,
            "—" if fr_att is None else "%.0f %%" % fr_att))
        for kind, cell in (("fwd", f), ("bwd", b)):
            if cell and cell.get("error"):
                errors.append("attn_%s %s: %s" % (kind, shape_text(p), cell["error"]))
    print()
    print_errors(errors)
    return rows


def print_gemm(table, order):
    print("### Our GEMM (abft_sgemm, row-major; attention-shaped = S = Q K^T (s×s×d) then "
          "O = P V (s×d×s), 4·s²·d flops)\n")
    print("| GEMM | off GFLOP/s | correct GFLOP/s | correct overhead |")
    print("|---|---:|---:|---:|")
    errors = []
    for case in order:
        if case[0] not in ("gemm", "gemm_attn"):
            continue
        cell = table.get(case, {}).get("row")
        print("| %s/%s%s | %s | %s | %s |" % (case[0], case[1], " ⚠" if loaded(cell) else "",
                                              fmt(cell, "off_GFLOP/s"),
                                            fmt(cell, "prot_GFLOP/s"),
                                            pct(cell["vs_off"]) if ok(cell, "vs_off") else "—"))
        if cell and cell.get("error"):
            errors.append("%s/%s: %s" % (case + (cell["error"],)))
    print()
    print_errors(errors)


def print_checks(rows):
    """Agreement with the naive baseline, checks per protected call, false alarms."""
    lines = []
    for kind, idx in (("forward", 1), ("backward", 2)):
        errs = [(r[idx]["err_off"], r[idx]["err_prot"], r[0]) for r in rows
                if ok(r[idx], "err_off") and r[idx]["err_off"] >= 0]
        if errs:
            worst = max(errs, key=lambda e: max(e[0], e[1]))
            bad = [e for e in errs if max(e[0], e[1]) > ERR_WARN]
            lines.append("%s: largest |engine - naive| / max|naive| %.1e (off) / %.1e (protected) "
                         "at %s%s" % (kind, worst[0], worst[1], shape_text(worst[2]),
                                      "; **above %.0e at %d shape(s): %s**" % (
                                          ERR_WARN, len(bad), ", ".join(shape_text(e[2]) for e in bad))
                                      if bad else ""))
        nochecks = [shape_text(r[0]) for r in rows if ok(r[idx], "checks") and r[idx]["checks"] == 0]
        if nochecks:
            lines.append("%s: **no checksum verification reported by the protected call** at %s"
                         % (kind, ", ".join(nochecks)))
        alarms = [shape_text(r[0]) for r in rows if ok(r[idx], "detected") and r[idx]["detected"] > 0]
        if alarms:
            lines.append("%s: **faults detected on clean data (false positives)** at %s"
                         % (kind, ", ".join(alarms)))
    busy = ["%s %s (%.1f)" % (k, shape_text(r[0]), r[idx]["other_load"]) for r in rows
            for k, idx in (("fwd", 1), ("bwd", 2)) if loaded(r[idx])]
    if busy:
        lines.append("⚠ measured while other processes kept more than %.1f CPUs busy (mean CPUs "
                     "in brackets; the figures of these rows are suspect): %s"
                     % (LOAD_WARN, ", ".join(busy)))
    slower = ["%s %s" % (k, shape_text(r[0])) for r in rows for k, idx in (("fwd", 1), ("bwd", 2))
              if ok(r[idx], "naive_vs_off") and r[idx]["naive_vs_off"] < 1.0]
    if slower:
        lines.append("fused engine (off) slower than the naive baseline at: " + ", ".join(slower))
    if lines:
        print("### Checks\n")
        for line in lines:
            print("- " + line)
        print()


def med_worst(values, worst_is_max):
    """(median, (worst value, its shape)) over [(value, params)], or (None, None)."""
    if not values:
        return None, None
    med = statistics.median(v for v, _ in values)
    worst = (max if worst_is_max else min)(values, key=lambda x: x[0])
    return med, worst


def loaded(cell):
    """True when other processes kept more than LOAD_WARN CPUs busy during the row."""
    return ok(cell, "other_load") and cell["other_load"] > LOAD_WARN


def row_loaded(r):
    return loaded(r[1]) or loaded(r[2])


def show_ovh(mw):
    med, worst = mw
    if med is None:
        return "n/a"
    return "median %+.1f %% (worst %+.1f %% at %s)" % (med, worst[0], shape_text(worst[1]))


def show_frac(mw):
    med, worst = mw
    if med is None:
        return "n/a"
    return "median %.0f %% (lowest %.0f %% at %s)" % (med, worst[0], shape_text(worst[1]))


def attn_gemm_rate(table, p):
    return gemm_rate(table, ("gemm_attn", "s:%d,d:%d" % (p["s"], p["d"])))


def bar_figures(table, rows):
    """Medians and worst shapes of the bar over rows."""
    ovh = {}
    for kind, idx in (("forward", 1), ("backward", 2)):
        ovh[kind] = med_worst([((r[idx]["vs_off"] - 1.0) * 100.0, r[0]) for r in rows
                               if ok(r[idx], "vs_off")], True)
    long_rows = [r for r in rows if r[0]["s"] >= BAR_MIN_SEQ and r[1]]
    sq_cor = gemm_rate(table, GEMM_REF, "prot_GFLOP/s")

    def fr(pairs):
        return med_worst([(v, p) for v, p in pairs if v is not None], False)
    frac = fr((fraction(r[1], gemm_ref(r[1], table)), r[0]) for r in long_rows)
    frac_prot = fr((fraction(r[1], sq_cor, "prot_GFLOP/s"), r[0]) for r in long_rows)
    frac_att = fr((fraction(r[1], attn_gemm_rate(table, r[0])), r[0]) for r in long_rows)
    n_long = len([r for r in long_rows if fraction(r[1], gemm_ref(r[1], table)) is not None])
    return ovh, frac, frac_prot, frac_att, n_long


def print_bar_lines(table, rows, what):
    ovh, frac, frac_prot, frac_att, n_long = bar_figures(table, rows)
    met_ovh = all(ovh[k][0] is not None and ovh[k][0] <= BAR_OVERHEAD for k in ovh)
    met_frac = frac[0] is not None and frac[0] >= BAR_FRACTION
    sq_off, sq_cor = gemm_rate(table, GEMM_REF), gemm_rate(table, GEMM_REF, "prot_GFLOP/s")
    in_row = [r[1]["gemm_GFLOP/s"] for r in rows
              if r[0]["s"] >= BAR_MIN_SEQ and ok(r[1], "gemm_GFLOP/s")]
    print("- Overhead (protected / off - 1, %s, %d shapes): forward %s; backward %s — **%s**"
          % (what, len(rows), show_ovh(ovh["forward"]), show_ovh(ovh["backward"]),
             "met" if met_ovh else ("n/a" if any(v[0] is None for v in ovh.values()) else "miss")))
    ref_txt = ("measured in each row: %.1f ... %.1f GFLOP/s; separate row: %s"
               % (min(in_row), max(in_row), "—" if sq_off is None else "%.1f" % sq_off)) \
        if in_row else ("separate row: %s GFLOP/s" % ("—" if sq_off is None else "%.1f" % sq_off))
    print("- Fused forward (off) at seq >= %d vs our GEMM (square 2048, off; %s), %s, %d "
          "shapes: %s — **%s**" % (BAR_MIN_SEQ, ref_txt, what, n_long, show_frac(frac),
                                   "met" if met_frac else ("n/a" if frac[0] is None else "miss")))
    print("- Also (%s): protected forward vs GEMM correct (separate row, %s GFLOP/s): %s; off "
          "forward vs the attention-shaped GEMM pair of the same s and d: %s"
          % (what, "—" if sq_cor is None else "%.1f" % sq_cor, show_frac(frac_prot),
             show_frac(frac_att)))


def print_bar(table, rows):
    print("### Bar\n")
    print("**ABFT overhead <= %.0f %% forward and backward; fused forward at seq >= %d reaches "
          ">= %.0f %% of our GEMM GFLOP/s** (judged on the medians over the shapes)\n"
          % (BAR_OVERHEAD, BAR_MIN_SEQ, BAR_FRACTION))
    clean = [r for r in rows if not row_loaded(r)]
    if len(clean) == len(rows):
        print_bar_lines(table, rows, "all shapes")
    elif clean:
        print_bar_lines(table, clean, "shapes measured without other load")
        print_bar_lines(table, rows, "all shapes, loaded ones included")
    else:
        print("- **Every row was measured while other processes kept > %.1f CPUs busy: the "
              "figures below are unreliable**" % LOAD_WARN)
        print_bar_lines(table, rows, "all shapes")
    print()


def main(argv):
    _, notes, paths = parse_args(argv, ())
    if len(paths) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        ctx, table, order, reps = load_cells(paths[0], split_name, FIELDS, count_singles=True)
    except (OSError, ValueError) as e:
        print("bench_attention_table: cannot read %s: %s" % (paths[0], e), file=sys.stderr)
        return 1
    print_header(paths[0], ctx, reps, notes)
    rows = print_attention(table, order)
    print_gemm(table, order)
    print_checks(rows)
    print_bar(table, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
