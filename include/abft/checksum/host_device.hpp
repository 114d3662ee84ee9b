/** \file host_device.hpp
 *  \brief ABFT_HD: marks checksum-layer functions that compile for host and CUDA device.
 */
#pragma once
#if defined(__CUDACC__)
#define ABFT_HD __host__ __device__ __forceinline__
#else
#define ABFT_HD inline
#endif

/** ABFT_UNROLL: `#pragma unroll` in an ABFT_HD function's device compilation; nothing in its
 *  host compilation (where GCC would warn of an unknown pragma). */
#if defined(__CUDA_ARCH__)
#define ABFT_UNROLL _Pragma("unroll")
#else
#define ABFT_UNROLL
#endif

/** Namespace of ISA-specific instantiations. Translation units compiled with
 *  extra ISA flags (e.g. the AVX2 kernels) define ABFT_TARGET_NS before any
 *  include, so inline functions they instantiate get names of their own and
 *  can never be merged by the linker with the baseline copies (ODR-safe
 *  run-time dispatch). */
#ifndef ABFT_TARGET_NS
#define ABFT_TARGET_NS generic
/** Set where the namespace is the baseline one: code that picks ISA-specific layouts by the
 *  compiler's ISA macros (fingerprint.hpp) does so only in a namespace of the TU's own, so two
 *  TUs built with different flags never define one baseline type two ways. */
#define ABFT_TARGET_NS_IS_GENERIC 1
#endif
