/** \file cmd_info.cpp
 *  \brief `abft info`: what this build and this machine will run (CPU, GEMM and FFT kernels,
 *  threads, policy, CUDA).
 */
#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "abft/abft.h"
#include "abft/attention.h"
#include "abft/fft.h"
#include "commands.hpp"
#include "core/cpu_features.hpp"
#ifdef ABFT_HAVE_CUDA
#include "abft/abft_cuda.h"
#endif

namespace abft::cli {
namespace {

const char* policy_name(abft_policy p) {
  switch (p) {
    case ABFT_POLICY_OFF: return "off";
    case ABFT_POLICY_DETECT: return "detect";
    case ABFT_POLICY_CORRECT: return "correct";
    default: return "default";
  }
}

/** The environment variable's value, or "unset", for showing where a setting came from. */
const char* env_or_unset(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : "unset";
}

void print_cpu() {
  const abft::cpu::Features& f = abft::cpu::features();
  std::printf("CPU: %s%s%s\n", f.brand.empty() ? "(unknown brand)" : f.brand.c_str(),
              f.vendor.empty() ? "" : ", vendor ", f.vendor.c_str());
  std::printf("  logical CPUs: %d\n", f.logical_cpus);
  struct Flag { const char* name; bool on; };
  const Flag flags[] = {{"sse4.2", f.sse42},     {"avx", f.avx},           {"avx2", f.avx2},
                        {"fma", f.fma},          {"f16c", f.f16c},         {"avx512f", f.avx512f},
                        {"avx512dq", f.avx512dq}, {"avx512vl", f.avx512vl}, {"avx512bw", f.avx512bw}};
  std::string have;
  for (const Flag& fl : flags)
    if (fl.on) have += std::string(have.empty() ? "" : " ") + fl.name;
  std::printf("  features: %s\n", have.empty() ? "(none detected)" : have.c_str());
  // CPUID says what the core can do; XCR0 says whether the OS saves the wide registers.
  std::printf("  OS state: avx %s, avx512 %s\n", f.os_avx ? "enabled" : "disabled",
              f.os_avx512 ? "enabled" : "disabled");
  std::printf("  ISA: hardware %s, in use %s (ABFT_ISA=%s)\n",
              abft_isa_name(abft::cpu::hardware_isa()), abft_isa_name(abft_cpu_isa()),
              env_or_unset("ABFT_ISA"));
}

/** The FFT engine's ISA and the decomposition it picks for a 4096-point c2c line,
 *  read from a plan's description ("c2c float n=[4096] batch=1 line0(4096):
 *  stockham 8x8x8x8 isa=avx2"). */
void print_fft_kernel(abft_precision prec) {
  const char* name = prec == ABFT_PRECISION_FLOAT ? "sfft" : "dfft";
  abft_fft_plan_t p = nullptr;
  const abft_status s = abft_fft_plan_1d(&p, nullptr, prec, ABFT_FFT_C2C, 4096, ABFT_FFT_FORWARD, 0);
  if (s != ABFT_STATUS_SUCCESS) {
    std::printf("  %s: unavailable (%s)\n", name, abft_status_string(s));
    return;
  }
  const std::string d = abft_fft_describe(p);
  abft_fft_destroy(p);
  const size_t isa = d.rfind(" isa="), line = d.find("): ");
  if (isa == std::string::npos || line == std::string::npos || line > isa) {
    std::printf("  %s: %s\n", name, d.c_str());
    return;
  }
  std::printf("  %s: %s (c2c n=4096: %s)\n", name, d.substr(isa + 5).c_str(),
              d.substr(line + 3, isa - line - 3).c_str());
}

void print_cuda() {
#ifdef ABFT_HAVE_CUDA
  char buf[4096];
  if (abft_cuda_describe(buf, sizeof buf) != ABFT_STATUS_SUCCESS)
    std::snprintf(buf, sizeof buf, "CUDA devices: unknown (query failed)\n");
  std::fputs(buf, stdout);
#else
  std::printf("CUDA: CUDA engine not built (no CUDA compiler found, or ABFT_WITH_CUDA=OFF)\n");
#endif
}

}  // namespace

int cmd_info(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: abft info\n");
      return 0;
    }
    std::fprintf(stderr, "abft info: unknown option '%s'\n", argv[i]);
    print_usage(stderr);
    return 2;
  }
  std::printf("abft %s\n", abft_version());
  print_cpu();
  std::printf("GEMM kernels:\n");
  std::printf("  sgemm: %s\n", abft_gemm_kernel_info(ABFT_KERNEL_SGEMM));
  std::printf("  dgemm: %s\n", abft_gemm_kernel_info(ABFT_KERNEL_DGEMM));
  std::printf("FFT kernels:\n");
  print_fft_kernel(ABFT_PRECISION_FLOAT);
  print_fft_kernel(ABFT_PRECISION_DOUBLE);
  std::printf("Attention kernels:\n  attn: %s\n", abft_attention_kernel_info());
  std::printf("OpenMP: max threads %d (OMP_NUM_THREADS=%s)\n", omp_get_max_threads(),
              env_or_unset("OMP_NUM_THREADS"));
  std::printf("Policy: default %s (ABFT_POLICY=%s)\n", policy_name(abft_default_policy()),
              env_or_unset("ABFT_POLICY"));
  print_cuda();
  return 0;
}

}  // namespace abft::cli
