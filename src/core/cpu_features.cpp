/** \file cpu_features.cpp
 *  \brief CPUID/XGETBV decoding and the ISA choice (env ABFT_ISA=reference|avx2|avx512 caps it).
 */
#include "core/cpu_features.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define ABFT_X86 1
#endif

namespace abft::cpu {
namespace {

#ifdef ABFT_X86
unsigned long long xgetbv0() {
  unsigned eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}
#endif

Features detect() {
  Features f;
  f.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
#ifdef ABFT_X86
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d)) {
    char v[13];
    std::memcpy(v, &b, 4);
    std::memcpy(v + 4, &d, 4);
    std::memcpy(v + 8, &c, 4);
    v[12] = 0;
    f.vendor = v;
  }
  unsigned maxext = __get_cpuid_max(0x80000000u, nullptr);
  if (maxext >= 0x80000004u) {
    char brand[49] = {0};
    for (unsigned i = 0; i < 3; ++i) {
      __get_cpuid(0x80000002u + i, &a, &b, &c, &d);
      std::memcpy(brand + 16 * i, &a, 4);
      std::memcpy(brand + 16 * i + 4, &b, 4);
      std::memcpy(brand + 16 * i + 8, &c, 4);
      std::memcpy(brand + 16 * i + 12, &d, 4);
    }
    f.brand = brand;
    while (!f.brand.empty() && f.brand.back() == ' ') f.brand.pop_back();
  }
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    f.sse42 = c & bit_SSE4_2;
    f.fma = c & bit_FMA;
    f.f16c = c & bit_F16C;
    f.avx = c & bit_AVX;
    const bool osxsave = c & bit_OSXSAVE;
    if (osxsave) {
      const unsigned long long x = xgetbv0();
      f.os_avx = (x & 0x6) == 0x6;
      f.os_avx512 = (x & 0xE6) == 0xE6;
    }
  }
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    f.avx2 = b & bit_AVX2;
    f.avx512f = b & bit_AVX512F;
    f.avx512dq = b & bit_AVX512DQ;
    f.avx512bw = b & bit_AVX512BW;
    f.avx512vl = b & bit_AVX512VL;
  }
#endif
  return f;
}

abft_isa cap_from_env(abft_isa hw) {
  const char* e = std::getenv("ABFT_ISA");
  if (!e || !*e) return hw;
  abft_isa want = hw;
  if (!std::strcmp(e, "reference") || !std::strcmp(e, "ref")) want = ABFT_ISA_REFERENCE;
  else if (!std::strcmp(e, "avx2")) want = ABFT_ISA_AVX2;
  else if (!std::strcmp(e, "avx512")) want = ABFT_ISA_AVX512;
  return want < hw ? want : hw;
}

std::atomic<int> g_forced{-1};

}  // namespace

const Features& features() {
  static const Features f = detect();
  return f;
}

abft_isa hardware_isa() {
  const Features& f = features();
  if (f.os_avx512 && f.avx512f && f.avx512dq && f.avx512vl && f.avx512bw && f.fma)
    return ABFT_ISA_AVX512;
  if (f.os_avx && f.avx2 && f.fma) return ABFT_ISA_AVX2;
  return ABFT_ISA_REFERENCE;
}

abft_isa active_isa() {
  const int forced = g_forced.load(std::memory_order_relaxed);
  if (forced >= 0) return static_cast<abft_isa>(forced);
  static const abft_isa isa = cap_from_env(hardware_isa());
  return isa;
}

}  // namespace abft::cpu

// As documented: the CPU's best ISA capped by ABFT_ISA, whatever abft_set_isa forced since
// (that is active_isa(); a caller restoring the default passes this back to abft_set_isa).
extern "C" abft_isa abft_cpu_isa(void) {
  static const abft_isa isa = abft::cpu::cap_from_env(abft::cpu::hardware_isa());
  return isa;
}

extern "C" abft_status abft_set_isa(abft_isa isa) {
  if (isa != ABFT_ISA_REFERENCE && isa != ABFT_ISA_AVX2 && isa != ABFT_ISA_AVX512)
    return ABFT_STATUS_INVALID_VALUE;
  if (isa > abft::cpu::hardware_isa()) return ABFT_STATUS_NOT_SUPPORTED;
  abft::cpu::g_forced.store(static_cast<int>(isa), std::memory_order_relaxed);
  return ABFT_STATUS_SUCCESS;
}
