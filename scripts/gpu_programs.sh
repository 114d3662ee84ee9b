# \brief The programs scripts/gpu-check.sh runs (sourced by scripts/gpu-bundle.sh, which packs
#        them for the device machine, and scripts/gpu-rehearsal.sh, which runs the check on the
#        CUDA emulator's twins of them). One entry a program, PATH:TARGET:TWIN —
#          PATH    where gpu-check.sh finds it in a CUDA build tree;
#          TARGET  the CMake target that builds it;
#          TWIN    for the rehearsal: the emulator's build of the same sources, as PATH:TARGET in
#                  the emulator's build tree; `host` for a program that needs no GPU (the
#                  rehearsal runs the program itself); `device` for one that needs a real device
#                  or PyTorch (none: the rehearsal expects its rows to fail).
abft_gpu_programs=(
  tests/cuda/gemm_cuda_test:gemm_cuda_test:tests/emu/gemm_cuda_test_emu:gemm_cuda_test_emu
  tests/cuda/gemm_batched_cuda_test:gemm_batched_cuda_test:tests/emu/gemm_batched_cuda_test_emu:gemm_batched_cuda_test_emu
  tests/cuda/cuda_cpp_api_test:cuda_cpp_api_test:tests/emu/cuda_cpp_api_test_emu:cuda_cpp_api_test_emu
  tests/cuda/fft_cuda_test:fft_cuda_test:tests/emu/fft_cuda_test_emu:fft_cuda_test_emu
  tests/cuda/attention_cuda_test:attention_cuda_test:tests/emu/attention_cuda_test_emu:attention_cuda_test_emu
  tests/cuda/attention_backward_cuda_test:attention_backward_cuda_test:tests/emu/attention_backward_cuda_test_emu:attention_backward_cuda_test_emu
  tests/cuda/attention_key_sums_test:attention_key_sums_test:tests/emu/attention_key_sums_test_emu:attention_key_sums_test_emu
  tests/cuda/fft_callback_link_test:fft_callback_link_test:host
  tests/cuda/attention_sdpa_tool:attention_sdpa_tool:device
  tests/checksum/library_check_test:library_check_test:host
  tests/checksum/fft_library_check_test:fft_library_check_test:host
  tests/checksum/attention_row_check_test:attention_row_check_test:host
  tests/checksum/fft_callback_sums_test:fft_callback_sums_test:host
  tests/runtime/gpu_engine_test:gpu_engine_test:tests/emu/gpu_engine_test_emu:gpu_engine_test_emu
  src/cli/abft:abft_cli:tests/emu/abft_emu:abft_cli_emu
  lib/libabft_preload.so:abft_preload:device
  bench/abft_bench_cuda_gemm:abft_bench_cuda_gemm:bench/abft_bench_cuda_gemm_emu:abft_bench_cuda_gemm_emu
  bench/abft_bench_cuda_fft:abft_bench_cuda_fft:bench/abft_bench_cuda_fft_emu:abft_bench_cuda_fft_emu
  bench/abft_bench_cuda_attention:abft_bench_cuda_attention:bench/abft_bench_cuda_attention_emu:abft_bench_cuda_attention_emu
  bench/abft_bench_transformer:abft_bench_transformer:bench/abft_bench_transformer_emu:abft_bench_transformer_emu
)
