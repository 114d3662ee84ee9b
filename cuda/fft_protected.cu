/** \file fft_protected.cu
 *  \brief Protected FFT on device pointers (issue 10, first part): the transform is cuFFT's,
 *  the checksums are ours (fft_check.cuh over abft/checksum/fft_library_check.hpp), a failed
 *  signal is recomputed in double on the device and re-verified, and the outcome is counted on
 *  the device: the fault-free path never synchronizes with the host. abft_cuda_sync() reads the
 *  counters (shared with the GEMM, device_state.hpp).
 *
 *  One execution:
 *    1. input side of every signal (and, when the transform may overwrite its input or a fault
 *       is planned there, a packed copy of the input for the repair);
 *    2. cuFFT (with a corrupted private copy of the input when a fault is injected there);
 *    3. faults injected at the output, before verification (injection only);
 *    4. output side, verdict per signal, device counters;
 *    5. CORRECT: every failed signal recomputed in double, then re-verified (one launch: its
 *       last block re-checks and clears the failed-signal count); one that still fails counts
 *       as uncorrectable.
 *  The fault-free path's launches beside cuFFT's (tests/emu/cost_ledger_test.cpp counts them):
 *  CALLBACKS two (the verdicts, and the repair launch whose blocks return at once) plus the
 *  gate's when the call's sign changes or the last call left its flags; PASSES four (the two
 *  sides, the verdicts, the repair launch) and a memset of the sums.
 *  Two ways of forming the sums (abft_cuda_fft_sums, chosen when the plan is made):
 *   - CALLBACKS (the default): cuFFT's load and store callbacks (cuda/fft_callbacks.cu, LTO-IR
 *     linked into cuFFT's kernels at plan time) add every element's term to per-(signal,
 *     bucket) sums as cuFFT moves it; one small kernel adds the buckets and gives the verdicts.
 *     Steps 1 and 4 ride on the transform's own loads and stores; an injected fault is applied
 *     in the callbacks (in what cuFFT gets, in what it stores). A policy-OFF call runs a second
 *     cuFFT plan without callbacks, made on first use.
 *   - PASSES (ABFT_CUDA_FFT_SUMS=passes, or when cuFFT refuses the callbacks): separate passes
 *     over the input and the output around cuFFT (cuda/fft_check.cuh), as described above.
 *  Steps 4 (verdicts), 5 and the counters are shared. The callbacks are NOT yet run on a GPU
 *  (docs/PERFORMANCE.md, "GPU FFT").
 *
 *  Status: compiled for sm_90 + PTX in every CUDA build; argument checks tested on the CPU;
 *  run on an H200 (2026-11-30: tests pass, docs/RELIABILITY.md §12).
 */
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "abft/abft_cuda.h"
#include "abft/abft_cufft.h"
#include "abft/checksum/fault_models.hpp"
#include "abft/fft.h"
#include "core/internal.hpp"
#include "cpu/fft/c2r_tables.hpp"
#include "device_state.hpp"
#include "fft_callback_args.hpp"
#include "fft_check.cuh"

struct abft_cuda_fft_plan_s {
  abft_handle_t handle = nullptr;
  abft_policy policy = ABFT_POLICY_DEFAULT;
  bool dbl = false;
  cufftHandle fft = 0;
  bool fft_made = false;
  abft::checksum::FftLibraryShape sh;
  abft::cuda::SigLayout in, out;
  int64_t batch = 1;
  abft::cuda::FftVerdictArgs va{};
  abft::checksum::Cd* c2r_tab = nullptr;  // device (C2R): per dimension w[d], then W[d] (n_d each)
  abft::checksum::FftC2RWeights c2r;       // views into c2r_tab
  abft::checksum::Cd* turn_tab = nullptr;  // device: the turn tables of each dimension (C2C, R2C)
  abft::checksum::FftTableWeights tw;      // views into turn_tab
  double* acc = nullptr;                  // device: kAcc per signal
  abft::cuda::FftRepairSplit repair;      // how a failed signal is recomputed
  double* repair_z = nullptr;             // device: the two-level repair's z, a block slot each
  int* flag_base = nullptr;               // device: the callbacks' gate, then flags, then repair_done
  int* flags = nullptr;                   // device: count, then the failed signals (flag_base + 1)
  unsigned* repair_done = nullptr;        // device: the repair launch's finished blocks (zero at rest)
  // What the device holds at the next call's start, as far as the host knows: the failed-signal
  // count cleared (a CORRECT call's repair launch clears it; a DETECT call leaves its count), and
  // (CALLBACKS) the gate open with this sign (0: closed). A call opens the gate and clears the
  // count (one launch; PASSES: a memset of the count) only when they are not so already.
  bool flags_clear = true;
  int gate_sign = 0;
  void* backup = nullptr;                 // device: packed input copy (grown on demand)
  size_t backup_bytes = 0;
  cudaStream_t stream = nullptr;  // the cuFFT-signature path's stream (abft_cufftSetStream)
  // cuFFT's plan parameters (for the plain plan a callback plan makes on its first OFF call).
  long long nn[3] = {1, 1, 1}, ie[3] = {1, 1, 1}, oe[3] = {1, 1, 1};
  long long istride = 1, idist = 1, ostride = 1, odist = 1;
  cufftType type = CUFFT_C2C;
  // CALLBACKS: the callbacks' arguments (device; cb_info is their caller_info), the copy last
  // written there, the (signal, bucket) sums (input side, then output side; zero between calls:
  // the verification kernel clears what it read) and the injected faults' values.
  bool callbacks = false;
  abft::cuda::FftCallbackArgs* cb_dev = nullptr;
  void* cb_info = nullptr;
  abft::cuda::FftCallbackArgs cb_last{};
  bool cb_written = false;
  double* buckets = nullptr;
  size_t bucket_doubles = 0;
  double* fault_vals = nullptr;
  // Asked for CALLBACKS but formed in PASSES: the cuFFT call that refused the callbacks and its
  // cufftResult, for abft_cuda_fft_get_callback_refusal (the first refusal; null / 0 otherwise).
  const char* cb_refused_at = nullptr;
  int cb_refused_result = 0;
  cufftHandle plain = 0;  // CALLBACKS: the plan of policy-OFF calls
  bool plain_made = false;
  std::string desc;
  // One execution at a time on the plan's buffers: `mu` held while enqueuing, and a call on
  // another stream than the previous one waits for its end (`done`).
  std::mutex mu;
  cudaEvent_t done = nullptr;
  cudaStream_t last = nullptr;
  bool used = false;
  ~abft_cuda_fft_plan_s() {
    if (done) cudaEventDestroy(done);
    if (fft_made) cufftDestroy(fft);
    if (plain_made) cufftDestroy(plain);
    cudaFree(cb_dev);
    cudaFree(buckets);
    cudaFree(fault_vals);
    cudaFree(c2r_tab);
    cudaFree(turn_tab);
    cudaFree(acc);
    cudaFree(repair_z);
    cudaFree(flag_base);
    cudaFree(backup);
  }
};

