/** \file host_device.hpp
 *  \brief ABFT_HD: marks checksum-layer functions that compile for host and CUDA device.
 */
#pragma once
#if defined(__CUDACC__)
#define ABFT_HD __host__ __device__ __forceinline__
#else
#define ABFT_HD inline
#endif
