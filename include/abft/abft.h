/** \file abft.h
 *  \brief C API of abft: status codes, policies, handles, protected GEMM,
 *         error statistics and the fault-injection hook.
 *
 *  Every entry point returns an ::abft_status. Negative values are argument or
 *  resource errors (nothing was written); zero is success (possibly after a
 *  located fault was repaired — see ::abft_report); positive values report a
 *  fault that was detected but not repaired. The library never exits or aborts.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define ABFT_API __declspec(dllexport)
#else
#define ABFT_API __attribute__((visibility("default")))
#endif

/* ------------------------------------------------------------------ status */
typedef enum abft_status {
  ABFT_STATUS_SUCCESS = 0,
  /** policy DETECT: a checksum failed; the output is left as computed. */
  ABFT_STATUS_FAULT_DETECTED = 1,
  /** policy CORRECT: a fault was detected and the repair did not re-verify. */
  ABFT_STATUS_FAULT_UNCORRECTABLE = 2,

  ABFT_STATUS_INVALID_VALUE = -1,    /**< unknown enum value or bad parameter */
  ABFT_STATUS_INVALID_SIZE = -2,     /**< negative or inconsistent dimension */
  ABFT_STATUS_INVALID_LD = -3,       /**< leading dimension too small */
  ABFT_STATUS_NULL_POINTER = -4,     /**< null pointer where data is needed */
  ABFT_STATUS_ALLOC_FAILED = -5,     /**< workspace allocation failed */
  ABFT_STATUS_NOT_SUPPORTED = -6,    /**< valid request this build cannot do */
  ABFT_STATUS_INTERNAL_ERROR = -7
} abft_status;

/** Static, human-readable name of a status ("ABFT_STATUS_INVALID_LD: ..."). */
ABFT_API const char* abft_status_string(abft_status s);

/* ------------------------------------------------------------------ enums */
typedef enum abft_layout { ABFT_ROW_MAJOR = 101, ABFT_COL_MAJOR = 102 } abft_layout;
typedef enum abft_op { ABFT_NO_TRANS = 111, ABFT_TRANS = 112, ABFT_CONJ_TRANS = 113 } abft_op;

/** Protection policy. DEFAULT defers: call -> handle -> env ABFT_POLICY -> CORRECT. */
typedef enum abft_policy {
  ABFT_POLICY_DEFAULT = -1,
  ABFT_POLICY_OFF = 0,     /**< no checksums at all: the plain kernel */
  ABFT_POLICY_DETECT = 1,  /**< verify; report, do not repair */
  ABFT_POLICY_CORRECT = 2  /**< verify, locate, repair, re-verify */
} abft_policy;

/** Kernels that keep statistics. Later kernel families append here. */
typedef enum abft_kernel {
  ABFT_KERNEL_SGEMM = 0,
  ABFT_KERNEL_DGEMM = 1,
  ABFT_KERNEL_CGEMM = 2,  /**< complex float GEMM (run on the real engine, see docs/ABFT.md) */
  ABFT_KERNEL_ZGEMM = 3,  /**< complex double GEMM */
  ABFT_KERNEL_SFFT = 4,   /**< FFT in float (every kind; see abft/fft.h) */
  ABFT_KERNEL_DFFT = 5,   /**< FFT in double */
  ABFT_KERNEL_ATTN_FWD = 6, /**< attention forward, float (abft/attention.h) */
  ABFT_KERNEL_ATTN_BWD = 7, /**< attention backward, float */
  ABFT_KERNEL_COUNT_ = 8
} abft_kernel;
ABFT_API const char* abft_kernel_name(abft_kernel k);

/* ------------------------------------------------------------- per-call report */
/** What one call saw. Counts are events of this call only. */
typedef struct abft_report {
  uint64_t checks;          /**< checksum verifications performed */
  uint64_t detected;        /**< verifications that failed (faults seen) */
  uint64_t corrected;       /**< GEMM: output elements located and recomputed;
                                 FFT: units (lines, sub-transforms) repaired and re-verified */
  uint64_t recomputed;      /**< GEMM: rows/columns/blocks recomputed (pattern not isolable);
                                 FFT: unit recomputations (every FFT repair is one) */
  uint64_t uncorrectable;   /**< repairs that failed re-verification */
  uint64_t skipped;         /**< checks skipped: non-finite input, or an output that may overflow */
  double max_ratio;         /**< largest |residual| / bound over passing clean checks
                                 (1/max_ratio is the observed sharpness). An FFT check
                                 that passed on a sampled input norm (docs/ABFT.md §9.2)
                                 enters against that smaller bound: an upper estimate */
} abft_report;

