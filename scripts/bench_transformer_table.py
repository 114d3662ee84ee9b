#!/usr/bin/env python3
"""\\brief Turn abft_bench_transformer JSON output into a Markdown table and the issue-7 bar.

Usage: scripts/bench_transformer_table.py [--note TEXT]... FILE.json

Per model (a preset with random weights) and case -- prefill (one prompt of seq tokens into a
cleared KV cache), decode (steps x one token for a batch of sequences after a seq-token
prefill), train (zero grads + Model::loss with grads + AdamW update, B x T tokens) -- the
median time of one unit unprotected (policy off) and protected (policy correct), the overhead
= correct / off - 1 (the median of the per-iteration ratios: the two variants run back to back
inside each iteration, the first alternating), and tokens/s of both. Then the checks (ABFT
verifications per protected unit, false alarms) and the bar: "end-to-end overhead <= 8 % for
inference (prefill and decode) and for training", judged on every row (the worst row is
printed). Rows measured while other processes kept more than 0.2 CPUs busy (counter
other_load) are marked ⚠. Figures are medians over repetitions (the median aggregate when
present, else the median of the single runs). Standard library only.
"""
import math
import sys

from bench_common import (git_commit, load_cells, lscpu, ok, params, parse_args, print_errors,
                          print_notes)

BAR_OVERHEAD = 8.0  # %, correct vs off, inference and training
LOAD_WARN = 0.2     # CPUs kept busy by other processes during a row: its figures are suspect
KINDS = ("prefill", "decode", "train")

FIELDS = {k: k for k in ("off_s", "correct_s", "off_tok_per_s", "correct_tok_per_s", "tok_per_s",
                         "vs_off", "tokens", "update_s", "loss", "checks", "detected",
                         "other_load")}


def split_name(run_name):
    """'prefill/model:gpt2-small,seq:256/manual_time' -> ('prefill', 'model:...', 'row')."""
    parts = run_name.split("/")
    if len(parts) < 2 or parts[0] not in KINDS:
        return None
    return parts[0], parts[1], "row"


def loaded(cell):
    return ok(cell, "other_load") and cell["other_load"] > LOAD_WARN


def overhead(cell):
    """(percent, paired?) from vs_off, else from the medians (marked †), else None."""
    if ok(cell, "vs_off") and cell["vs_off"] > 0:
        return (cell["vs_off"] - 1.0) * 100.0, True
    if ok(cell, "off_s") and ok(cell, "correct_s") and cell["off_s"] > 0:
        return (cell["correct_s"] / cell["off_s"] - 1.0) * 100.0, False
    return None


def ms(cell, field):
    if cell is None:
        return "—"
    if cell.get("error"):
        return "error"
    return "%.1f" % (cell[field] * 1e3) if cell.get(field) is not None else "—"


def rate(cell, field):
    if cell is None:
        return "—"
    if cell.get("error"):
        return "error"
    return "%.1f" % cell[field] if cell.get(field) is not None else "—"


def case_text(kind, p):
    if kind == "prefill":
        return "prefill, %d × %d tokens" % (p.get("batch", 1), p.get("seq", 0))
    if kind == "decode":
        return "decode, %d seqs × %d steps after %d" % (p.get("batch", 0), p.get("steps", 0),
                                                        p.get("seq", 0))
    return "train step, B %d × T %d (+ AdamW)" % (p.get("batch", 0), p.get("seq", 0))


def rows_of(table, order):
    """[(kind, params, cell)] in run order (model by model)."""
    return [(kind, params(label), table.get((kind, label), {}).get("row")) for kind, label in order]


def print_header(path, ctx, reps, notes):
    print("## Transformer runtime: protected (correct) vs unprotected (off), one run\n")
    print("- Commit: %s" % (git_commit(__file__) or "? (not a git checkout)"))
    model, cores, cpus = lscpu()
    print("- Machine: %s, %s cores (%s logical CPUs), AVX-512: %s, %s MHz"
          % (model or ctx.get("cpu_model") or "unknown CPU", cores or ctx.get("num_cpus", "?"),
             cpus or ctx.get("num_cpus", "?"), ctx.get("cpu_avx512f", "?"),
             ctx.get("mhz_per_cpu", "?")))
    load_avg = ctx.get("load_avg") or []
    print("- Threads: %s (OpenMP); load average at start: %s"
          % (ctx.get("threads", "?"), " ".join("%.2f" % x for x in load_avg) or "?"))
    print("- abft %s, ISA %s; sgemm kernel: `%s`; attention kernel: `%s`"
          % (ctx.get("abft_version", "?"), ctx.get("abft_isa", "?"),
             ctx.get("abft_sgemm_kernel", "?"), ctx.get("abft_attention_kernel", "?")))
    print("- Date: %s; `%s` (case set: %s, models: %s); figures are medians of %d repetition(s) "
          "(each itself the median over its iterations); off = ABFT_POLICY_OFF, correct = "
          "ABFT_POLICY_CORRECT on the same Model (random weights), the two back to back inside "
          "each iteration, the first alternating; overhead = median of the per-iteration ratios "
          "correct / off, minus 1" % (ctx.get("date", "?"), path, ctx.get("case_set", "?"),
                                      ctx.get("models", "?"), reps))
    print("- Units: prefill = one Model::decode of the prompt into a cleared KV cache; decode = "
          "steps × (Model::decode of one token per sequence + greedy sampling), after an untimed "
          "prefill; train = zero the gradients + Model::loss with gradients (forward, "
          "cross-entropy, backward) + one AdamW update (included: it is part of the step users "
          "run)")
    print_notes(notes)


