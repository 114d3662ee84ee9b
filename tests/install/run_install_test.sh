#!/usr/bin/env bash
# \brief Install the build into a scratch prefix and build consumers against it (BLAS,
# FFTW3 and core): with find_package(abft) (CMake), and with pkg-config. Proves the
# installed tree is usable on its own, the way a user gets it.
#
# Usage: run_install_test.sh --build DIR --work DIR --consumer DIR --cmake CMAKE
#          --cc CC --cxx CXX
# Exit: 0 pass, 1 fail, 77 when only the pkg-config half could not run (no pkg-config).
set -uo pipefail

build="" work="" consumer="" cmake=cmake cc=cc cxx=c++
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --consumer) consumer="$2"; shift 2 ;;
    --cmake) cmake="$2"; shift 2 ;;
    --cc) cc="$2"; shift 2 ;;
    --cxx) cxx="$2"; shift 2 ;;
    *) echo "run_install_test: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n "$build" && -n "$work" && -n "$consumer" ]] ||
  { echo "run_install_test: --build, --work and --consumer are required" >&2; exit 2; }

fail() { echo "FAILED: $*"; exit 1; }
step() { echo "--- $*"; }

prefix="$work/prefix"
# Only what this script made: a stale prefix could hide a file the install forgot.
rm -rf "$prefix" "$work/cmake-consumer" "$work/pkg-config-consumer"
mkdir -p "$work/pkg-config-consumer"

step "cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "cmake --install"; }

# The layout a user relies on (see cmake/abft_install.cmake).
pc="$(find "$prefix" -name abft-blas.pc -path '*/pkgconfig/*' | head -1)"
[[ -n "$pc" ]] || fail "no abft-blas.pc installed"
libdir="$(dirname "$(dirname "$pc")")"
for f in include/abft/cblas.h include/abft/abft.h include/abft/abft.hpp include/abft/fftw3.h \
         include/abft/fftw/fftw3.h; do
  [[ -f "$prefix/$f" ]] || fail "$f not installed"
done
for f in libabft_blas.so.0 libabft.a abft/libblas.so.3 abft/libcblas.so.3 pkgconfig/abft.pc \
         libabft_fftw3.so.0 abft/libfftw3.so.3 abft/libfftw3f.so.3 abft/libfftw3_threads.so.3 \
         pkgconfig/abft-fftw3.pc \
         cmake/abft/abftConfig.cmake cmake/abft/abftConfigVersion.cmake; do
  [[ -e "$libdir/$f" ]] || fail "$libdir/$f not installed"
done
# The drop-in copies must never shadow the system BLAS: nothing named libblas/libcblas
# directly in libdir, and no libblas.so namelink that -lblas could pick up.
# (Outputs are captured before grep -q below: under pipefail, `cmd | grep -q` fails when
# grep exits before cmd has written everything.)
others="$(compgen -G "$libdir/lib*blas.so*" | grep -v libabft_blas)"
[[ -z "$others" ]] || fail "a libblas/libcblas was installed into $libdir itself: $others"
[[ ! -e "$libdir/abft/libblas.so" && ! -e "$libdir/abft/libcblas.so" ]] ||
  fail "namelinks libblas.so/libcblas.so installed in $libdir/abft"
others="$(compgen -G "$libdir/libfftw3*")"
[[ -z "$others" && ! -e "$libdir/abft/libfftw3.so" ]] ||
  fail "an FFTW library or namelink was installed where it could shadow the system FFTW: $others"
for so in libblas.so.3 libcblas.so.3 libfftw3.so.3 libfftw3f.so.3; do
  grep -q "SONAME.*\[$so\]" <<<"$(readelf -d "$libdir/abft/$so")" || fail "$so has the wrong soname"
done
echo "layout ok: libdir $libdir"

step "CMake consumer: find_package(abft) -> abft::blas, abft::abft"
"$cmake" -S "$consumer" -B "$work/cmake-consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  > "$work/cmake-consumer.log" 2>&1 || { cat "$work/cmake-consumer.log"; fail "consumer configure"; }
grep -q "abft_DIR:PATH=$libdir/cmake/abft" "$work/cmake-consumer/CMakeCache.txt" ||
  fail "find_package(abft) did not find the installed package: $(grep abft_DIR "$work/cmake-consumer/CMakeCache.txt")"
"$cmake" --build "$work/cmake-consumer" >> "$work/cmake-consumer.log" 2>&1 ||
  { cat "$work/cmake-consumer.log"; fail "consumer build"; }
# The consumer must run on the installed library, not the build tree's.
deps="$(ldd "$work/cmake-consumer/blas_consumer")"
grep -q "libabft_blas.so.0 => $libdir/" <<<"$deps" ||
  fail "blas_consumer does not load the installed libabft_blas: $(grep abft <<<"$deps")"
"$work/cmake-consumer/blas_consumer" || fail "blas_consumer (CMake)"
"$work/cmake-consumer/core_consumer" || fail "core_consumer (CMake)"
"$work/cmake-consumer/fftw_consumer" || fail "fftw_consumer (CMake)"

step "pkg-config consumer: \$(pkg-config --cflags --libs abft-blas), abft"
if ! command -v pkg-config >/dev/null 2>&1; then
  echo "SKIPPED (pkg-config half): pkg-config is not installed"
  exit 77
fi
export PKG_CONFIG_PATH="$libdir/pkgconfig"
flags_blas="$(pkg-config --cflags --libs abft-blas)" || fail "pkg-config abft-blas"
flags_core="$(pkg-config --cflags --libs abft)" || fail "pkg-config abft"
flags_fftw="$(pkg-config --cflags --libs abft-fftw3)" || fail "pkg-config abft-fftw3"
echo "abft-blas: $flags_blas"
echo "abft:      $flags_core"
echo "abft-fftw3: $flags_fftw"
out="$work/pkg-config-consumer"
# shellcheck disable=SC2086  # the flags are meant to split
"$cc" -o "$out/blas_consumer" "$consumer/blas_consumer.c" $flags_blas || fail "compile with abft-blas.pc"
# shellcheck disable=SC2086
"$cc" -o "$out/core_consumer" "$consumer/core_consumer.c" $flags_core || fail "compile with abft.pc"
LD_LIBRARY_PATH="$(pkg-config --variable=libdir abft-blas)" "$out/blas_consumer" ||
  fail "blas_consumer (pkg-config)"
"$out/core_consumer" || fail "core_consumer (pkg-config)"
# shellcheck disable=SC2086
"$cc" -o "$out/fftw_consumer" "$consumer/fftw_consumer.c" $flags_fftw || fail "compile with abft-fftw3.pc"
LD_LIBRARY_PATH="$(pkg-config --variable=libdir abft-fftw3)" "$out/fftw_consumer" ||
  fail "fftw_consumer (pkg-config)"

echo "PASSED: installed tree usable through find_package(abft) and pkg-config"
