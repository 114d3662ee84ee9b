/** \file abft_cuda.h
 *  \brief C API of the CUDA engine (built only when nvcc is found): device discovery.
 *
 *  Like the rest of the C API these functions never exit or abort: a machine
 *  without a GPU, without a driver, or with a driver older than the runtime is
 *  an ordinary answer ("no device"), not an error that stops the process.
 */
#pragma once
#include <stddef.h>

#include "abft/abft.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Number of usable CUDA devices; 0 when there is no device or no (usable) driver. */
ABFT_API int abft_cuda_device_count(void);

/** Write a human-readable, NUL-terminated description of the CUDA devices into
 *  buf (truncated to cap): one line per device with name, compute capability,
 *  memory and multiprocessors, preceded by the runtime/driver versions — or one
 *  line saying why there is none (e.g. "no CUDA driver", "no CUDA-capable device").
 *  Returns NULL_POINTER when buf is NULL or cap is 0, SUCCESS otherwise (also
 *  when no device exists: that is information, not a failure). */
ABFT_API abft_status abft_cuda_describe(char* buf, size_t cap);

#ifdef __cplusplus
}
#endif
