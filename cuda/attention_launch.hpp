/** \file attention_launch.hpp
 *  \brief Between the GPU attention's C entry points (attention_api.cu: argument checks,
 *  injection planning, statistics) and its kernels (attention_forward.cu).
 */
#pragma once
#include <cuda_runtime.h>

#include "abft/abft_cuda.h"
#include "attention_device.cuh"
#include "device_state.hpp"

namespace abft::cuda::attn {

/** Launch the fused forward for `dtype` on `stream` (the counters of st, kernel ATTN_FWD).
 *  check false: the unprotected kernel. Returns the launch status. */
abft_status forward_launch(abft_cuda_dtype dtype, const AttnArgs& a, const DevFaultList& fl, State* st,
                           cudaStream_t stream, bool check, bool correct);

}  // namespace abft::cuda::attn