namespace abft::cuda {
namespace {

namespace ck = abft::checksum;

cufftType cufft_type(bool dbl, abft_fft_kind kind) {
  if (kind == ABFT_FFT_C2C) return dbl ? CUFFT_Z2Z : CUFFT_C2C;
  if (kind == ABFT_FFT_R2C) return dbl ? CUFFT_D2Z : CUFFT_R2C;
  return dbl ? CUFFT_Z2D : CUFFT_C2R;
}

/** Scalars from the first to the last element of all signals of a side, plus one. */
int64_t span_scalars(const SigLayout& L, int64_t batch) {
  int64_t last[3] = {0, 0, 0};
  for (int d = 0; d < L.rank; ++d) last[d] = L.dims[d] - 1;
  return (L.offset(batch - 1, last) + 1) * (L.complex ? 2 : 1);
}

/** A plan made through the cuFFT-signature API. cuFFT's basic layout (NULL embeds) of a real
 *  transform depends on the call: rows of the real side are padded to 2 (n/2 + 1) when it runs
 *  in place, tight otherwise; the padded variant is planned on its first in-place call. */
struct CufftEntry {
  abft_cuda_fft_plan_s* tight = nullptr;   ///< the plan as made; the caller's cufftHandle is its
  abft_cuda_fft_plan_s* padded = nullptr;  ///< basic real plans run in place (made on first use)
  cufftType type = CUFFT_C2C;
  bool basic = true;
  int rank = 1;
  int64_t n[3] = {1, 1, 1};
  int64_t batch = 1;
  cudaStream_t stream = nullptr;
  ~CufftEntry() {
    delete tight;
    delete padded;
  }
};

std::mutex g_reg_mu;
std::unordered_map<cufftHandle, CufftEntry*>& registry() {
  static auto* m = new std::unordered_map<cufftHandle, CufftEntry*>();
  return *m;
}

/** The element (flat index on its side) and scalar an injected fault's column names: col
 *  counts the side's scalars, folded into one signal of cnt elements. */
int64_t fault_element(const SigLayout& L, int64_t col, int64_t cnt, int* scalar) {
  const int sc = L.complex ? 2 : 1;
  *scalar = int(col % sc);
  return (col / sc) % cnt;
}

/** Element offset (in elements of the side) of that element in signal `row`. */
int64_t fault_offset(const SigLayout& L, int64_t row, int64_t col, int64_t cnt, int* scalar) {
  int64_t idx[3] = {0, 0, 0};
  ck::fft_unravel(fault_element(L, col, cnt, scalar), L.rank, L.dims, idx);
  return L.offset(row, idx);
}

/** One fault at a side's element, corrupted in memory by a one-thread kernel on the call's
 *  stream (PASSES; injection only: synchronizes). */
template <class T>
void inject_in_memory(T* p, const SigLayout& L, abft_fault& f, int64_t cnt, cudaStream_t stream) {
  double* dv = nullptr;
  if (cudaMalloc(&dv, 2 * sizeof(double)) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  int scalar = 0;
  const int64_t e = fault_element(L, f.col, cnt, &scalar);
  fft_fault_kernel<T><<<1, 1, 0, stream>>>(p, L, f.row, e, scalar, f.model, f.bit, f.value, dv);
  double v[2] = {0, 0};
  cudaMemcpyAsync(v, dv, sizeof v, cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  cudaFree(dv);
  f.original = v[0], f.corrupted = v[1], f.applied = 1;
}

/** Everything of one protected call both ways of forming the sums share. */
struct Call {
  abft_cuda_fft_plan_s* p;
  cudaStream_t stream;
  ck::FftLibraryShape sh;  // with this call's sign
  int dir;
  int64_t batch, cin, cout;
  abft_kernel kid;
  core::InjectionPlan plan;
  State* st;
  abft_policy pol;
};

/** PASSES: the input side, cuFFT (from a corrupted private copy when a fault is injected into
 *  its input), output faults, the output side and the verdicts. */
template <class T>
abft_status run_passes(Call& c, const T* in, T* out, T* backup) {
  abft_cuda_fft_plan_s* p = c.p;
  cudaStream_t stream = c.stream;
  const int64_t batch = c.batch, cin = c.cin, cout = c.cout;
  bool input_fault = false;
  for (const abft_fault& f : c.plan.faults) input_fault = input_fault || f.site == ABFT_SITE_FFT_STAGE;
  cudaMemsetAsync(p->acc, 0, size_t(kAcc * batch) * sizeof(double), stream);

  const int threads = kSumThreads;
  auto slices = [](int64_t cnt) { return sum_slices(cnt); };
  const unsigned gy = unsigned(batch < 65535 ? batch : 65535);
  const ck::FftC2RWeights& c2r = p->c2r;

  // 1. Input side.
  // Rank 1 (the common case) as its own instance: no run-time indexing of the shape or tables.
  // Short rank-1 signals: a warp each (fft_warp_sums_kernel), as many blocks as fill the device.
  const bool r1 = c.sh.rank == 1;
  const unsigned wblocks = unsigned((batch + 7) / 8 < 8192 ? (batch + 7) / 8 : 8192);  // 8 warps a block
  if (r1 && cin <= ck::kFftWarpMaxCount)
    fft_warp_sums_kernel<T, true><<<wblocks, threads, 0, stream>>>(in, p->in, c.sh, p->tw, c2r, batch, p->acc,
                                                                  backup);
  else
    (r1 ? fft_in_kernel<T, 1> : fft_in_kernel<T, 0>)<<<dim3(slices(cin), gy), threads, 0, stream>>>(
        in, p->in, c.sh, p->tw, c2r, batch, p->acc, backup);

  // 2. The transform (from a corrupted private copy when a fault is injected into its input).
  const T* src = in;
  T* scratch = nullptr;
  if (input_fault) {
    const int64_t span = span_scalars(p->in, batch);
    if (cudaMalloc(&scratch, size_t(span) * sizeof(T)) != cudaSuccess) {
      cudaGetLastError();
      return ABFT_STATUS_ALLOC_FAILED;
    }
    cudaMemcpyAsync(scratch, in, size_t(span) * sizeof(T), cudaMemcpyDeviceToDevice, stream);
    for (abft_fault& f : c.plan.faults)  // injection only: the fault-free path never gets here
      if (f.site == ABFT_SITE_FFT_STAGE) inject_in_memory(scratch, p->in, f, cin, stream);
    src = scratch;
  }
  const cufftResult fr = cufftXtExec(p->fft, const_cast<T*>(src), out, c.dir);
  if (scratch) {
    cudaStreamSynchronize(stream);
    cudaFree(scratch);
  }
  if (fr != CUFFT_SUCCESS) return ABFT_STATUS_INTERNAL_ERROR;
  // 3. Output faults.
  for (abft_fault& f : c.plan.faults)
    if (f.site == ABFT_SITE_OUTPUT) inject_in_memory(out, p->out, f, cout, stream);

  // 4. Output side and verdicts.
  if (r1 && cout <= ck::kFftWarpMaxCount)
    fft_warp_sums_kernel<T, false><<<wblocks, threads, 0, stream>>>(out, p->out, c.sh, p->tw, c2r, batch, p->acc,
                                                                   nullptr);
  else
    (r1 ? fft_out_kernel<T, 1> : fft_out_kernel<T, 0>)<<<dim3(slices(cout), gy), threads, 0, stream>>>(
        out, p->out, c.sh, p->tw, c2r, batch, p->acc);
  const unsigned vb = unsigned((batch + threads - 1) / threads < 4096 ? (batch + threads - 1) / threads : 4096);
  fft_verify_kernel<<<vb, threads, 0, stream>>>(p->acc, batch, p->va, p->flags, c.st->counters + c.kid);
  return ABFT_STATUS_SUCCESS;
}

/** CALLBACKS: this call's callback arguments (written to the device when they differ from the
 *  last ones), cuFFT with the callbacks, the faults' values read back (injection only), then
 *  the buckets' verification. */
template <class T>
abft_status run_callbacks(Call& c, const T* in, T* out, T* backup) {
  abft_cuda_fft_plan_s* p = c.p;
  cudaStream_t stream = c.stream;
  FftCallbackArgs a = p->cb_last;  // (a.sh.sign stays the plan's: the call's is the gate's)
  a.backup = backup;
  a.n_in = a.n_out = 0;
  for (int i = 0; i < kFftCallbackFaults; ++i) a.fault_in[i] = a.fault_out[i] = FftCallbackFault{};
  abft_fault* f_in[kFftCallbackFaults] = {};
  abft_fault* f_out[kFftCallbackFaults] = {};
  for (abft_fault& f : c.plan.faults) {  // up to kFftCallbackFaults a side; more stay unapplied
    const bool input = f.site == ABFT_SITE_FFT_STAGE;
    if (!input && f.site != ABFT_SITE_OUTPUT) continue;
    int& n = input ? a.n_in : a.n_out;
    if (n == kFftCallbackFaults) continue;
    FftCallbackFault& cf = input ? a.fault_in[n] : a.fault_out[n];
    (input ? f_in : f_out)[n] = &f;
    ++n;
    cf.off = fault_offset(input ? p->in : p->out, f.row, f.col, input ? c.cin : c.cout, &cf.scalar);
    cf.model = int(f.model), cf.bit = f.bit, cf.value = f.value;
  }
  if (!p->cb_written || std::memcmp(&a, &p->cb_last, sizeof a) != 0) {
    // A pageable source is staged before the call returns: `a` may go out of scope after it.
    if (cudaMemcpyAsync(p->cb_dev, &a, sizeof a, cudaMemcpyHostToDevice, stream) != cudaSuccess) {
      p->cb_written = false;  // the device's copy is unknown: written again at the next call
      return ABFT_STATUS_INTERNAL_ERROR;
    }
    p->cb_last = a;
    p->cb_written = true;
  }
  // Only now, the arguments in place: the callbacks open with this call's sign, no failed
  // signal yet — one launch, unless the last call left them so (the plan's cuFFT handle runs
  // the library's protected calls alone: policy OFF has a plan of its own, `plain`).
  if (p->gate_sign != c.sh.sign || !p->flags_clear) {
    fft_open_gate_kernel<<<1, 1, 0, stream>>>(p->flag_base, c.sh.sign);
    p->gate_sign = c.sh.sign;
    p->flags_clear = true;
  }
  const bool faults = a.n_in || a.n_out;
  if (faults)  // NaN (0xff bytes): a fault that was not reached
    cudaMemsetAsync(p->fault_vals, 0xff, 4 * kFftCallbackFaults * sizeof(double), stream);
  const cufftResult fr = cufftXtExec(p->fft, const_cast<T*>(in), out, c.dir);
  // The verification kernel clears the buckets; a call that stops before it clears them here
  // and closes the gate, so the next call starts clean (and opens it again).
  auto abandon = [&] {
    cudaGetLastError();
    cudaMemsetAsync(p->buckets, 0, p->bucket_doubles * sizeof(double), stream);
    cudaMemsetAsync(p->flag_base, 0, sizeof(int), stream);
    p->gate_sign = 0;
    return ABFT_STATUS_INTERNAL_ERROR;
  };
  if (fr != CUFFT_SUCCESS) return abandon();
  if (faults) {  // injection only: the fault-free path never waits
    double v[4 * kFftCallbackFaults];
    cudaMemcpyAsync(v, p->fault_vals, sizeof v, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    for (int i = 0; i < 2 * kFftCallbackFaults; ++i) {
      abft_fault* f = i < kFftCallbackFaults ? f_in[i] : f_out[i - kFftCallbackFaults];
      if (!f || std::isnan(v[2 * i])) continue;  // (a NaN before the fault: recorded as not applied)
      f->original = v[2 * i], f->corrupted = v[2 * i + 1], f->applied = 1;
    }
  }
  const int64_t wpb = kSumThreads / 32, blocks = (c.batch + wpb - 1) / wpb;
  fft_bucket_verify_kernel<<<unsigned(blocks < 2048 ? blocks : 2048), kSumThreads, 0, stream>>>(
      p->buckets, p->buckets + size_t(3 * c.batch * a.in.buckets), a.in.buckets, a.out.buckets, c.batch, p->acc,
      p->va, p->flags, c.st->counters + c.kid);
  if (cudaPeekAtLastError() != cudaSuccess) return abandon();
  return ABFT_STATUS_SUCCESS;
}

/** cuFFT's planning of the plan's shape and layout on handle h (64-bit planner). */
cufftResult make_cufft_plan(const abft_cuda_fft_plan_s* p, cufftHandle h) {
  size_t ws = 0;
  return cufftMakePlanMany64(h, p->sh.rank, const_cast<long long*>(p->nn), const_cast<long long*>(p->ie), p->istride,
                             p->idist, const_cast<long long*>(p->oe), p->ostride, p->odist, p->type, p->batch, &ws);
}

/** A callback plan's plain twin for policy-OFF calls, made on first use (cuFFT cannot take
 *  callbacks off a plan). */
cufftResult plain_plan(abft_cuda_fft_plan_s* p) {
  if (p->plain_made) return CUFFT_SUCCESS;
  cufftResult r = cufftCreate(&p->plain);
  if (r != CUFFT_SUCCESS) return r;
  r = make_cufft_plan(p, p->plain);
  if (r != CUFFT_SUCCESS) {
    cufftDestroy(p->plain);
    return r;
  }
  p->plain_made = true;
  return CUFFT_SUCCESS;
}

/** A call's turn on the plan's cuFFT plan and work area (taken under the plan's lock): after the
 *  last call when that one ran on another stream, and marked done after this call's last launch,
 *  on every way out. */
struct PlanTurn {
  abft_cuda_fft_plan_s* p;
  cudaStream_t s;
  PlanTurn(abft_cuda_fft_plan_s* p_, cudaStream_t s_) : p(p_), s(s_) {
    if (p->used && p->last != s) cudaStreamWaitEvent(s, p->done, 0);
  }
  ~PlanTurn() {
    cudaEventRecord(p->done, s);
    p->last = s;
    p->used = true;
  }
  PlanTurn(const PlanTurn&) = delete;
  PlanTurn& operator=(const PlanTurn&) = delete;
};

template <class T>
abft_status execute(abft_cuda_fft_plan_s* p, cudaStream_t stream, const void* in_v, void* out_v, int sign) {
  const T* in = static_cast<const T*>(in_v);
  T* out = static_cast<T*>(out_v);
  const int dir = sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
  const abft_policy pol = core::resolve_policy(p->handle, p->policy);
  const abft_kernel kid = p->dbl ? ABFT_KERNEL_DFFT : ABFT_KERNEL_SFFT;
  if (pol == ABFT_POLICY_OFF) {
    std::lock_guard<std::mutex> lock(p->mu);
    if (p->callbacks && plain_plan(p) != CUFFT_SUCCESS) return ABFT_STATUS_ALLOC_FAILED;
    const cufftHandle h = p->callbacks ? p->plain : p->fft;
    if (cufftSetStream(h, stream) != CUFFT_SUCCESS) return ABFT_STATUS_INTERNAL_ERROR;
    // A passes plan's cuFFT plan (and its work area) is the protected calls' too: this call takes
    // its turn among them (a callback plan's OFF calls have their own plain plan).
    std::optional<PlanTurn> turn;
    if (!p->callbacks) turn.emplace(p, stream);
    core::record_call(p->handle, kid, abft_report{});
    return cufftXtExec(h, const_cast<T*>(in), out, dir) == CUFFT_SUCCESS ? ABFT_STATUS_SUCCESS
                                                                         : ABFT_STATUS_INTERNAL_ERROR;
  }
  State* st = nullptr;
  const abft_status ss = state_of(p->handle, &st);
  if (ss != ABFT_STATUS_SUCCESS) return ss;
  std::lock_guard<std::mutex> lock(p->mu);
  // Under the lock: cuFFT's stream is the plan's, and another thread's call must not move this
  // call's transform off the stream its sums and verification are ordered on.
  if (cufftSetStream(p->fft, stream) != CUFFT_SUCCESS) return ABFT_STATUS_INTERNAL_ERROR;
  const PlanTurn turn{p, stream};
  Call c{p, stream, p->sh, dir, p->batch, p->in.count(), p->out.count(), kid, {}, st, pol};
  c.sh.sign = p->sh.kind == ABFT_FFT_C2C ? (sign < 0 ? -1 : +1) : p->sh.sign;
  const int sin = p->in.complex ? 2 : 1;

  // Injection (a planner on the handle): input faults go into what cuFFT reads, output faults
  // into the output before verification. call: m = signals, n = output scalars of one signal,
  // k = 1 (the library's stages are not visible).
  abft_call_info call{kid, c.batch, c.cout * (p->out.complex ? 2 : 1), 1, 0, 1};
  c.plan = core::plan_injection(p->handle, call);
  struct Finish {  // the injection's record, on every way out
    core::InjectionPlan& plan;
    ~Finish() { core::finish_injection(plan); }
  } finish{c.plan};
  bool input_fault = false;
  for (const abft_fault& f : c.plan.faults) input_fault = input_fault || f.site == ABFT_SITE_FFT_STAGE;

  // The repair's source: the caller's input unless the transform may overwrite it (in place,
  // C2R) or (PASSES) a fault is injected into what the transform reads. CALLBACKS apply that
  // fault in the load callback, after the caller's element was read: the input stays clean.
  const bool in_place = in_v == out_v;
  const bool need_backup = pol == ABFT_POLICY_CORRECT &&
                           (in_place || p->sh.kind == ABFT_FFT_C2R || (input_fault && !p->callbacks));
  const size_t bbytes = need_backup ? size_t(c.batch * c.cin * sin) * sizeof(T) : 0;
  if (!grow_device_buffer(&p->backup, &p->backup_bytes, bbytes)) return ABFT_STATUS_ALLOC_FAILED;
  T* backup = need_backup ? static_cast<T*>(p->backup) : nullptr;
  // No failed signal yet: cleared unless the last call left it so (a callback plan clears the
  // count as it opens its callbacks). Until this call's launches are all enqueued, the count is
  // taken for unknown (a call that stops early clears it at the next call).
  if (!p->callbacks && !p->flags_clear) cudaMemsetAsync(p->flags, 0, sizeof(int), stream);
  p->flags_clear = p->callbacks && p->flags_clear;

  // 0. C2R: the self-conjugate planes made exactly Hermitian, in place (a C2R may overwrite its
  // input): what the transform, the sums and the repair then read is one spectrum. Rank 1 has
  // only the bins 0 and n/2, whose imaginary parts the load callback drops as cuFFT reads them.
  if (p->sh.kind == ABFT_FFT_C2R && (p->sh.rank > 1 || !p->callbacks)) {
    int64_t pairs = c.batch * (p->sh.n[p->sh.rank - 1] % 2 == 0 ? 2 : 1);
    for (int d = 0; d + 1 < p->sh.rank; ++d) pairs *= p->sh.n[d];
    const int64_t hb = (pairs + kSumThreads - 1) / kSumThreads;
    fft_c2r_hermitian_kernel<T><<<unsigned(hb < 4096 ? hb : 4096), kSumThreads, 0, stream>>>(const_cast<T*>(in), p->in,
                                                                                            c.sh, c.batch);
  }

  // 1-4. The sums, the transform, the verdicts.
  const abft_status rs = p->callbacks ? run_callbacks<T>(c, in, out, backup) : run_passes<T>(c, in, out, backup);
  if (rs != ABFT_STATUS_SUCCESS) return rs;

  // 5. Repair and re-verification (blocks return at once when nothing failed).
  if (pol == ABFT_POLICY_CORRECT) {
    const int threads = kSumThreads;
    SigLayout ls = p->in;
    const T* rsrc = in;
    if (backup) {  // packed: signal after signal, tight dims
      ls.dist = c.cin;
      ls.stride = 1;
      for (int d = 0; d < ls.rank; ++d) ls.embed[d] = ls.dims[d];
      rsrc = backup;
    }
    const int64_t rs2 = (c.cout + threads - 1) / threads, batch = c.batch;
    // Grids sized for a few failed signals (the rare path): on the fault-free path every block
    // reads the count and returns, so fewer blocks cost less.
    const dim3 rgrid = p->repair.direct ? dim3(unsigned(rs2 < 256 ? rs2 : 256), unsigned(batch < 8 ? batch : 8))
                                        : dim3(p->repair.gx, p->repair.gy);
    const FftRecheckArgs rk{p->tw, p->c2r, p->acc, p->va, st->repair + kid, p->repair_done};
    (c.sh.rank == 1 ? fft_repair_recheck_kernel<T, 1> : fft_repair_recheck_kernel<T, 0>)<<<rgrid, threads, 0, stream>>>(
        rsrc, ls, out, p->out, c.sh, p->repair, p->repair_z, p->flags, rk);
  }
  // A CORRECT call's repair launch leaves the count cleared; a DETECT call leaves its count.
  p->flags_clear = pol == ABFT_POLICY_CORRECT && cudaPeekAtLastError() == cudaSuccess;
  core::record_call(p->handle, kid, abft_report{});  // the call; its counts arrive at abft_cuda_sync
  return cudaGetLastError() == cudaSuccess ? ABFT_STATUS_SUCCESS : ABFT_STATUS_INTERNAL_ERROR;
}

}  // namespace

/** How plans form their sums: ABFT_CUDA_FFT_SUMS=passes or =callbacks (the default). */
abft_cuda_fft_sums fft_sums_wanted() {
  const char* e = std::getenv("ABFT_CUDA_FFT_SUMS");
  return e && std::string(e) == "passes" ? ABFT_CUDA_FFT_SUMS_PASSES : ABFT_CUDA_FFT_SUMS_CALLBACKS;
}

/** How a plan's repair recomputes a failed signal (fft_repair_split's mode), from
 *  ABFT_CUDA_FFT_REPAIR at planning: "split" (two levels wherever a split exists: the tests
 *  run the small shapes that way), "direct", or by size (unset, the default). */
int fft_repair_mode() {
  const char* e = std::getenv("ABFT_CUDA_FFT_REPAIR");
  if (!e) return 0;
  const std::string v(e);
  return v == "split" ? 1 : v == "direct" ? 2 : 0;
}

/** A refusal of the callbacks, kept for abft_cuda_fft_get_callback_refusal (the first one). */
void note_refusal(abft_cuda_fft_plan_s* p, const char* at, cufftResult r) {
  if (!p->cb_refused_at) p->cb_refused_at = at, p->cb_refused_result = int(r);
}

/** Attach the load and store callbacks of the plan's type to its cuFFT handle (after
 *  cufftCreate, before planning; kFftCallbackSymbols is in cuFFT's callback type order). */
bool attach_callbacks(abft_cuda_fft_plan_s* p) {
  const bool d = p->dbl;
  const abft_fft_kind k = abft_fft_kind(p->sh.kind);
  const int ld = (k == ABFT_FFT_R2C ? CUFFT_CB_LD_REAL : CUFFT_CB_LD_COMPLEX) + (d ? 1 : 0);
  const int st = (k == ABFT_FFT_C2R ? CUFFT_CB_ST_REAL : CUFFT_CB_ST_COMPLEX) + (d ? 1 : 0);
  cufftResult r = cufftXtSetJITCallback(p->fft, kFftCallbackSymbols[ld], kFftLoadsImage, kFftLoadsImage_size,
                                        cufftXtCallbackType(ld), &p->cb_info);
  if (r != CUFFT_SUCCESS) {
    note_refusal(p, "cufftXtSetJITCallback (load)", r);
    return false;
  }
  r = cufftXtSetJITCallback(p->fft, kFftCallbackSymbols[st], kFftStoresImage, kFftStoresImage_size,
                            cufftXtCallbackType(st), &p->cb_info);
  if (r != CUFFT_SUCCESS) note_refusal(p, "cufftXtSetJITCallback (store)", r);
  return r == CUFFT_SUCCESS;
}

/** A callback plan's device state: the buckets (zeroed: each verification clears what it
 *  read), the faults' values, and the callbacks' fixed arguments (written at the first call). */
bool callback_state(abft_cuda_fft_plan_s* p) {
  auto decoder = [&](const SigLayout& L) {
    const bool interleaved = !(L.dist >= L.span());  // as fft_plan_args admits it
    return ck::FftSideDecoder::make(L.rank, L.dims, L.embed, L.stride, L.dist, p->batch, interleaved,
                                    ck::fft_callback_bucket_shift(p->dbl, L.count()));
  };
  FftCallbackArgs& a = p->cb_last;
  std::memset(static_cast<void*>(&a), 0, sizeof a);  // padding too: calls compare the bytes
  a = FftCallbackArgs{};
  a.sh = p->sh;
  a.tw = p->tw;
  a.c2r = p->c2r;
  a.in = decoder(p->in);
  a.out = decoder(p->out);
  p->bucket_doubles = size_t(p->batch * (3 * a.in.buckets + 2 * a.out.buckets));
  if (cudaMalloc(&p->buckets, p->bucket_doubles * sizeof(double)) != cudaSuccess ||
      cudaMemset(p->buckets, 0, p->bucket_doubles * sizeof(double)) != cudaSuccess ||
      cudaMalloc(&p->fault_vals, 4 * kFftCallbackFaults * sizeof(double)) != cudaSuccess)
    return false;
  a.bucket_in = p->buckets;
  a.bucket_out = p->buckets + size_t(3 * p->batch * a.in.buckets);
  a.fault_vals = p->fault_vals;
  a.gate = p->flag_base;
  // Written now, not at the first call: a transform on the plan's handle before it must find
  // valid pointers (and the gate closed).
  p->cb_written = cudaMemcpy(p->cb_dev, &a, sizeof a, cudaMemcpyHostToDevice) == cudaSuccess;
  return p->cb_written;
}

/** Check the arguments (no CUDA call) and describe the two sides. */
abft_status fft_plan_args(abft_precision prec, abft_fft_kind kind, int rank, const int64_t* n, int sign, int64_t batch,
                          const int64_t* inembed, int64_t istride, int64_t idist, const int64_t* onembed,
                          int64_t ostride, int64_t odist, ck::FftLibraryShape& sh, SigLayout& li, SigLayout& lo) {
  if (!n) return ABFT_STATUS_NULL_POINTER;
  if (prec != ABFT_PRECISION_FLOAT && prec != ABFT_PRECISION_DOUBLE) return ABFT_STATUS_INVALID_VALUE;
  if (kind != ABFT_FFT_C2C && kind != ABFT_FFT_R2C && kind != ABFT_FFT_C2R) return ABFT_STATUS_INVALID_VALUE;
  if (rank < 1 || rank > 3) return ABFT_STATUS_INVALID_VALUE;
  if (kind == ABFT_FFT_C2C && sign != -1 && sign != 1) return ABFT_STATUS_INVALID_VALUE;
  if ((kind == ABFT_FFT_R2C && sign != -1) || (kind == ABFT_FFT_C2R && sign != 1)) return ABFT_STATUS_INVALID_VALUE;
  if (batch < 1) return ABFT_STATUS_INVALID_SIZE;
  for (int d = 0; d < rank; ++d)
    if (n[d] < 1) return ABFT_STATUS_INVALID_SIZE;
  if (istride < 1 || ostride < 1 || idist < 0 || odist < 0) return ABFT_STATUS_INVALID_LD;
  sh.rank = rank;
  for (int d = 0; d < 3; ++d) sh.n[d] = d < rank ? n[d] : 1;
  sh.kind = int(kind);
  sh.sign = sign;
  auto side = [&](SigLayout& L, bool input, const int64_t* embed, int64_t stride, int64_t dist) {
    L.rank = rank;
    L.complex = input ? kind != ABFT_FFT_R2C : kind != ABFT_FFT_C2R;
    for (int d = 0; d < 3; ++d) {
      L.dims[d] = d < rank ? (input ? sh.in_dim(d) : sh.out_dim(d)) : 1;
      L.embed[d] = embed && d < rank ? embed[d] : L.dims[d];
    }
    L.stride = stride;
    L.dist = dist;
    for (int d = 1; d < rank; ++d)
      if (L.embed[d] < L.dims[d]) return false;
    // Signals of a batch must not overlap: signals one after another (dist covers a signal), or
    // interleaved (every element of one signal a multiple of stride apart, the batch inside one
    // stride): no two share an element.
    return batch == 1 || dist >= L.span() || (dist >= 1 && batch * dist <= stride);
  };
  if (!side(li, true, inembed, istride, idist) || !side(lo, false, onembed, ostride, odist))
    return ABFT_STATUS_INVALID_LD;
  return ABFT_STATUS_SUCCESS;
}

/** The plan: arguments, a device, cuFFT's plan, the bound and the device buffers. */
abft_status fft_plan_make(abft_cuda_fft_plan_s** out, abft_handle_t h, abft_precision prec, abft_fft_kind kind,
                          int rank, const int64_t* n, int sign, int64_t batch, const int64_t* inembed,
                          int64_t istride, int64_t idist, const int64_t* onembed, int64_t ostride, int64_t odist) {
  if (!out) return ABFT_STATUS_NULL_POINTER;
  *out = nullptr;
  ck::FftLibraryShape sh;
  SigLayout li, lo;
  const abft_status as =
      fft_plan_args(prec, kind, rank, n, sign, batch, inembed, istride, idist, onembed, ostride, odist, sh, li, lo);
  if (as != ABFT_STATUS_SUCCESS) return as;
  if (abft_cuda_device_count() < 1) return ABFT_STATUS_NOT_SUPPORTED;
  auto* p = new (std::nothrow) abft_cuda_fft_plan_s();
  if (!p) return ABFT_STATUS_ALLOC_FAILED;
  p->handle = h ? h : abft_cufft_handle();  // NULL: the process handle of the cuFFT-signature API
  p->dbl = prec == ABFT_PRECISION_DOUBLE;
  p->sh = sh;
  p->in = li;
  p->out = lo;
  p->batch = batch;
  for (int d = 0; d < rank; ++d) p->nn[d] = n[d], p->ie[d] = li.embed[d], p->oe[d] = lo.embed[d];
  p->istride = istride, p->idist = idist > 0 ? idist : 1, p->ostride = ostride, p->odist = odist > 0 ? odist : 1;
  p->type = cufft_type(p->dbl, kind);
  // cuFFT's plan: with the callbacks unless ABFT_CUDA_FFT_SUMS=passes, or when cuFFT refuses
  // them (no nvJitLink, an architecture the LTO-IR does not cover): then a plan without.
  const bool want_callbacks = fft_sums_wanted() == ABFT_CUDA_FFT_SUMS_CALLBACKS;
  if (want_callbacks && cudaMalloc(&p->cb_dev, sizeof(FftCallbackArgs)) != cudaSuccess) {
    cudaGetLastError();
    delete p;
    return ABFT_STATUS_ALLOC_FAILED;
  }
  p->cb_info = p->cb_dev;
  // Attempts: callbacks with the 64-bit planner, callbacks with the int one (where every size
  // fits: cuFFT's documentation of the callbacks names the int planners), then no callbacks.
  bool fits_int = batch <= INT32_MAX && p->istride <= INT32_MAX && p->idist <= INT32_MAX &&
                  p->ostride <= INT32_MAX && p->odist <= INT32_MAX;
  int in_[3], ie_[3], oe_[3];
  for (int d = 0; d < rank; ++d) {
    fits_int = fits_int && p->nn[d] <= INT32_MAX && p->ie[d] <= INT32_MAX && p->oe[d] <= INT32_MAX;
    in_[d] = int(p->nn[d]), ie_[d] = int(p->ie[d]), oe_[d] = int(p->oe[d]);
  }
  bool refused = false;  // cuFFT refused the callbacks themselves: no second attempt with them
  for (int attempt = want_callbacks ? 0 : 2; attempt < 3 && !p->fft_made; ++attempt) {
    size_t ws = 0;
    if (attempt == 1 && (!fits_int || refused)) continue;
    if (cufftCreate(&p->fft) != CUFFT_SUCCESS) break;
    const bool cb = attempt < 2;
    bool ok = !cb || attach_callbacks(p);
    refused = refused || !ok;
    if (ok) {
      const cufftResult r =
          attempt == 1 ? cufftMakePlanMany(p->fft, rank, in_, ie_, int(p->istride), int(p->idist), oe_,
                                           int(p->ostride), int(p->odist), p->type, int(batch), &ws)
                       : make_cufft_plan(p, p->fft);
      ok = r == CUFFT_SUCCESS;
      if (cb && !ok) note_refusal(p, attempt == 1 ? "cufftMakePlanMany (callbacks)" : "cufftMakePlanMany64 (callbacks)", r);
      // The JIT itself failed — the link (nvJitLink, an architecture the LTO-IR does not cover),
      // the wrapper's compile (NVRTC) or loading either library: the int planner would compile
      // and link again, to the same end.
      refused = refused || (cb && (r == CUFFT_NVJITLINK_FAILURE || r == CUFFT_NVRTC_FAILURE ||
                                   r == CUFFT_MISSING_DEPENDENCY));
    }
    if (!ok) {
      cufftDestroy(p->fft);
      continue;
    }
    p->fft_made = true;
    p->callbacks = cb;
  }
  if (!p->fft_made) {
    delete p;
    return ABFT_STATUS_NOT_SUPPORTED;
  }
  // The bound, precision-aware.
  double w_norm = ck::fft_library_w_norm(sh), v_norm = 0;
  ck::FftC2RTables c2r;
  if (kind == ABFT_FFT_C2R) {
    if (!abft::fft::detail::c2r_tables(sh, c2r)) {
      delete p;
      return ABFT_STATUS_INTERNAL_ERROR;
    }
    w_norm = c2r.w_norm, v_norm = c2r.v_norm;
  } else {
    v_norm = ck::fft_library_v_norm(sh);
  }
  // The longest addition chain of the sums: the slices of either side (or the callbacks'
  // buckets), or the re-check's one block per signal.
  double depth = ck::fft_engine_sum_depth(li.count(), lo.count());
  if (p->callbacks)
    depth = std::max({depth, ck::fft_callback_sum_depth(li.count(), ck::fft_callback_bucket_shift(p->dbl, li.count())),
                      ck::fft_callback_sum_depth(lo.count(), ck::fft_callback_bucket_shift(p->dbl, lo.count()))});
  const ck::FftUnitBound b = p->dbl ? ck::fft_library_bound<double>(sh, w_norm, v_norm, depth)
                                    : ck::fft_library_bound<float>(sh, w_norm, v_norm, depth);
  p->va = {b.coefficient(), b.abs, b.Y,
           p->dbl ? std::numeric_limits<double>::max() : double(std::numeric_limits<float>::max())};
  p->repair = fft_repair_split(sh, li.count(), lo.count(), batch, fft_repair_mode());
  bool ok = (p->repair.direct ||
             cudaMalloc(&p->repair_z, size_t(p->repair.slot()) * p->repair.gx * p->repair.gy * sizeof(double)) ==
                 cudaSuccess) &&
            cudaMalloc(&p->acc, size_t(kAcc * batch) * sizeof(double)) == cudaSuccess &&
            cudaMalloc(&p->flag_base, size_t(batch + 3) * sizeof(int)) == cudaSuccess &&
            cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming) == cudaSuccess;
  if (ok && kind == ABFT_FFT_C2R) {  // the tables of each dimension, one allocation
    size_t cnt = 0;
    for (int d = 0; d < rank; ++d) cnt += c2r.w[d].size() + c2r.W[d].size();
    ok = cudaMalloc(&p->c2r_tab, cnt * sizeof(ck::Cd)) == cudaSuccess;
    size_t at = 0;
    for (int d = 0; ok && d < rank; ++d)
      for (int which = 0; ok && which < 2; ++which) {
        const std::vector<ck::Cd>& v = which ? c2r.W[d] : c2r.w[d];
        (which ? p->c2r.W[d] : p->c2r.w[d]) = p->c2r_tab + at;
        ok = cudaMemcpy(p->c2r_tab + at, v.data(), v.size() * sizeof(ck::Cd), cudaMemcpyHostToDevice) == cudaSuccess;
        at += v.size();
      }
  }
  if (ok && kind != ABFT_FFT_C2R) {  // the turn tables of each dimension, one allocation
    const ck::FftHostTables host(sh);
    const std::vector<ck::FftTurnTableData>& tabs = host.d;
    size_t cnt = 0;
    for (const ck::FftTurnTableData& t : tabs) cnt += t.lo.size() + t.hi.size();
    ok = cudaMalloc(&p->turn_tab, cnt * sizeof(ck::Cd)) == cudaSuccess;
    size_t at = 0;
    for (int d = 0; ok && d < rank; ++d) {
      const ck::FftTurnTableData& t = tabs[size_t(d)];
      ck::Cd* lo = p->turn_tab + at;
      ck::Cd* hi = lo + t.lo.size();
      at += t.lo.size() + t.hi.size();
      ok = cudaMemcpy(lo, t.lo.data(), t.lo.size() * sizeof(ck::Cd), cudaMemcpyHostToDevice) == cudaSuccess &&
           cudaMemcpy(hi, t.hi.data(), t.hi.size() * sizeof(ck::Cd), cudaMemcpyHostToDevice) == cudaSuccess;
      p->tw.t[d] = {lo, hi, t.shift};
    }
  }
  if (ok) {  // the gate closed (0), no failed signal, the repair's counter at rest
    p->flags = p->flag_base + 1;
    p->repair_done = reinterpret_cast<unsigned*>(p->flag_base + batch + 2);
    ok = cudaMemset(p->flag_base, 0, size_t(batch + 3) * sizeof(int)) == cudaSuccess;
  }
  if (ok && p->callbacks) ok = callback_state(p);
  // The zeroed buckets and the first arguments and gate (cudaMemset, pageable cudaMemcpy, on the
  // legacy default stream) done on the device before a first call on any stream, a non-blocking
  // one too; the legacy stream only, not the whole device (a preloaded program's own work).
  ok = ok && cudaStreamSynchronize(nullptr) == cudaSuccess;
  if (!ok) {
    cudaGetLastError();
    delete p;
    return ABFT_STATUS_ALLOC_FAILED;
  }
  if (p->callbacks) p->cb_refused_at = nullptr, p->cb_refused_result = 0;  // refused once, then taken
  *out = p;
  return ABFT_STATUS_SUCCESS;
}

}  // namespace abft::cuda

using abft::cuda::fft_plan_make;

extern "C" abft_status abft_cuda_fft_plan_many(abft_cuda_fft_plan_t* out, abft_handle_t h, abft_precision prec,
                                               abft_fft_kind kind, int rank, const int64_t* n, int sign,
                                               int64_t batch, const int64_t* inembed, int64_t istride, int64_t idist,
                                               const int64_t* onembed, int64_t ostride, int64_t odist) {
  return fft_plan_make(out, h, prec, kind, rank, n, sign, batch, inembed, istride, idist, onembed, ostride, odist);
}

extern "C" abft_status abft_cuda_fft_plan_1d(abft_cuda_fft_plan_t* out, abft_handle_t h, abft_precision prec,
                                             abft_fft_kind kind, int64_t n, int sign, int64_t batch) {
  const int64_t half = n / 2 + 1;
  const int64_t idist = kind == ABFT_FFT_C2R ? half : n, odist = kind == ABFT_FFT_R2C ? half : n;
  return fft_plan_make(out, h, prec, kind, 1, &n, sign, batch, nullptr, 1, idist, nullptr, 1, odist);
}

extern "C" abft_status abft_cuda_fft_set_policy(abft_cuda_fft_plan_t p, abft_policy policy) {
  if (!p) return ABFT_STATUS_NULL_POINTER;
  if (policy < ABFT_POLICY_DEFAULT || policy > ABFT_POLICY_CORRECT) return ABFT_STATUS_INVALID_VALUE;
  p->policy = policy;
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_cuda_fft_execute(abft_cuda_fft_plan_t p, void* stream, const void* in, void* out) {
  if (!p) return ABFT_STATUS_NULL_POINTER;
  if (!in || !out) return ABFT_STATUS_NULL_POINTER;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return p->dbl ? abft::cuda::execute<double>(p, s, in, out, p->sh.sign)
                : abft::cuda::execute<float>(p, s, in, out, p->sh.sign);
}

extern "C" abft_status abft_cuda_fft_get_sums(abft_cuda_fft_plan_t p, abft_cuda_fft_sums* out) {
  if (!p || !out) return ABFT_STATUS_NULL_POINTER;
  *out = p->callbacks ? ABFT_CUDA_FFT_SUMS_CALLBACKS : ABFT_CUDA_FFT_SUMS_PASSES;
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_cuda_fft_get_callback_refusal(abft_cuda_fft_plan_t p, const char** where, int* result) {
  if (!p || !where || !result) return ABFT_STATUS_NULL_POINTER;
  *where = p->cb_refused_at;
  *result = p->cb_refused_result;
  return ABFT_STATUS_SUCCESS;
}

extern "C" abft_status abft_cuda_fft_destroy(abft_cuda_fft_plan_t p) {
  delete p;
  return ABFT_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ cuFFT's own signatures */

namespace abft::cuda {

bool is_double(cufftType t) { return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D; }
abft_fft_kind kind_of(cufftType t) {
  return (t == CUFFT_C2C || t == CUFFT_Z2Z) ? ABFT_FFT_C2C : (t == CUFFT_R2C || t == CUFFT_D2Z) ? ABFT_FFT_R2C : ABFT_FFT_C2R;
}
bool known_type(cufftType t) {
  return t == CUFFT_C2C || t == CUFFT_Z2Z || t == CUFFT_R2C || t == CUFFT_D2Z || t == CUFFT_C2R || t == CUFFT_Z2D;
}

/** An abft plan for a cuFFT-signature plan: basic layout (tight, or padded for in-place real
 *  transforms), or the caller's advanced layout. */
abft_status make_entry_plan(const CufftEntry& e, bool padded, const int64_t* ie, int64_t istride, int64_t idist,
                            const int64_t* oe, int64_t ostride, int64_t odist, abft_cuda_fft_plan_s** out) {
  const abft_fft_kind kind = kind_of(e.type);
  const abft_precision prec = is_double(e.type) ? ABFT_PRECISION_DOUBLE : ABFT_PRECISION_FLOAT;
  const int sign = kind == ABFT_FFT_C2R ? 1 : -1;
  if (!e.basic) return fft_plan_make(out, abft_cufft_handle(), prec, kind, e.rank, e.n, sign, e.batch, ie, istride,
                                     idist, oe, ostride, odist);
  const int L = e.rank - 1;
  const int64_t h1 = e.n[L] / 2 + 1;
  int64_t lead = 1;
  for (int d = 0; d < L; ++d) lead *= e.n[d];
  int64_t in_e[3], out_e[3];
  for (int d = 0; d < e.rank; ++d) in_e[d] = out_e[d] = e.n[d];
  // Last dimension of each side, in that side's elements: complex sides n/2 + 1 for real
  // transforms; the real side n, or 2 (n/2 + 1) reals when padded for in place.
  const int64_t real_last = padded ? 2 * h1 : e.n[L];
  if (kind == ABFT_FFT_R2C) in_e[L] = real_last, out_e[L] = h1;
  if (kind == ABFT_FFT_C2R) in_e[L] = h1, out_e[L] = real_last;
  return fft_plan_make(out, abft_cufft_handle(), prec, kind, e.rank, e.n, sign, e.batch, in_e, 1, lead * in_e[L],
                       out_e, 1, lead * out_e[L]);
}

abft_status plan_from_cufft(cufftHandle* plan, int rank, const int* n, const int* inembed, int istride, int idist,
                            const int* onembed, int ostride, int odist, cufftType type, int batch) {
  if (!plan || !n) return ABFT_STATUS_NULL_POINTER;
  if (rank < 1 || rank > 3 || !known_type(type)) return ABFT_STATUS_INVALID_VALUE;
  auto* e = new (std::nothrow) CufftEntry();
  if (!e) return ABFT_STATUS_ALLOC_FAILED;
  e->type = type;
  e->rank = rank;
  e->batch = batch;
  // cuFFT: a NULL inembed or onembed means the basic layout, all advanced parameters ignored.
  e->basic = !inembed || !onembed;
  int64_t ie[3] = {1, 1, 1}, oe[3] = {1, 1, 1};
  for (int d = 0; d < rank; ++d) {
    e->n[d] = n[d];
    if (!e->basic) ie[d] = inembed[d], oe[d] = onembed[d];
  }
  const abft_status st = make_entry_plan(*e, false, ie, istride, idist, oe, ostride, odist, &e->tight);
  if (st != ABFT_STATUS_SUCCESS) {
    delete e;
    return st;
  }
  std::lock_guard<std::mutex> g(g_reg_mu);
  registry()[e->tight->fft] = e;
  *plan = e->tight->fft;
  return ABFT_STATUS_SUCCESS;
}

cufftResult to_cufft(abft_status s) {
  switch (s) {
    case ABFT_STATUS_SUCCESS: return CUFFT_SUCCESS;
    case ABFT_STATUS_NULL_POINTER: return CUFFT_INVALID_VALUE;
    case ABFT_STATUS_INVALID_SIZE: return CUFFT_INVALID_SIZE;
    case ABFT_STATUS_INVALID_VALUE:
    case ABFT_STATUS_INVALID_LD: return CUFFT_INVALID_VALUE;
    case ABFT_STATUS_ALLOC_FAILED: return CUFFT_ALLOC_FAILED;
    case ABFT_STATUS_NOT_SUPPORTED: return CUFFT_NOT_SUPPORTED;
    default: return CUFFT_EXEC_FAILED;
  }
}

CufftEntry* lookup(cufftHandle h) {
  std::lock_guard<std::mutex> g(g_reg_mu);
  auto it = registry().find(h);
  return it == registry().end() ? nullptr : it->second;
}

/** A registered plan runs protected, after cuFFT's own checks (the entry point's type, the
 *  direction); -1 = not registered (the caller passes the call to cuFFT unchanged). */
int exec(cufftHandle plan, void* in, void* out, int direction, cufftType type, cufftResult* res) {
  CufftEntry* e = lookup(plan);
  if (!e) return -1;
  if (e->type != type) return *res = CUFFT_INVALID_TYPE, 0;
  const abft_fft_kind kind = kind_of(type);
  if (kind == ABFT_FFT_C2C && direction != CUFFT_FORWARD && direction != CUFFT_INVERSE)
    return *res = CUFFT_INVALID_VALUE, 0;
  abft_cuda_fft_plan_s* p = e->tight;
  if (e->basic && kind != ABFT_FFT_C2C && in == out && (e->batch > 1 || e->rank > 1)) {
    if (!e->padded) {
      const abft_status st = make_entry_plan(*e, true, nullptr, 1, 0, nullptr, 1, 0, &e->padded);
      if (st != ABFT_STATUS_SUCCESS) return *res = to_cufft(st), 0;
    }
    p = e->padded;
  }
  const int sign = kind == ABFT_FFT_C2C ? (direction == CUFFT_INVERSE ? +1 : -1) : p->sh.sign;
  const abft_status s = is_double(type) ? execute<double>(p, e->stream, in, out, sign)
                                        : execute<float>(p, e->stream, in, out, sign);
  *res = s == ABFT_STATUS_SUCCESS ? CUFFT_SUCCESS : to_cufft(s);
  return 0;
}

}  // namespace abft::cuda

using abft::cuda::exec;
using abft::cuda::to_cufft;

extern "C" abft_handle_t abft_cufft_handle(void) {
  static abft_handle_t h = [] {
    abft_handle_t x = nullptr;
    return abft_handle_create(&x) == ABFT_STATUS_SUCCESS ? x : nullptr;
  }();
  return h;
}

extern "C" cufftResult abft_cufftPlanMany(cufftHandle* plan, int rank, int* n, int* inembed, int istride, int idist,
                                          int* onembed, int ostride, int odist, cufftType type, int batch) {
  return to_cufft(abft::cuda::plan_from_cufft(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type,
                                              batch));
}
extern "C" cufftResult abft_cufftPlan1d(cufftHandle* plan, int nx, cufftType type, int batch) {
  return to_cufft(abft::cuda::plan_from_cufft(plan, 1, &nx, nullptr, 1, 0, nullptr, 1, 0, type, batch));
}
extern "C" cufftResult abft_cufftPlan2d(cufftHandle* plan, int nx, int ny, cufftType type) {
  const int n[2] = {nx, ny};
  return to_cufft(abft::cuda::plan_from_cufft(plan, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1));
}
extern "C" cufftResult abft_cufftPlan3d(cufftHandle* plan, int nx, int ny, int nz, cufftType type) {
  const int n[3] = {nx, ny, nz};
  return to_cufft(abft::cuda::plan_from_cufft(plan, 3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1));
}
extern "C" cufftResult abft_cufftSetStream(cufftHandle plan, cudaStream_t stream) {
  // A registered plan takes the stream at each execution, under the plan's lock: setting
  // cuFFT's stream here could move a transform running on another thread off the stream its
  // checks are ordered on.
  if (abft::cuda::CufftEntry* e = abft::cuda::lookup(plan)) {
    e->stream = stream;
    return CUFFT_SUCCESS;
  }
  return cufftSetStream(plan, stream);
}
extern "C" cufftResult abft_cufftDestroy(cufftHandle plan) {
  abft::cuda::CufftEntry* e = nullptr;
  {
    std::lock_guard<std::mutex> g(abft::cuda::g_reg_mu);
    auto it = abft::cuda::registry().find(plan);
    if (it != abft::cuda::registry().end()) e = it->second, abft::cuda::registry().erase(it);
  }
  if (!e) return cufftDestroy(plan);
  delete e;
  return CUFFT_SUCCESS;
}
extern "C" cufftResult abft_cufftExecC2C(cufftHandle plan, cufftComplex* in, cufftComplex* out, int direction) {
  cufftResult r;
  return exec(plan, in, out, direction, CUFFT_C2C, &r) < 0 ? cufftExecC2C(plan, in, out, direction) : r;
}
extern "C" cufftResult abft_cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleComplex* out,
                                         int direction) {
  cufftResult r;
  return exec(plan, in, out, direction, CUFFT_Z2Z, &r) < 0 ? cufftExecZ2Z(plan, in, out, direction) : r;
}
extern "C" cufftResult abft_cufftExecR2C(cufftHandle plan, cufftReal* in, cufftComplex* out) {
  cufftResult r;
  return exec(plan, in, out, CUFFT_FORWARD, CUFFT_R2C, &r) < 0 ? cufftExecR2C(plan, in, out) : r;
}
extern "C" cufftResult abft_cufftExecD2Z(cufftHandle plan, cufftDoubleReal* in, cufftDoubleComplex* out) {
  cufftResult r;
  return exec(plan, in, out, CUFFT_FORWARD, CUFFT_D2Z, &r) < 0 ? cufftExecD2Z(plan, in, out) : r;
}
extern "C" cufftResult abft_cufftExecC2R(cufftHandle plan, cufftComplex* in, cufftReal* out) {
  cufftResult r;
  return exec(plan, in, out, CUFFT_INVERSE, CUFFT_C2R, &r) < 0 ? cufftExecC2R(plan, in, out) : r;
}
extern "C" cufftResult abft_cufftExecZ2D(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleReal* out) {
  cufftResult r;
  return exec(plan, in, out, CUFFT_INVERSE, CUFFT_Z2D, &r) < 0 ? cufftExecZ2D(plan, in, out) : r;
}
