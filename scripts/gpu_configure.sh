#!/usr/bin/env bash
# \brief Sourced by the GPU scripts (gpu-check.sh, gpu-check-preload.sh, gpu-bundle.sh):
#        abft_gpu_configure BUILD configures BUILD as the GPU checks' CUDA build — Release,
#        the CUDA engine, tests and benchmarks, sm_90 machine code plus compute_90 PTX.
#        No shell options are set here: each caller keeps its own.
abft_gpu_configure() {
  cmake -S "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)" -B "$1" -DCMAKE_BUILD_TYPE=Release \
        -DABFT_WITH_CUDA=ON -DABFT_BUILD_TESTS=ON -DABFT_BUILD_BENCH=ON -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual"
}