/* ------------------------------------------------------------- statistics */
typedef struct abft_counters {
  uint64_t calls, checks, detected, corrected, recomputed, uncorrectable, skipped;
} abft_counters;

typedef struct abft_handle_s* abft_handle_t;  /* opaque */

/** Counters of one kernel. h == NULL reads the process-wide totals. */
ABFT_API abft_status abft_stats_get(abft_handle_t h, abft_kernel k, abft_counters* out);
/** Zero the counters (of h, or process-wide when h == NULL). */
ABFT_API abft_status abft_stats_reset(abft_handle_t h);
typedef enum abft_format { ABFT_FORMAT_TEXT = 0, ABFT_FORMAT_JSON = 1 } abft_format;
/** Write the statistics table into buf (NUL-terminated, truncated to cap);
 *  *needed (optional) receives the full length + 1. */
ABFT_API abft_status abft_stats_format(abft_handle_t h, abft_format f, char* buf, size_t cap,
                                       size_t* needed);
/* Env ABFT_STATS=text|json|1 prints the process-wide table to stderr at exit. */

/* ------------------------------------------------------------- fault injection */
/** Where a fault lands. Coordinates are the caller's logical ones, whatever
 *  the layout: C(row,col), op(A)(row,kpos), op(B)(kpos,col). */
typedef enum abft_site {
  ABFT_SITE_OUTPUT = 0,       /**< the value stored to C(row,col) by its final epilogue, before it is summed into the checksum */
  ABFT_SITE_ACCUMULATOR = 1,  /**< C(row,col)'s accumulator after `kpos` of k terms */
  ABFT_SITE_PACKED_A = 2,     /**< op(A)(row,kpos) in the packed copy (memory fault) */
  ABFT_SITE_PACKED_B = 3,     /**< op(B)(kpos,col) in the packed copy (memory fault). A GEMM
                                   with at most 8 rows of C (row-major; columns, column-major)
                                   runs the small-M path (docs/ABFT.md §1.1), which streams
                                   op(B) (column-major: op(A)) without a copy: a fault at that
                                   operand's site does not land there (applied stays 0) */
  ABFT_SITE_FFT_STAGE = 4,    /**< FFT: a value stage `kpos` of unit `row` wrote (see abft/fft.h) */
  ABFT_SITE_FFT_TWIDDLE = 5,  /**< FFT: a twiddle-table entry stage `kpos` reads (memory fault) */
  /* Attention (coordinates in abft/attention.h; OUTPUT is the stored O there). */
  ABFT_SITE_ATTN_SCORES = 6,  /**< a score of Q*K^T as computed, before it is summed or softmaxed */
  ABFT_SITE_ATTN_PROBS = 7,   /**< a probability as stored for the next product */
  ABFT_SITE_ATTN_ROWSTAT = 8, /**< a query row's running maximum or normalizer */
  ABFT_SITE_ATTN_ACC = 9,     /**< the output accumulator of P*V between key blocks */
  ABFT_SITE_ATTN_DP = 10,     /**< backward: dP = dO V^T as computed */
  ABFT_SITE_ATTN_DS = 11,     /**< backward: dS = P o (dP - D) as stored */
  ABFT_SITE_ATTN_DQ = 12,     /**< backward: the dQ accumulator between key blocks */
  ABFT_SITE_ATTN_DK = 13,     /**< backward: the dK accumulator between query blocks */
  ABFT_SITE_ATTN_DV = 14,     /**< backward: the dV accumulator between query blocks */
  ABFT_SITE_COUNT_ = 15
} abft_site;

