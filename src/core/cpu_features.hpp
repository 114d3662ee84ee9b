/** \file cpu_features.hpp
 *  \brief Run-time CPU feature detection (CPUID + XGETBV) used for kernel dispatch and `abft info`.
 */
#pragma once
#include <string>

#include "abft/abft.h"

namespace abft::cpu {

struct Features {
  std::string vendor, brand;
  bool sse42 = false, avx = false, avx2 = false, fma = false, f16c = false;
  bool avx512f = false, avx512dq = false, avx512vl = false, avx512bw = false;
  bool os_avx = false, os_avx512 = false;  // the OS saves the wide registers (XCR0)
  int logical_cpus = 0;
};

const Features& features();

/** Best ISA the hardware and OS support (ignores ABFT_ISA and abft_set_isa). */
abft_isa hardware_isa();

/** ISA the GEMM dispatch uses now: hardware, capped by env ABFT_ISA, or forced. */
abft_isa active_isa();

}  // namespace abft::cpu