def print_rows(rows):
    print("### Time per unit (ms), overhead, tokens/s\n")
    print("| model | case | off ms | correct ms | overhead | off tok/s | correct tok/s | "
          "ABFT checks / unit |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    errors, derived = [], False
    for kind, p, cell in rows:
        ovh = overhead(cell)
        if ovh is not None and not ovh[1]:
            derived = True
        print("| %s | %s%s | %s | %s | %s | %s | %s | %s |" % (
            p.get("model", "?"), case_text(kind, p), " ⚠" if loaded(cell) else "",
            ms(cell, "off_s"), ms(cell, "correct_s"),
            "—" if ovh is None else "%+.1f %%%s" % (ovh[0], "" if ovh[1] else " †"),
            rate(cell, "off_tok_per_s"), rate(cell, "correct_tok_per_s"),
            "%d" % cell["checks"] if ok(cell, "checks") else "—"))
        if cell and cell.get("error"):
            errors.append("%s %s: %s" % (kind, p.get("model", "?"), cell["error"]))
    print()
    if derived:
        print("† from the two medians (no paired ratio in the JSON)\n")
    print_errors(errors)


def print_checks(rows):
    lines = []
    for kind, p, cell in rows:
        what = "%s %s" % (kind, p.get("model", "?"))
        if kind == "train" and ok(cell, "update_s") and ok(cell, "correct_s"):
            lines.append("%s: the AdamW update takes %.0f ms of the %.0f ms protected step"
                         % (what, cell["update_s"] * 1e3, cell["correct_s"] * 1e3))
        if kind == "train" and ok(cell, "loss") and not math.isfinite(cell["loss"]):
            lines.append("%s: **non-finite loss %s**" % (what, cell["loss"]))
        if ok(cell, "checks") and cell["checks"] == 0:
            lines.append("%s: **no ABFT verification reported by the protected unit**" % what)
        if ok(cell, "detected") and cell["detected"] > 0:
            lines.append("%s: **%d detection(s) on clean data (false positives)**"
                         % (what, cell["detected"]))
        if loaded(cell):
            lines.append("⚠ %s measured while other processes kept %.1f CPUs busy: its figures "
                         "are suspect" % (what, cell["other_load"]))
    if lines:
        print("### Checks\n")
        for line in lines:
            print("- " + line)
        print()


def judge(rows, kinds):
    """(worst overhead %, its text, rows judged, all measured?) over rows of the kinds."""
    vals = []
    missing = 0
    for kind, p, cell in rows:
        if kind not in kinds:
            continue
        ovh = overhead(cell)
        if ovh is None:
            missing += 1
        else:
            vals.append((ovh[0], "%s %s" % (kind, p.get("model", "?"))))
    if not vals:
        return None, None, 0, False
    worst = max(vals, key=lambda v: v[0])
    return worst[0], worst[1], len(vals), missing == 0


def print_bar(rows):
    print("### Bar\n")
    print("**End-to-end overhead <= %.0f %% for inference (prefill, decode) and for training "
          "(the step, AdamW included)**, every row\n" % BAR_OVERHEAD)
    for what, kinds in (("inference", ("prefill", "decode")), ("training", ("train",))):
        worst, where, n, complete = judge(rows, kinds)
        if worst is None:
            print("- %s: n/a (no row)" % what.capitalize())
            continue
        verdict = "met" if worst <= BAR_OVERHEAD and complete else "miss"
        if worst <= BAR_OVERHEAD and not complete:
            verdict = "n/a (rows missing)"
        print("- %s (%d rows): worst %+.1f %% (%s) — **%s**" % (what.capitalize(), n, worst, where,
                                                             verdict))
    if any(loaded(cell) for _, _, cell in rows):
        print("- ⚠ some rows ran under load from other processes: re-measure on a quiet machine")
    print()


def main(argv):
    _, notes, paths = parse_args(argv, ())
    if len(paths) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        ctx, table, order, reps = load_cells(paths[0], split_name, FIELDS, count_singles=True)
    except (OSError, ValueError) as e:
        print("bench_transformer_table: cannot read %s: %s" % (paths[0], e), file=sys.stderr)
        return 1
    rows = rows_of(table, order)
    print_header(paths[0], ctx, reps, notes)
    print_rows(rows)
    print_checks(rows)
    print_bar(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