typedef enum abft_fault_model {
  ABFT_FAULT_BITFLIP = 0,      /**< flip bit `bit` (0 = LSB of the mantissa) */
  ABFT_FAULT_BITFLIP2 = 1,     /**< flip bits `bit` and `bit`+1 */
  ABFT_FAULT_RANDOM = 2,       /**< replace with a random value (`value`) */
  ABFT_FAULT_ZERO = 3,
  ABFT_FAULT_NAN = 4,
  ABFT_FAULT_POS_INF = 5,
  ABFT_FAULT_NEG_INF = 6,
  ABFT_FAULT_MODEL_COUNT_ = 7
} abft_fault_model;

/** One fault. In a spec, -1 in bit/row/col/kpos means "draw at random". */
typedef struct abft_fault {
  abft_site site;
  abft_fault_model model;
  int32_t bit;
  int64_t row, col, kpos;
  double value;      /**< RANDOM: the value written (drawn when planned) */
  double original;   /**< filled by the engine: the value before the fault */
  double corrupted;  /**< filled by the engine: the value after (what was stored) */
  int32_t applied;   /**< filled by the engine: 1 once the fault landed */
} abft_fault;

/** Call description given to an injection planner (the caller's m, n, k). */
typedef struct abft_call_info {
  abft_kernel kernel;
  int64_t m, n, k;
  uint64_t call_index;   /**< calls seen by this handle's injector so far */
  int64_t batch;         /**< attention: batch*heads independent problems; a strided batch of
                              GEMMs (GPU engine): its items, stacked along the rows of the output
                              and op(A) and the columns of op(B); 0 or 1 elsewhere */
} abft_call_info;

/** Custom injection hook: fill up to `cap` concrete faults (no -1 fields) for
 *  this call and return how many. NULL hook (the default) costs nothing. */
typedef int (*abft_inject_plan_fn)(void* user, const abft_call_info* call, abft_fault* out,
                                   int cap);

/** Built-in, seeded injector: a list of fault specs drawn deterministically
 *  from (seed, call index). */
typedef struct abft_injector_s* abft_injector_t;
ABFT_API abft_status abft_injector_create(uint64_t seed, abft_injector_t* out);
ABFT_API abft_status abft_injector_destroy(abft_injector_t inj);
/** Add a spec; every planned call draws one concrete fault from it. */
ABFT_API abft_status abft_injector_add(abft_injector_t inj, const abft_fault* spec);
ABFT_API abft_status abft_injector_clear(abft_injector_t inj);
/** Rate mode: with 0 <= rate <= 1, each planned call draws at most one fault,
 *  with probability `rate`, from one spec chosen at random. A negative rate
 *  (the default) restores the plain mode: every spec fires on every call. */
ABFT_API abft_status abft_injector_set_rate(abft_injector_t inj, double rate);
/** Rate per floating-point operation: each planned call draws at most one fault, with
 *  probability 1 - exp(-per_flop * flops) where flops is the call's nominal operation count
 *  (abft_call_flops), from one spec chosen at random. 0 <= per_flop; the latest of this and
 *  abft_injector_set_rate wins. A negative value restores the plain mode. */
ABFT_API abft_status abft_injector_set_flop_rate(abft_injector_t inj, double per_flop);
/** Nominal floating-point operations of a call (the basis of the per-FLOP rate): GEMM 2mnk
 *  (complex 8mnk), attention 4*batch*m*n*k forward and 10*batch*m*n*k backward, FFT 2.5*m*n*k
 *  (units x scalars x stages). */
ABFT_API double abft_call_flops(const abft_call_info* call);
/* In both rate modes the spec is chosen among those whose site exists for the call's kernel
 * (GEMM sites for a GEMM, attention sites for attention, ...), so one spec list can serve
 * every kernel family. */
/** Faults of the most recent call, with original/corrupted/applied filled in. */
ABFT_API abft_status abft_injector_last(abft_injector_t inj, abft_fault* out, int cap, int* count);
/** Coordinate ranges of a site for a call: a fault lands when 0 <= row < *rows,
 *  0 <= col < *cols, 0 <= kpos < *kpos, where a range of 0 means the site ignores that
 *  coordinate (use 0). Returns SUCCESS when the site exists for call->kernel,
 *  ABFT_STATUS_NOT_SUPPORTED when it does not (e.g. an FFT site for a GEMM); any output
 *  pointer may be NULL. For custom planners (abft_handle_set_inject_hook). */
