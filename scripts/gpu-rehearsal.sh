#!/usr/bin/env bash
# \brief Rehearse scripts/gpu-check.sh on the CUDA emulator, here, before a device run: every step
#        of the check (tests, campaigns, benchmarks and their tables, the runtime rows, the
#        summary) runs on the emulator's builds of the same sources (tests/emu, bench/*_emu), with
#        the benchmarks on small shapes under their real row names (ABFT_BENCH_REHEARSAL), so that
#        a broken script, table, row or argument is found where it costs minutes of this machine
#        rather than the device's one call. Its figures are the emulator's: no speed is measured.
#
# Usage: scripts/gpu-rehearsal.sh [--no-build] [--only STEP,...]   (gpu-check.sh's steps; default: all)
#   --no-build            the twins are built already (ctest's emu.gpu_check_rehearsal)
#   ABFT_REHEARSAL_BUILD  a build with the CUDA headers (the emulator's targets; default build/)
#   ABFT_REHEARSAL_WORK   its tree of twins, gpu-check.sh's logs and output (check.txt; default
#                         BUILD/rehearsal)
#   ABFT_EMU_ASYNC        the emulator's asynchrony (default 1 here: queued work runs when
#                         something waits for it, so a missing wait anywhere in the check's
#                         programs changes results; tests/emu/cuda_emu.hpp)
# What needs the device or PyTorch (scripts/gpu_programs.sh marks it `device`: the SDPA tool, the
# preload library) is absent from the rehearsal's tree, and the rows
# that run it are expected to fail; any other failed row, a table without rows, a Python
# traceback or a missing summary fails the rehearsal (exit 1). Takes a few minutes on 2 cores.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ABFT_REHEARSAL_BUILD:-$root/build}
log() { printf 'gpu-rehearsal.sh: %s\n' "$*" >&2; }
only=() build_first=1
while [ $# -gt 0 ]; do
  case $1 in
    --no-build) build_first=0 ;;
    --only) only=(--only "${2:-}"); shift ;;
    --only=*) only=(--only "${1#--only=}") ;;
    *) log "unknown argument: $1 (usage: gpu-rehearsal.sh [--no-build] [--only STEP,...])"; exit 2 ;;
  esac
  shift
done

if [ ! -f "$build/CMakeCache.txt" ]; then
  log "configuring $build"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >"$build.configure.log" 2>&1 \
    || { log "configure failed (see $build.configure.log)"; exit 1; }
fi
# shellcheck source=scripts/gpu_programs.sh
source "$root/scripts/gpu_programs.sh"
targets=() links=()
for p in "${abft_gpu_programs[@]}"; do
  IFS=: read -r path target twin twin_target <<<"$p"
  case $twin in
    device) ;;
    host) targets+=("$target") links+=("$path:$path") ;;
    *) targets+=("$twin_target") links+=("$path:$twin") ;;
  esac
done
[ $build_first = 0 ] || cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >"$build/rehearsal-build.log" 2>&1 || {
  log "build failed (see $build/rehearsal-build.log; the emulator needs the CUDA headers)"
  grep -E "error|No rule" "$build/rehearsal-build.log" | head -20
  exit 1
}

# The tree gpu-check.sh expects, of the twins (and of the host programs themselves).
work=${ABFT_REHEARSAL_WORK:-$build/rehearsal}
tree=$work/tree
rm -rf "$work" && mkdir -p "$work"
for l in "${links[@]}"; do
  path=${l%%:*} real=$build/${l#*:}
  [ -x "$real" ] || { log "missing after the build: $real"; exit 1; }
  mkdir -p "$tree/$(dirname "$path")" && ln -s "$real" "$tree/$path"
done

out=$work/check.txt
log "running scripts/gpu-check.sh on the emulator (output: $out)"
# Small work everywhere, and time limits for a 2-core host running fibers instead of a GPU.
ABFT_EMU_ASYNC=${ABFT_EMU_ASYNC:-1} ABFT_BENCH_REHEARSAL=1 ABFT_GPU_BUILD_DIR=$tree ABFT_GPU_LOG_DIR=$work/logs \
  ABFT_GPU_TRIALS=${ABFT_GPU_TRIALS:-16} ABFT_GPU_JOB_TIMEOUT=${ABFT_GPU_JOB_TIMEOUT:-1500} \
  ABFT_GPU_DEADLINE_S=${ABFT_GPU_DEADLINE_S:-3600} ABFT_PRELOAD_BUDGET_S=60 \
  ABFT_GPU_RUNTIME_MODEL=gpt2-tiny ABFT_GPU_RUNTIME_SEQ=16 ABFT_GPU_RUNTIME_NEW=8 ABFT_BENCH_DECODE_STEPS=8 \
  bash "$root/scripts/gpu-check.sh" --no-build "${only[@]}" >"$out" 2>&1
rc=$?

# The verdict: every summary row passed but those of programs that need the device.
python3 - "$out" "$rc" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rc = int(sys.argv[2])
problems = []
if "Traceback (most recent call last)" in text:
    problems.append("a Python traceback (a table script failed)")
if "| test " not in text:
    problems.append("no summary table (the script stopped early; exit %d)" % rc)
expected = ("attention vs SDPA", "preload (PyTorch)")
ok = failed_expected = 0
summary = text[text.rfind("| test "):] if "| test " in text else ""
for line in summary.splitlines():
    m = re.match(r"\| ([^|]+?) +\| +(\S+) \| +(\S+) \| +(\S+) \|$", line)
    if not m or m.group(1) in ("test", "---") or m.group(1).startswith("-"):
        continue
    name, passed, failed, skipped = m.groups()
    bad = failed not in ("0",) or skipped not in ("0",) or passed == "0"
    if not bad:
        ok += 1
    elif name.startswith(expected):
        failed_expected += 1
    else:
        problems.append("row failed: " + line.strip())
# Every timing table printed rows (its heading is followed by a markdown table).
for heading in ("GEMM vs cuBLAS", "FFT vs cuFFT", "Attention forward: protected", "Attention backward: protected"):
    i = text.find(heading)
    if i < 0:
        continue  # a step left out with --only
    body = text[i:].split("\n\n", 1)[0]
    rows = [l for l in body.splitlines() if l.startswith("| cuda_")]
    if not rows:
        problems.append("the table after '%s' has no rows" % heading)
    if "was stopped before its end" in body:
        problems.append("the benchmark behind '%s' ran out of time" % heading)
    # A row the benchmark ended with an error (a false positive, a failed plan): dashes for figures.
    problems += ["row error: " + l for l in rows if l.split("|")[2].strip() == "-"]
# What gpu-check.sh says failed, beyond the device's own (SDPA's timing needs PyTorch).
for line in text.splitlines():
    if line.startswith("gpu-check.sh: ") and ("failed" in line or "no time left" in line) \
            and "SDPA timing" not in line and "preload" not in line:
        problems.append(line)
print("rehearsal: %d rows passed, %d rows that need the device failed as expected" % (ok, failed_expected))
for p in problems:
    print("rehearsal: PROBLEM: " + p)
sys.exit(1 if problems else 0)
PY
verdict=$?
tail -40 "$out"
[ $verdict = 0 ] && log "passed: gpu-check.sh ran end to end on the emulator" || log "FAILED (see $out)"
exit $verdict
