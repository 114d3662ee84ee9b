/** \file kernel.hpp
 *  \brief What a campaign needs from a kernel: make the inputs of a trial, run the call on a
 *  handle under a policy, and say how far each output may move without a check seeing it.
 *
 *  One adapter per kernel family (kernel_gemm.cpp, kernel_blas3.cpp, kernel_fft.cpp,
 *  kernel_attention.cpp, kernel_train.cpp). The campaign driver (trial.cpp) owns the fault
 *  planning (a custom planner on the handle, faults.hpp) and the classification; an adapter
 *  never looks at faults.
 */
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "abft/abft.h"

namespace abft::campaign {

/** Element type of a campaign: f32, f64, c32 (complex float), c64 (complex double). */
enum class DataType { F32, F64, C32, C64 };
const char* type_name(DataType t);
/** Bits of one scalar of the type (32 or 64): the range of drawn bit positions. */
int type_bits(DataType t);

/** The part of the campaign options an adapter reads. */
struct KernelOptions {
  std::string kernel;          ///< "gemm", "symm", "fft", "attn-fwd", "train", ...
  DataType type = DataType::F32;
  std::vector<int64_t> sizes;  ///< kernel-specific (--sizes a,b,c); empty: the kernel's default
  std::string variant;         ///< kernel-specific (--variant), e.g. "tn,col" for GEMM; empty: default
  int threads = 1;             ///< threads of each call (abft_handle_set_threads)
};

/** One run of the call. */
struct RunResult {
  abft_status status = ABFT_STATUS_SUCCESS;
  abft_report report{};   ///< summed over every protected call the run made
  uint64_t calls = 0;     ///< protected kernel calls the run made
  std::vector<double> out;  ///< every output scalar, flattened (complex as re, im)
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  /** "sgemm m=96 n=96 k=96 row-major NN alpha=1 beta=0.5": what a trial runs. */
  virtual std::string describe() const = 0;
  /** The injection sites the kernel's calls have (the campaign's "all"). */
  virtual std::vector<abft_site> sites() const = 0;
  /** Make the inputs of trial `trial`, deterministically from `seed` (the trial's input
   *  seed, derived from the campaign seed and the trial id); recomputes the escape limits.
   *  Inputs vary between trials (values, and where the kernel has them, distributions). */
  virtual void prepare(uint64_t trial, uint64_t seed) = 0;
  /** Run the call on the current inputs (inputs are not changed; each run starts from them).
   *  `h` carries threads and the injection planner; `policy` is passed to every call. The
   *  driver passes the same handle to every run of one Kernel object (plans may bind it).
   *  A run is 4 calls of a trial: clean OFF, clean protected, injected OFF, injected
   *  protected; keep it cheap (no allocation that could be kept, no re-planning). */
  virtual RunResult run(abft_handle_t h, abft_policy policy) = 0;
  /** The clean OFF run's output, right after that run (step 2 of a trial) and before limits()
   *  is read: for adapters whose escape limits depend on the clean result (the training step's
   *  tolerance scales with each clean gradient), so they need not compute it a second time. */
  virtual void set_clean_output(const std::vector<double>& out) { (void)out; }
  /** Per output scalar (indexing of RunResult::out): how far an undetected fault may move it
   *  from the clean run (the escape bound, docs/RELIABILITY.md §11). A move beyond it that is
   *  not flagged is an SDC. */
  virtual const std::vector<double>& limits() const = 0;
  /** The handle the kernel's calls run on, when it is not the one passed to run() (the BLAS
   *  routines run on the shim's process handle); nullptr: run() uses `h`. */
  virtual abft_handle_t own_handle() { return nullptr; }
};

/** The adapter for opts.kernel; nullptr with *error set for an unknown kernel, a type the
 *  kernel does not have, or bad sizes / variant (the message names the option). */
std::unique_ptr<Kernel> make_kernel(const KernelOptions& opts, std::string* error);

/** Kernel names make_kernel knows, with a one-line description and default sizes. */
struct KernelInfo {
  const char* name;
  const char* types;  ///< "f32,f64" ...
  const char* sizes;  ///< meaning and default of --sizes
  const char* help;
};
const std::vector<KernelInfo>& kernel_list();

// Factories, one per adapter file (make_kernel dispatches on the name).
std::unique_ptr<Kernel> make_gemm_kernel(const KernelOptions& o, std::string* error);
std::unique_ptr<Kernel> make_blas3_kernel(const KernelOptions& o, std::string* error);
std::unique_ptr<Kernel> make_fft_kernel(const KernelOptions& o, std::string* error);
std::unique_ptr<Kernel> make_attention_kernel(const KernelOptions& o, std::string* error);
std::unique_ptr<Kernel> make_train_kernel(const KernelOptions& o, std::string* error);
std::unique_ptr<Kernel> make_selftest_kernel(const KernelOptions& o, std::string* error);
std::unique_ptr<Kernel> make_cuda_gemm_kernel(const KernelOptions& o, std::string* error);
std::unique_ptr<Kernel> make_cuda_fft_kernel(const KernelOptions& o, std::string* error);
std::unique_ptr<Kernel> make_cuda_attention_kernel(const KernelOptions& o, std::string* error);

}  // namespace abft::campaign