ABFT_API abft_status abft_site_extent(const abft_call_info* call, abft_site site, int64_t* rows,
                                      int64_t* cols, int64_t* kpos);

/* ------------------------------------------------------------- handle */
ABFT_API abft_status abft_handle_create(abft_handle_t* out);
ABFT_API abft_status abft_handle_destroy(abft_handle_t h);
ABFT_API abft_status abft_handle_set_policy(abft_handle_t h, abft_policy p);
ABFT_API abft_status abft_handle_get_policy(abft_handle_t h, abft_policy* p);
/** Threads for this handle's calls; 0 = OpenMP default. */
ABFT_API abft_status abft_handle_set_threads(abft_handle_t h, int nthreads);
/** Attach (or detach with NULL) a built-in injector. The handle does not own it. */
ABFT_API abft_status abft_handle_set_injector(abft_handle_t h, abft_injector_t inj);
/** Attach (or detach with NULL) a custom planner. */
ABFT_API abft_status abft_handle_set_inject_hook(abft_handle_t h, abft_inject_plan_fn fn,
                                                 void* user);
/** Faults of the most recent call on h that planned any (from the injector or the custom
 *  planner), with original/corrupted/applied filled in by the engine; *count = 0 when no call
 *  has planned one since the injector or planner was last set. How a custom planner learns
 *  whether and what its faults hit. */
ABFT_API abft_status abft_handle_last_injected(abft_handle_t h, abft_fault* out, int cap,
                                               int* count);

/** Effective policy when nothing overrides it (env ABFT_POLICY=off|detect|correct). */
ABFT_API abft_policy abft_default_policy(void);

/* ------------------------------------------------------------- GEMM */
/** C <- alpha*op(A)*op(B) + beta*C (BLAS semantics: beta == 0 never reads C;
 *  alpha == 0 never reads A or B). h may be NULL (process defaults), policy
 *  DEFAULT defers to the handle, report may be NULL. */
ABFT_API abft_status abft_sgemm(abft_handle_t h, abft_policy policy, abft_layout layout,
                                abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                float alpha, const float* A, int64_t lda, const float* B,
                                int64_t ldb, float beta, float* C, int64_t ldc,
                                abft_report* report);
ABFT_API abft_status abft_dgemm(abft_handle_t h, abft_policy policy, abft_layout layout,
                                abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                double alpha, const double* A, int64_t lda, const double* B,
                                int64_t ldb, double beta, double* C, int64_t ldc,
                                abft_report* report);

/** Complex GEMM, same contract as abft_sgemm. Scalars and matrices are
 *  interleaved (re, im) pairs — C99 float _Complex / std::complex<float>
 *  layout; alpha and beta point to one such pair each. */
ABFT_API abft_status abft_cgemm(abft_handle_t h, abft_policy policy, abft_layout layout,
                                abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                const void* alpha, const void* A, int64_t lda, const void* B,
                                int64_t ldb, const void* beta, void* C, int64_t ldc,
                                abft_report* report);
ABFT_API abft_status abft_zgemm(abft_handle_t h, abft_policy policy, abft_layout layout,
                                abft_op transa, abft_op transb, int64_t m, int64_t n, int64_t k,
                                const void* alpha, const void* A, int64_t lda, const void* B,
                                int64_t ldb, const void* beta, void* C, int64_t ldc,
                                abft_report* report);

/* ------------------------------------------------------------- platform */
typedef enum abft_isa { ABFT_ISA_REFERENCE = 0, ABFT_ISA_AVX2 = 1, ABFT_ISA_AVX512 = 2 } abft_isa;
ABFT_API const char* abft_isa_name(abft_isa isa);
/** Best ISA this CPU supports (CPUID + OS state), capped by env ABFT_ISA. */
ABFT_API abft_isa abft_cpu_isa(void);
/** Force the GEMM kernel ISA for this process (tests); fails if unsupported. */
ABFT_API abft_status abft_set_isa(abft_isa isa);
ABFT_API const char* abft_version(void);
/** Static description of the GEMM kernel the dispatch picks now for k
 *  (ISA, register tile, cache blocking), e.g. "avx2 6x16 mc=144 kc=256 nc=4080". */
ABFT_API const char* abft_gemm_kernel_info(abft_kernel k);

#ifdef __cplusplus
}
#endif
