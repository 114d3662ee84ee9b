#!/usr/bin/env bash
# \brief On the device machine: unpack .devbundle/ (scripts/gpu-bundle.sh), point the loader at
#        the device's own CUDA libraries, and run scripts/gpu-check.sh on the prebuilt binaries.
#        Logs go to $OUT (the device tool's return folder) when set, as one logs.tar.gz.
#
# Usage: bash scripts/gpu-run-bundle.sh [gpu-check.sh options, e.g. --only tests,fft]
set -uo pipefail
# gpu-check.sh's deadline counts from here, so the unpacking and the library search count too.
export ABFT_GPU_START=${ABFT_GPU_START:-$(date +%s)}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
b=$root/.devbundle
[ -f "$b/bundle.tar.xz" ] || { echo "gpu-run-bundle.sh: no $b/bundle.tar.xz (run scripts/gpu-bundle.sh)"; exit 1; }
build=${TMPDIR:-/tmp}/abft-gpu-build
rm -rf "$build" && mkdir -p "$build"
if command -v xz >/dev/null; then
  tar -C "$build" -xJf "$b/bundle.tar.xz"
else
  python3 -c 'import lzma, sys, tarfile; tarfile.open(fileobj=lzma.open(sys.argv[1])).extractall(sys.argv[2])' \
    "$b/bundle.tar.xz" "$build"
fi
echo "gpu-run-bundle.sh: binaries of commit $(cat "$b/commit" 2>/dev/null) unpacked"

# The CUDA libraries the binaries were linked against (same sonames on the device's CUDA 13), all
# from one toolkit where it has them: cuFFT links the callbacks' LTO-IR through nvJitLink, which
# must be at least as new as the nvcc that wrote it, so a toolkit's own copies come before any
# other (a Python package's under /opt, say). One search, then a pick per library.
sonames=(libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcufft.so.12 libnvJitLink.so.13)
found=$(find /usr/local /opt /usr/lib \( -name libcudart.so.13 -o -name libcublas.so.13 -o -name libcublasLt.so.13 \
          -o -name libcufft.so.12 -o -name libnvJitLink.so.13 \) -printf '%h/%f\n' 2>/dev/null |
        awk '{ print (index($0, "/usr/local/cuda") == 1 ? 0 : 1) "\t" $0 }' | sort -s -k1,1 | cut -f2-)
cudadirs=
for so in "${sonames[@]}"; do
  f=$(printf '%s\n' "$found" | grep -m1 "/$so\$")
  [ -n "$f" ] || { echo "gpu-run-bundle.sh: $so not found on this machine"; continue; }
  echo "gpu-run-bundle.sh: $so from $f"
  d=${f%/*}
  case ":$cudadirs:" in *":$d:"*) ;; *) cudadirs=${cudadirs:+$cudadirs:}$d ;; esac
done
echo "gpu-run-bundle.sh: CUDA libraries from $cudadirs"
# The carried libgomp only where the machine has none (Python and PyTorch run with this path too).
ldconfig -p 2>/dev/null | grep -q 'libgomp.so.1 ' && rm -f "$b"/syslib/libgomp.so*
export LD_LIBRARY_PATH=$b/syslib:$cudadirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ABFT_GPU_BUILD_DIR=$build
export ABFT_GPU_LOG_DIR=${TMPDIR:-/tmp}/abft-gpu-logs
bash "$root/scripts/gpu-check.sh" --no-build "$@" 2>&1 | tee "$ABFT_GPU_LOG_DIR.check.txt"
rc=${PIPESTATUS[0]}
mkdir -p "$ABFT_GPU_LOG_DIR" && cp "$ABFT_GPU_LOG_DIR.check.txt" "$ABFT_GPU_LOG_DIR/check.txt"
if [ -n "${OUT:-}" ]; then
  tar -C "$(dirname "$ABFT_GPU_LOG_DIR")" -czf "$OUT/logs.tar.gz" "$(basename "$ABFT_GPU_LOG_DIR")" 2>/dev/null
  cp "$build"/*.json "$OUT/" 2>/dev/null
fi
exit $rc
