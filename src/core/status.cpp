/** \file status.cpp
 *  \brief Status, enum and version strings of the C API.
 */
#include "abft/abft.h"

extern "C" const char* abft_status_string(abft_status s) {
  switch (s) {
    case ABFT_STATUS_SUCCESS: return "ABFT_STATUS_SUCCESS: success";
    case ABFT_STATUS_FAULT_DETECTED:
      return "ABFT_STATUS_FAULT_DETECTED: a checksum failed (policy detect: output not repaired)";
    case ABFT_STATUS_FAULT_UNCORRECTABLE:
      return "ABFT_STATUS_FAULT_UNCORRECTABLE: a fault was detected and its repair did not verify";
    case ABFT_STATUS_INVALID_VALUE: return "ABFT_STATUS_INVALID_VALUE: unknown enum value or bad parameter";
    case ABFT_STATUS_INVALID_SIZE: return "ABFT_STATUS_INVALID_SIZE: negative or inconsistent dimension";
    case ABFT_STATUS_INVALID_LD: return "ABFT_STATUS_INVALID_LD: leading dimension too small";
    case ABFT_STATUS_NULL_POINTER: return "ABFT_STATUS_NULL_POINTER: null pointer for non-empty data";
    case ABFT_STATUS_ALLOC_FAILED: return "ABFT_STATUS_ALLOC_FAILED: workspace allocation failed";
    case ABFT_STATUS_NOT_SUPPORTED: return "ABFT_STATUS_NOT_SUPPORTED: not supported by this build or CPU";
    case ABFT_STATUS_INTERNAL_ERROR: return "ABFT_STATUS_INTERNAL_ERROR: internal error";
  }
  return "ABFT_STATUS_?: unknown status value";
}

extern "C" const char* abft_kernel_name(abft_kernel k) {
  switch (k) {
    case ABFT_KERNEL_SGEMM: return "sgemm";
    case ABFT_KERNEL_DGEMM: return "dgemm";
    case ABFT_KERNEL_CGEMM: return "cgemm";
    case ABFT_KERNEL_ZGEMM: return "zgemm";
    case ABFT_KERNEL_SFFT: return "sfft";
    case ABFT_KERNEL_DFFT: return "dfft";
    case ABFT_KERNEL_ATTN_FWD: return "attn_fwd";
    case ABFT_KERNEL_ATTN_BWD: return "attn_bwd";
    default: return "unknown";
  }
}

extern "C" const char* abft_isa_name(abft_isa isa) {
  switch (isa) {
    case ABFT_ISA_REFERENCE: return "reference";
    case ABFT_ISA_AVX2: return "avx2";
    case ABFT_ISA_AVX512: return "avx512";
  }
  return "unknown";
}

extern "C" const char* abft_version(void) {
#ifdef ABFT_VERSION_STRING
  return ABFT_VERSION_STRING;
#else
  return "0.0.0";
#endif
}
