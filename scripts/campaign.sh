#!/usr/bin/env bash
# \brief The full fault-injection campaigns (docs/RELIABILITY.md §11): every kernel family and
#        type at its default sizes, random bit flips at every site, plus campaigns with every
#        fault model, several (correlated) faults per call and the DETECT policy. Writes per
#        campaign <name>.txt (the summary table), <name>.json and <name>.csv into
#        <build>/campaign/, then summary.md (one row per campaign) and the plots
#        bits_<family>.png and sites.png (scripts/plot_campaign.py, matplotlib).
#
# Usage: scripts/campaign.sh [--quick] [--trials N] [--only REGEX] [--docs] [--no-build]
#   (default)   10,000 trials per campaign (about 20-40 minutes on 2 cores in all)
#   --quick     1,000 trials per campaign
#   --trials N  N trials per campaign
#   --only RE   only the campaigns whose name matches the extended regex RE (e.g. '^gemm')
#   --docs      also copy the plots and summary.md into docs/img/ and docs/campaign_summary.md
#   --no-build  use the existing build
#
# Environment: ABFT_BUILD_DIR (default <repo>/build), ABFT_BUILD_JOBS, ABFT_CAMPAIGN_JOBS
# (worker processes, default nproc). Exit status 1 when a campaign that must pass fails
# (those marked "expect fail" document a known blind spot and only report).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf 'campaign.sh: %s\n' "$*" >&2; }

trials=10000 only="" docs=0 build_it=1
while [ $# -gt 0 ]; do
  case $1 in
    --quick) trials=1000 ;;
    --trials) shift; trials=${1:?--trials needs a number} ;;
    --only) shift; only=${1:?--only needs a regex} ;;
    --docs) docs=1 ;;
    --no-build) build_it=0 ;;
    -h|--help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) log "unknown option $1 (try --help)"; exit 2 ;;
  esac
  shift
done

# shellcheck source=bench_lib.sh
source "$root/scripts/bench_lib.sh"
build=$(bench_build_dir)
if [ $build_it = 1 ]; then
  bench_release_build "$build" abft_cli || exit 1
fi
abft=$build/src/cli/abft
[ -x "$abft" ] || { log "no $abft (build it, or drop --no-build)"; exit 1; }
out=$build/campaign
mkdir -p "$out"
export OMP_WAIT_POLICY=PASSIVE
jobs=${ABFT_CAMPAIGN_JOBS:-$(nproc)}

# name | must pass (1) or documents a blind spot (0) | abft campaign arguments
campaigns=(
  "gemm_f32|1|--kernel gemm --type f32"
  "gemm_f64|1|--kernel gemm --type f64"
  "gemm_c32|1|--kernel gemm --type c32 --variant nn-col"
  "gemm_c64|1|--kernel gemm --type c64 --variant nn-col"
  "gemm_f32_small_m|1|--kernel gemm --type f32 --sizes 6,256,256"
  "symm_f32|1|--kernel symm --type f32"
  "symm_f64|1|--kernel symm --type f64"
  "hemm_c64|1|--kernel hemm --type c64"
  "syrk_f32|1|--kernel syrk --type f32"
  "syrk_f64|1|--kernel syrk --type f64"
  "herk_c32|1|--kernel herk --type c32"
  "syr2k_f32|1|--kernel syr2k --type f32"
  "syr2k_f64|1|--kernel syr2k --type f64"
  "her2k_c64|1|--kernel her2k --type c64"
  "trmm_f32|1|--kernel trmm --type f32"
  "trmm_f64|1|--kernel trmm --type f64"
  "trsm_f32|1|--kernel trsm --type f32"
  "trsm_f64|1|--kernel trsm --type f64"
  "fft_f32|1|--kernel fft --type f32"
  "fft_f64|1|--kernel fft --type f64"
  "fft_r2c_f32|1|--kernel fft --type f32 --variant r2c"
  "fft_c2r_f64|1|--kernel fft --type f64 --variant c2r"
  "attn_fwd_f32|1|--kernel attn-fwd --type f32"
  "attn_bwd_f32|1|--kernel attn-bwd --type f32"
  "train_gpt2_f32|1|--kernel train --type f32 --variant gpt2-tiny"
  "train_llama_f32|1|--kernel train --type f32 --variant llama-tiny"
  "gemm_f64_any_model|1|--kernel gemm --type f64 --model any"
  "fft_f32_any_model|1|--kernel fft --type f32 --model any"
  "attn_fwd_any_model|1|--kernel attn-fwd --type f32 --model any"
  "gemm_f32_detect|1|--kernel gemm --type f32 --policy detect"
  "gemm_f64_3_row_faults|1|--kernel gemm --type f64 --faults 3 --pattern row --model any"
  "gemm_f32_2_col_flips|0|--kernel gemm --type f32 --faults 2 --pattern col"
)

status=0 ran=()
for c in "${campaigns[@]}"; do
  IFS='|' read -r name must args <<<"$c"
  if [ -n "$only" ] && ! [[ $name =~ $only ]]; then continue; fi
  log "$name: abft campaign $args --trials $trials --jobs $jobs"
  # shellcheck disable=SC2086
  "$abft" campaign $args --trials "$trials" --jobs "$jobs" --seed 1 \
      --json "$out/$name.json" --csv "$out/$name.csv" >"$out/$name.txt"
  rc=$?
  tail -1 "$out/$name.txt" >&2
  if [ $rc -ne 0 ] && [ "$must" = 1 ]; then status=1; log "$name FAILED (see $out/$name.txt)"; fi
  ran+=("$out/$name.json")
done
[ ${#ran[@]} -gt 0 ] || { log "no campaign matches '$only'"; exit 2; }

python3 "$root/scripts/campaign_table.py" "${ran[@]}" | tee "$out/summary.md"
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
if ! $py -c 'import matplotlib' 2>/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  log "installing python3-matplotlib for the plots"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-matplotlib >/dev/null 2>&1 || true
fi
if $py -c 'import matplotlib' 2>/dev/null; then
  $py "$root/scripts/plot_campaign.py" --out "$out" "${ran[@]}" || status=1
  if [ $docs = 1 ]; then
    mkdir -p "$root/docs/img"
    cp "$out"/bits_*.png "$out"/sites.png "$root/docs/img/" 2>/dev/null
    { echo "<!-- scripts/campaign.sh --docs, $trials trials per campaign, $(date -u +%Y-%m-%d) -->"; cat "$out/summary.md"; } \
      >"$root/docs/campaign_summary.md"
    log "plots and summary copied into docs/"
  fi
else
  log "matplotlib not available (apt-get install python3-matplotlib): no plots"
fi
log "results in $out"
exit $status
