"""\\brief Helpers shared by bench_table.py (GEMM), bench_fft_table.py (FFT) and
bench_fftw_table.py (FFTW API).

Reading Google Benchmark JSON into median cells, the machine description from
lscpu, the git commit measured, the header lines the tables print, geometric
means, and the common command line (flags, --note TEXT, paths). Standard
library only.
"""
import json
import math
import os
import shutil
import statistics
import subprocess


def load_cells(path, split_name, fields, count_singles=False):
    """Read a Google Benchmark JSON file into median cells.

    split_name(run_name) gives (case..., variant) or None to skip the run;
    fields maps a cell key to the JSON counter it holds. A cell is the median
    aggregate when present, else the field-wise median of the single runs,
    plus 'error' (the error message of a failed run) and 'label'.
    Repetitions: the largest median aggregate's, and with count_singles the
    number of single runs of one key when larger.
    Return (context, {case: {variant: cell}}, case order, repetitions).
    """
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    singles, medians, errors, labels, order = {}, {}, {}, {}, []
    reps = 1
    for b in doc.get("benchmarks", []):
        key = split_name(b.get("run_name", b.get("name", "")))
        if key is None:
            continue
        case = key[:-1]
        if case not in order:
            order.append(case)
        if b.get("error_occurred"):
            errors[key] = b.get("error_message", "error")
            continue
        if b.get("label"):
            labels[key] = b["label"]
        values = {k: b.get(counter) for k, counter in fields.items()}
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[key] = values
                reps = max(reps, int(b.get("repetitions", 1)))
        else:
            singles.setdefault(key, []).append(values)
            if count_singles:
                reps = max(reps, len(singles[key]))
    table = {}
    for key in set(singles) | set(medians) | set(errors):
        if key in medians:
            cell = dict(medians[key])
        elif key in singles:
            cell = {}
            for k in fields:
                vals = [r[k] for r in singles[key] if r[k] is not None]
                cell[k] = statistics.median(vals) if vals else None
        else:
            cell = {k: None for k in fields}
        cell["error"] = errors.get(key)
        cell["label"] = labels.get(key)
        table.setdefault(key[:-1], {})[key[-1]] = cell
    return doc.get("context", {}), table, order, reps


def lscpu():
    """(model name, cores, logical CPUs) from lscpu, or Nones."""
    if not shutil.which("lscpu"):
        return None, None, None
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return None, None, None
    info = {}
    for line in out.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            info.setdefault(k.strip(), v.strip())
    cores = None
    try:
        cores = int(info["Core(s) per socket"]) * int(info.get("Socket(s)", "1"))
    except (KeyError, ValueError):
        pass
    return info.get("Model name"), cores, info.get("CPU(s)")


def git_commit(path=None):
    """'<short hash> (<subject>)' of the repository holding path (default: this script's),
    with ', working tree modified: N paths' when tracked files differ from it (the benchmark
    then measured code the commit does not hold), or None outside a repository."""
    where = os.path.dirname(os.path.abspath(path or __file__))
    def git(*args):
        try:
            r = subprocess.run(["git", "-C", where] + list(args), capture_output=True,
                               text=True, check=False)
        except OSError:
            return None
        return r.stdout.strip() if r.returncode == 0 else None
    head = git("log", "-1", "--format=%h %s")
    if not head:
        return None
    short, _, subject = head.partition(" ")
    head = "%s (%s)" % (short, subject if len(subject) <= 60 else subject[:57] + "...")
    changed = git("status", "--porcelain", "--untracked-files=no")
    if changed:
        head += ", working tree modified: %d paths" % len(changed.splitlines())
    return head


def geomean(xs):
    """Geometric mean of positive numbers, or None for none."""
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def print_machine_lines(ctx, peer, peer_threads_key, software):
    """The '- Machine:', '- Threads:' and '- abft ...' header lines (peer: the library
    compared with; software: what follows abft's version and ISA on the last)."""
    model, cores, cpus = lscpu()
    print("- Machine: %s, %s cores (%s logical CPUs), AVX-512: %s, %s MHz"
          % (model or ctx.get("cpu_model") or "unknown CPU", cores or ctx.get("num_cpus", "?"),
             cpus or ctx.get("num_cpus", "?"), ctx.get("cpu_avx512f", "?"),
             ctx.get("mhz_per_cpu", "?")))
    load_avg = ctx.get("load_avg") or []
    print("- Threads: %s for abft (OpenMP) and %s for %s; load average at start: %s"
          % (ctx.get("threads", "?"), ctx.get(peer_threads_key, "?"), peer,
             " ".join("%.2f" % x for x in load_avg) or "?"))
    print("- abft %s, ISA %s; %s" % (ctx.get("abft_version", "?"), ctx.get("abft_isa", "?"), software))


def print_notes(notes):
    """The --note lines and the blank line that ends the header."""
    for n in notes:
        print("- Note: " + n)
    print()


def print_errors(errors):
    """'- error: ...' lines after a table, and a blank line when there were any."""
    for e in errors:
        print("- error: " + e)
    if errors:
        print()


def fmt_gflops(cell, field, fmt):
    """A cell's throughput: '—' when missing, 'error' when the run failed."""
    if cell is None:
        return "—"
    if cell.get("error"):
        return "error"
    return fmt % cell[field] if cell.get(field) is not None else "—"


def parse_args(argv, flags):
    """Return ({flag: bool} for each of flags, [--note TEXT...], [paths])."""
    seen, notes, paths = {f: False for f in flags}, [], []
    args = iter(argv)
    for a in args:
        if a in seen:
            seen[a] = True
        elif a == "--note":
            notes.append(next(args, ""))
        else:
            paths.append(a)
    return seen, notes, paths


def params(text):
    """'h:12,d:64,causal:0' -> {'h': 12, 'd': 64, 'causal': 0}: a benchmark name's parameters,
    numbers as ints."""
    out = {}
    for item in text.split(","):
        k, _, v = item.partition(":")
        try:
            out[k] = int(v)
        except ValueError:
            out[k] = v
    return out


def ok(cell, field):
    """A cell (one row's variant) that ran and has this field."""
    return cell is not None and not cell.get("error") and cell.get(field) is not None
