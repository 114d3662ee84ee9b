#!/usr/bin/env bash
# \brief Shared setup for run.sh and test.sh: install missing Debian packages (as root), configure, build.
#
# Sourced, not executed: defines abft_setup, which leaves the build in
# $ABFT_BUILD_DIR (default: build/ under the repository root).
set -euo pipefail

ABFT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ABFT_BUILD_DIR="${ABFT_BUILD_DIR:-$ABFT_ROOT/build}"
# A relative ABFT_BUILD_DIR is taken from the caller's directory, once, so later cds don't move it.
[[ "$ABFT_BUILD_DIR" == /* ]] || ABFT_BUILD_DIR="$PWD/$ABFT_BUILD_DIR"

# Required to build and test; OpenBLAS and FFTW are only optional peers (benchmarks, oracle tests).
# The BLAS shim's whole-program tests need: libblas-test (the reference test programs
# xblat1/2/3 and x?cblat1/2/3 with their input files, run against our libblas.so.3),
# libblas-dev (-lblas for the unmodified program linked only against the system BLAS),
# gfortran (the Fortran-77 variant of that program) and pkg-config (the install test's
# consumer built with `pkg-config --cflags --libs abft-blas`).
# minimodem is optional: an unmodified FFTW client the FFTW shim's tests run (tests/fftw).
ABFT_REQUIRED_PACKAGES=(cmake g++ make libgtest-dev libbenchmark-dev
                        libblas-test libblas-dev gfortran pkg-config)
ABFT_OPTIONAL_PACKAGES=(libopenblas-dev libfftw3-dev minimodem)

abft_missing_packages() {
  local p
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || echo "$p"
  done
}

abft_install_packages() {
  if ! command -v dpkg >/dev/null 2>&1; then
    echo "setup: not a Debian system; make sure these are installed:" \
         "${ABFT_REQUIRED_PACKAGES[*]} (optional: ${ABFT_OPTIONAL_PACKAGES[*]})" >&2
    return 0
  fi
  local missing optional
  missing="$(abft_missing_packages "${ABFT_REQUIRED_PACKAGES[@]}" | xargs)"
  optional="$(abft_missing_packages "${ABFT_OPTIONAL_PACKAGES[@]}" | xargs)"
  [[ -z "$missing" && -z "$optional" ]] && return 0
  if [[ "$(id -u)" -ne 0 ]]; then
    echo "setup: missing Debian packages: ${missing:-none} (optional: ${optional:-none})" >&2
    echo "setup: as root: apt-get install -y --no-install-recommends $missing $optional" >&2
    return 0
  fi
  export DEBIAN_FRONTEND=noninteractive
  echo "setup: installing ${missing} ${optional}" >&2
  apt-get update
  if [[ -n "$missing" ]]; then
    # shellcheck disable=SC2086  # word splitting of the package list is intended
    apt-get install -y --no-install-recommends $missing
  fi
  if [[ -n "$optional" ]]; then
    # shellcheck disable=SC2086
    apt-get install -y --no-install-recommends $optional ||
      echo "setup: optional $optional not installed; peer comparisons (OpenBLAS, FFTW) will skip" >&2
  fi
}

abft_configure_and_build() {
  cmake -S "$ABFT_ROOT" -B "$ABFT_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "$@"
  cmake --build "$ABFT_BUILD_DIR" -j"$(nproc)"
}

abft_setup() {
  abft_install_packages
  abft_configure_and_build "$@"
}
