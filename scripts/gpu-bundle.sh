#!/usr/bin/env bash
# \brief Pack what scripts/gpu-check.sh runs, built HERE, for the device machine (which has
#        nvcc, cuBLAS and cuFFT but no Debian packages: no GoogleTest, Google Benchmark, libgomp
#        is not guaranteed, and nothing can be installed there). Building on this machine also
#        keeps the device's minutes for running, not for nvcc.
#
# Usage: scripts/gpu-bundle.sh [BUILD_DIR]      (default build-cuda/, a CUDA build for sm_90)
# Writes .devbundle/ (ignored through .git/info/exclude): bundle.tar.xz holding the test,
# benchmark and CLI binaries and libabft_preload.so in their build-tree layout, and syslib/ with
# the non-CUDA shared libraries they need that a bare CUDA image may lack. On the device:
#   run(carry=[".devbundle"], command="bash scripts/gpu-run-bundle.sh")
# The CUDA libraries (cudart, cuBLAS, cuBLASLt, cuFFT) are NOT carried: the device's own are used
# (scripts/gpu-run-bundle.sh finds them), same major versions as this toolkit's.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-cuda}
dest=$root/.devbundle
grep -qx '/.devbundle/' "$root/.git/info/exclude" 2>/dev/null || echo '/.devbundle/' >>"$root/.git/info/exclude"

# shellcheck source=scripts/gpu_programs.sh
source "$root/scripts/gpu_programs.sh"
targets=() files=()
for p in "${abft_gpu_programs[@]}"; do
  IFS=: read -r path target _ <<<"$p"
  files+=("$path") targets+=("$target")
done
if [ ! -f "$build/CMakeCache.txt" ]; then  # a fresh checkout: configure the CUDA build first
  # shellcheck source=scripts/gpu_configure.sh
  source "$root/scripts/gpu_configure.sh"
  abft_gpu_configure "$build"
fi
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

rm -rf "$dest" && mkdir -p "$dest/syslib"
# One tar, one large xz dictionary: the binaries share most of their device code (the static
# abft_cuda library), so the archive is a fraction of their sum (~7 MB for ~120 MB).
(cd "$build" && tar -cf - "${files[@]}") | xz -T"$(nproc)" -6 --lzma2=dict=192MiB >"$dest/bundle.tar.xz"
# Non-CUDA, non-libc shared libraries the binaries load (GoogleTest is linked statically).
for lib in $(cd "$build" && ldd "${files[@]}" 2>/dev/null | awk '/=>/ { print $3 }' | sort -u); do
  case $(basename "$lib") in
    libgomp.so*|libbenchmark.so*) cp -L "$lib" "$dest/syslib/" ;;
  esac
done
(cd "$root" && git rev-parse HEAD) >"$dest/commit"
du -sh "$dest"/* | sed 's/^/gpu-bundle.sh: /'
