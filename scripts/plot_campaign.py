#!/usr/bin/env python3
"""Plots of fault-injection campaigns (JSON summaries of `abft campaign --json`):
  bits_<family>.png  outcome fractions by flipped bit position, one panel per campaign of the
                     family (gemm, blas, fft, attention, train) that flipped random single bits
  sites.png          outcome fractions by injection site, one bar per (campaign, site)
Outcomes: detected and repaired (corrected + recomputed), detected otherwise (DETECT policy,
uncorrectable), masked (not flagged, within the escape bound), SDC.
Usage: plot_campaign.py [--out DIR] FILE.json...   (needs matplotlib: python3-matplotlib)"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"repaired": "#2b8a3e", "detected": "#74b816", "masked": "#adb5bd", "sdc": "#e03131"}


def family(name):
    for f in ("gemm", "fft", "attn", "train"):
        if name.startswith(f):
            return "attention" if f == "attn" else f
    return "blas"


def fractions(g):
    n = g["landed"]
    if not n:
        return None
    rep = g["corrected"] + g["recomputed"]
    det = g["detected"] + g["uncorrectable"] + g["bad-repair"]
    return {"repaired": rep / n, "detected": det / n, "masked": g["masked"] / n, "sdc": g["sdc"] / n}


def stacked(ax, labels, fr, horizontal=False):
    base = [0.0] * len(labels)
    for key in ("repaired", "detected", "masked", "sdc"):
        vals = [f[key] if f else 0.0 for f in fr]
        if horizontal:
            ax.barh(labels, vals, left=base, color=COLORS[key], label=key, height=0.8)
        else:
            ax.bar(labels, vals, bottom=base, color=COLORS[key], label=key, width=0.85)
        base = [b + v for b, v in zip(base, vals)]


def plot_bits(runs, out):
    by_family = {}
    for name, j in runs:
        if "bitflip, bit random" not in j["settings"] or "fault(s)/call (" in j["settings"]:
            continue
        if not j.get("by_bit"):
            continue
        by_family.setdefault(family(name), []).append((name, j))
    written = []
    for fam, items in sorted(by_family.items()):
        fig, axes = plt.subplots(len(items), 1, figsize=(11, 2.3 * len(items) + 0.6), squeeze=False)
        for ax, (name, j) in zip(axes[:, 0], items):
            bits = sorted(j["by_bit"], key=int)
            stacked(ax, [int(b) for b in bits], [fractions(j["by_bit"][b]) for b in bits])
            ax.set_xlim(-0.6, len(bits) - 0.4)
            ax.set_ylim(0, 1)
            ax.set_ylabel("fraction")
            ax.set_title(f"{name}: {j['call']}  ({j['trials']} trials)", fontsize=9, loc="left")
        axes[-1, 0].set_xlabel("flipped bit (0 = mantissa LSB)")
        axes[0, 0].legend(ncol=4, fontsize=8, loc="lower right")
        fig.tight_layout()
        path = os.path.join(out, f"bits_{fam}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def plot_sites(runs, out):
    labels, fr = [], []
    for name, j in runs:
        if "bitflip, bit random" not in j["settings"] or "fault(s)/call (" in j["settings"]:
            continue
        for site, g in sorted(j["by_site"].items()):
            if g["landed"]:
                labels.append(f"{name} / {site}")
                fr.append(fractions(g))
    if not labels:
        return []
    fig, ax = plt.subplots(figsize=(10, 0.22 * len(labels) + 1.2))
    stacked(ax, labels[::-1], fr[::-1], horizontal=True)
    ax.set_xlim(0, 1)
    ax.set_xlabel("fraction of landed faults (random single bit flips)")
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(ncol=4, fontsize=8, loc="lower right")
    fig.tight_layout()
    path = os.path.join(out, "sites.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def main(argv):
    out = "."
    if len(argv) >= 2 and argv[0] == "--out":
        out, argv = argv[1], argv[2:]
    runs = []
    for p in argv:
        with open(p) as f:
            runs.append((os.path.splitext(os.path.basename(p))[0], json.load(f)))
    os.makedirs(out, exist_ok=True)
    for path in plot_bits(runs, out) + plot_sites(runs, out):
        print(f"plot_campaign.py: wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1:])
