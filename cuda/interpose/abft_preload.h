/** \file abft_preload.h
 *  \brief The few functions libabft_preload.so exports besides the intercepted cuBLAS / cuBLASLt
 *  / cuFFT entry points: its counters and report, for tests and for programs that want to read
 *  them (dlsym them; they exist only when the library is preloaded).
 */
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Counts of one intercepted entry point (calls made from inside another intercepted call are
 *  not counted here: abft_preload_nested_calls). */
typedef struct abft_preload_counts {
  unsigned long long calls;            /**< calls the program made */
  unsigned long long protected_calls;  /**< run by the protected engine (every batch item) */
  unsigned long long unprotected;      /**< passed to the real library untouched (also partly) */
  unsigned long long failed;           /**< the engine started and failed (its error returned) */
} abft_preload_counts;

/** Counts of the entry point named `entry` (its C name, e.g. "cublasSgemm_v2"); 0 on success,
 *  -1 for a name the library does not intercept or a NULL argument. */
__attribute__((visibility("default"))) int abft_preload_entry_counts(const char* entry, abft_preload_counts* out);
/** Unprotected calls of `entry` for one reason key ("policy_off", "data_types", "compute_type",
 *  "arguments", "lt_attributes", "graph_capture", "engine_unavailable", "engine_rejected",
 *  "fft_plan_unknown", "fft_shape", "real_missing"); 0 for unknown names. */
__attribute__((visibility("default"))) unsigned long long abft_preload_reason_count(const char* entry,
                                                                                    const char* reason);
/** Calls that arrived while the same thread was inside an intercepted call (the engine's own
 *  cuBLAS / cuFFT calls, a vendor library calling its own entry points): forwarded unchanged. */
__attribute__((visibility("default"))) unsigned long long abft_preload_nested_calls(void);
/** The report as printed at exit, without the device counters (those need abft_cuda_sync);
 *  writes at most cap bytes (NUL-terminated) and returns the full length. */
__attribute__((visibility("default"))) size_t abft_preload_report(char* buf, size_t cap);
/** The stream the library holds for the program's cuFFT handle `plan` (cufftSetStream, before or
 *  after the plan was made: the stream a protected execution runs on): 0 and *stream set when the
 *  library knows the handle, -1 otherwise (tests). */
__attribute__((visibility("default"))) int abft_preload_fft_stream(int plan, void** stream);
/** Zero every counter (tests). */
__attribute__((visibility("default"))) void abft_preload_reset(void);

#ifdef __cplusplus
}
#endif
