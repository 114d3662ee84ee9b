#!/usr/bin/env python3
"""Markdown table of fault-injection campaigns: one row per JSON summary written by
`abft campaign --json` (scripts/campaign.sh). Usage: campaign_table.py [--compact] FILE.json...
--compact: the columns docs/RELIABILITY.md §11 shows (no call description and settings)."""
import json
import os
import sys


def pct(a, b):
    return f"{100.0 * a / b:.2f}" if b else "-"


def fmt(x):
    if x is None:
        return "-"
    if x >= 1e300:
        return "inf"
    return f"{x:.3g}"


def main(paths, compact=False):
    rows = []
    for p in paths:
        try:
            with open(p) as f:
                rows.append((os.path.splitext(os.path.basename(p))[0], json.load(f)))
        except (OSError, ValueError) as e:
            print(f"campaign_table.py: skipping {p}: {e}", file=sys.stderr)
    if compact:
        print("| campaign | trials | landed | flagged % | repaired | masked | SDC | "
              "beyond bound: flagged | clean: false pos. | max escape / limit | s | verdict |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for name, j in rows:
            t, c = j["total"], j["clean"]
            verdict = "pass" if j["pass"] else "FAIL: " + j["failures"]
            print(f"| {name} | {j['trials']} | {t['landed']} | {pct(t['flagged'], t['landed'])} | "
                  f"{t['corrected'] + t['recomputed']} | {t['masked']} | {t['sdc']} | "
                  f"{t['beyond_bound_detected']} / {t['beyond_bound']} | "
                  f"{c['trials']}: {c['false_positives']} | {fmt(t['max_escape_change_over_limit'])} | "
                  f"{j['seconds']:.0f} | {verdict} |")
        return
    print("| campaign | call | faults | trials | landed | detected % | corrected | recomputed | "
          "masked | SDC | beyond bound: detected | clean trials: false pos. | max escape / limit | "
          "s | verdict |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, j in rows:
        t = j["total"]
        c = j["clean"]
        verdict = "pass" if j["pass"] else "FAIL: " + j["failures"]
        print(f"| {name} | {j['call']} | {j['settings']} | {j['trials']} | {t['landed']} | "
              f"{pct(t['flagged'], t['landed'])} | {t['corrected']} | {t['recomputed']} | "
              f"{t['masked']} | {t['sdc']} | {t['beyond_bound_detected']} / {t['beyond_bound']} | "
              f"{c['trials']}: {c['false_positives']} | {fmt(t['max_escape_change_over_limit'])} | "
              f"{j['seconds']:.0f} | {verdict} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    args = sys.argv[1:]
    compact = "--compact" in args
    main([a for a in args if a != "--compact"], compact)
