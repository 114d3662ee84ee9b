/** \file cufft_entries.cpp
 *  \brief The cuFFT entry points the preload library defines. Plan creation is forwarded and the
 *  plan's shape recorded (cufftPlan1d/2d/3d/Many, cufftMakePlan1d/2d/3d/Many/Many64,
 *  cufftXtMakePlanMany), with its stream (cufftSetStream); cufftDestroy forgets it. An execution
 *  (cufftExec*, cufftXtExec) of a recorded plan runs on a shadow plan of the same shape made
 *  through the engine's cuFFT-signature API (abft_cufftPlanMany: cuFFT's transform plus the
 *  checks, abft/abft_cufft.h) on the caller's stream and arrays; the caller's own plan is left as
 *  it is. Plans the engine does not protect (half precision, 64-bit sizes) and
 *  unknown handles pass through to the real cuFFT, counted. A stream set before the plan is made
 *  is kept. The shadow plan is made at the first execution whose stream is not being captured.
 *  A plan carrying the program's own callbacks (cufftXtSetCallback, cufftXtSetJITCallback, set
 *  through here; cufftXtClearCallback clears them) passes through: the shadow plan would run
 *  the transform without them.
 */
#include <cufft.h>
#include <cufftXt.h>
#include <cuda_runtime_api.h>

#include <mutex>
#include <unordered_map>

#include "abft/abft_cufft.h"
#include "abft_preload.h"
#include "preload_runtime.hpp"
#include "real_symbols.hpp"
#include "reentry_guard.hpp"
#include "translate.hpp"

using namespace abft::preload;

namespace {

/** What the library knows of one of the program's handles: a plan it saw made (made), or only
 *  a stream set before the plan was made (cufftCreate -> cufftSetStream -> cufftMakePlan*). */
struct PlanRecord {
  bool made = false;
  FftShape shape;
  cudaStream_t stream = nullptr;
  enum State { Untried, Ready, Failed } state = Untried;
  cufftHandle shadow = 0;             ///< the engine's plan of the same shape (Ready)
  Reason failed = Reason::None;       ///< why the shadow could not be made (Failed)
  unsigned callbacks = 0;             ///< the program's callbacks on the handle, a bit per cufftXtCallbackType
};

std::mutex g_mu;
std::unordered_map<cufftHandle, PlanRecord>& plans() {
  static auto* m = new std::unordered_map<cufftHandle, PlanRecord>();
  return *m;
}

/** A shadow plan the library no longer needs (none at exit: the static CUDA runtime may be gone). */
void drop_shadow(cufftHandle shadow) {
  if (!process_exiting()) abft_cufftDestroy(shadow);
}

/** Records the plan made on `plan`. `existing_handle`: cufftMakePlan* / cufftXtMakePlanMany on a
 *  handle the program created (its stream, set before, is kept); otherwise cufftPlan* made a new
 *  handle (a stale record of the same value, never destroyed through us, starts afresh). */
void record_plan(cufftHandle plan, const FftShape& s, bool existing_handle) {
  cufftHandle old_shadow = 0;
  bool had_shadow = false;
  {
    std::lock_guard<std::mutex> g(g_mu);
    PlanRecord& r = plans()[plan];
    had_shadow = r.made && r.state == PlanRecord::Ready;
    old_shadow = r.shadow;
    const cudaStream_t stream = existing_handle ? r.stream : nullptr;
    const unsigned callbacks = existing_handle ? r.callbacks : 0u;  // (JIT callbacks come before the plan)
    r = PlanRecord{};
    r.made = true;
    r.shape = s;
    r.stream = stream;
    r.callbacks = callbacks;
  }
  if (had_shadow) drop_shadow(old_shadow);
}

FftShape basic_shape(int rank, const int* n, cufftType type, int64_t batch) {
  FftShape s;
  s.rank = rank;
  for (int d = 0; d < rank && d < 3; ++d) s.n[d] = n[d];
  s.type = type;
  s.batch = batch;
  return s;
}

template <class I>
FftShape many_shape(int rank, const I* n, const I* inembed, I istride, I idist, const I* onembed, I ostride, I odist,
                    cufftType type, I batch) {
  FftShape s;
  s.rank = rank;
  s.basic = !inembed || !onembed;  // cuFFT: either NULL means the basic layout
  for (int d = 0; d < rank && d < 3; ++d) {
    s.n[d] = n ? int64_t(n[d]) : 0;
    if (!s.basic) s.inembed[d] = inembed[d], s.onembed[d] = onembed[d];
  }
  if (!n || rank < 1 || rank > 3) s.rank = 0;  // fft_reason refuses it
  s.istride = istride, s.idist = idist, s.ostride = ostride, s.odist = odist;
  s.type = type;
  s.batch = batch;
  return s;
}

cufftResult abft_exec(cufftType t, cufftHandle p, void* in, void* out, int dir) {
  switch (t) {
    case CUFFT_C2C: return abft_cufftExecC2C(p, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out), dir);
    case CUFFT_Z2Z:
      return abft_cufftExecZ2Z(p, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleComplex*>(out), dir);
    case CUFFT_R2C: return abft_cufftExecR2C(p, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out));
    case CUFFT_D2Z: return abft_cufftExecD2Z(p, static_cast<cufftDoubleReal*>(in), static_cast<cufftDoubleComplex*>(out));
    case CUFFT_C2R: return abft_cufftExecC2R(p, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out));
    case CUFFT_Z2D: return abft_cufftExecZ2D(p, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleReal*>(out));
    default: return CUFFT_INVALID_TYPE;
  }
}

/** The reason executions of `plan` cannot be protected that needs no engine work (unknown plan,
 *  shape), else None and the plan's stream. */
Reason plan_check(cufftHandle plan, cudaStream_t* stream) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = plans().find(plan);
  if (it == plans().end() || !it->second.made) return Reason::FftPlanUnknown;
  PlanRecord& r = it->second;
  if (r.callbacks) return Reason::FftCallbacks;  // (set or cleared at any time: not cached)
  if (r.state == PlanRecord::Untried) {
    const Reason why = fft_reason(r.shape);
    if (why != Reason::None) r.state = PlanRecord::Failed, r.failed = why;
  }
  if (r.state == PlanRecord::Failed) return r.failed;
  *stream = r.stream;
  return Reason::None;
}

/** The shadow plan of a record (made on first use, under g_mu: cudaMalloc, planning and
 *  synchronous copies — so only once the stream is known not to be capturing), or the reason
 *  there is none. */
Reason shadow_of(cufftHandle plan, cufftHandle* shadow, cudaStream_t* stream) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = plans().find(plan);
  if (it == plans().end() || !it->second.made) return Reason::FftPlanUnknown;  // destroyed meanwhile
  PlanRecord& r = it->second;
  *stream = r.stream;
  if (r.state == PlanRecord::Untried) {
    engine_handle(Family::Cufft);
    FftIntArgs a = fft_int_args(r.shape);
    const cufftResult res = abft_cufftPlanMany(&r.shadow, a.rank, a.n, a.basic ? nullptr : a.inembed, a.istride,
                                               a.idist, a.basic ? nullptr : a.onembed, a.ostride, a.odist,
                                               r.shape.type, a.batch);
    if (res == CUFFT_SUCCESS) {
      r.state = PlanRecord::Ready;
    } else {
      // No usable GPU or memory, or (anything else) the engine refusing a shape cuFFT accepted: a
      // translation bug of ours, reported as such; either way the program's plan runs unchanged.
      r.state = PlanRecord::Failed;
      r.failed = (res == CUFFT_NOT_SUPPORTED || res == CUFFT_ALLOC_FAILED) ? Reason::EngineUnavailable
                                                                           : Reason::EngineRejected;
    }
  }
  if (r.state == PlanRecord::Failed) return r.failed;
  *shadow = r.shadow;
  return Reason::None;
}

/** The program set (or cleared) its own callback of `type` on `plan`. */
void note_callback(cufftHandle plan, int type, bool set) {
  if (type < 0 || type >= 32) type = 31;  // (an unknown type: counted as some callback)
  std::lock_guard<std::mutex> g(g_mu);
  PlanRecord& r = plans()[plan];
  if (set) r.callbacks |= 1u << type;
  else r.callbacks &= ~(1u << type);
}

cufftType recorded_type(cufftHandle plan, bool* known) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = plans().find(plan);
  *known = it != plans().end() && it->second.made && it->second.shape.type_known;
  return *known ? it->second.shape.type : CUFFT_C2C;
}

/** One execution: protected on the shadow plan, or forwarded (forward() runs the real call). */
template <class Forward>
cufftResult exec_entry(Entry e, cufftHandle plan, void* in, void* out, int dir, cufftType type, Forward forward) {
  note_call(e);
  if (policy_off()) return note_unprotected(e, Reason::PolicyOff), forward();
  bool known = false;
  const cufftType rt = recorded_type(plan, &known);
  // The wrong exec function for the plan's type: cuFFT answers it (CUFFT_INVALID_TYPE).
  if (known && rt != type) return note_unprotected(e, Reason::Arguments), forward();
  cufftHandle shadow = 0;
  cudaStream_t stream = nullptr;
  // The capture check comes before the shadow plan is made: making it allocates and copies
  // synchronously, which would invalidate a capture in progress.
  Reason r = plan_check(plan, &stream);
  if (r == Reason::None && stream_capturing(stream)) r = Reason::GraphCapture;
  if (r == Reason::None) r = shadow_of(plan, &shadow, &stream);
  if (r != Reason::None) return note_unprotected(e, r), forward();
  engine_handle(Family::Cufft);
  abft_cufftSetStream(shadow, stream);
  const cufftResult res = abft_exec(type, shadow, in, out, dir);
  if (res == CUFFT_SUCCESS) return note_protected(e), res;
  // Refused before running anything: no usable GPU or memory, or (argument errors) the engine
  // refusing the translated call — forwarded either way, the latter reported as a bug of ours.
  if (res == CUFFT_NOT_SUPPORTED || res == CUFFT_ALLOC_FAILED)
    return note_unprotected(e, Reason::EngineUnavailable), forward();
  if (res == CUFFT_INVALID_VALUE || res == CUFFT_INVALID_SIZE || res == CUFFT_INVALID_TYPE ||
      res == CUFFT_INVALID_PLAN)
    return note_unprotected(e, Reason::EngineRejected), forward();
  note_failed(e);
  return res;
}

}  // namespace

// Every function below: a call from inside an intercepted call (the engine's own cuFFT calls,
// cuFFT calling itself) goes straight to the real function.
#define ABFT_CUFFT_NESTED(real, ...)                                  \
  if (!real) return CUFFT_NOT_SUPPORTED;                              \
  if (ReentryGuard::inside()) return note_nested(), real(__VA_ARGS__); \
  ReentryGuard guard_

extern "C" cufftResult cufftPlan1d(cufftHandle* plan, int nx, cufftType type, int batch) {
  const auto real = ABFT_REAL(Cufft, cufftPlan1d);
  ABFT_CUFFT_NESTED(real, plan, nx, type, batch);
  const cufftResult r = real(plan, nx, type, batch);
  if (r == CUFFT_SUCCESS && plan) record_plan(*plan, basic_shape(1, &nx, type, batch), false);
  return r;
}

extern "C" cufftResult cufftPlan2d(cufftHandle* plan, int nx, int ny, cufftType type) {
  const auto real = ABFT_REAL(Cufft, cufftPlan2d);
  ABFT_CUFFT_NESTED(real, plan, nx, ny, type);
  const cufftResult r = real(plan, nx, ny, type);
  const int n[2] = {nx, ny};
  if (r == CUFFT_SUCCESS && plan) record_plan(*plan, basic_shape(2, n, type, 1), false);
  return r;
}

extern "C" cufftResult cufftPlan3d(cufftHandle* plan, int nx, int ny, int nz, cufftType type) {
  const auto real = ABFT_REAL(Cufft, cufftPlan3d);
  ABFT_CUFFT_NESTED(real, plan, nx, ny, nz, type);
  const cufftResult r = real(plan, nx, ny, nz, type);
  const int n[3] = {nx, ny, nz};
  if (r == CUFFT_SUCCESS && plan) record_plan(*plan, basic_shape(3, n, type, 1), false);
  return r;
}

extern "C" cufftResult cufftPlanMany(cufftHandle* plan, int rank, int* n, int* inembed, int istride, int idist,
                                     int* onembed, int ostride, int odist, cufftType type, int batch) {
  const auto real = ABFT_REAL(Cufft, cufftPlanMany);
  ABFT_CUFFT_NESTED(real, plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
  const cufftResult r = real(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
  if (r == CUFFT_SUCCESS && plan)
    record_plan(*plan, many_shape<int>(rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch), false);
  return r;
}

extern "C" cufftResult cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t* workSize) {
  const auto real = ABFT_REAL(Cufft, cufftMakePlan1d);
  ABFT_CUFFT_NESTED(real, plan, nx, type, batch, workSize);
  const cufftResult r = real(plan, nx, type, batch, workSize);
  if (r == CUFFT_SUCCESS) record_plan(plan, basic_shape(1, &nx, type, batch), true);
  return r;
}

extern "C" cufftResult cufftMakePlan2d(cufftHandle plan, int nx, int ny, cufftType type, size_t* workSize) {
  const auto real = ABFT_REAL(Cufft, cufftMakePlan2d);
  ABFT_CUFFT_NESTED(real, plan, nx, ny, type, workSize);
  const cufftResult r = real(plan, nx, ny, type, workSize);
  const int n[2] = {nx, ny};
  if (r == CUFFT_SUCCESS) record_plan(plan, basic_shape(2, n, type, 1), true);
  return r;
}

extern "C" cufftResult cufftMakePlan3d(cufftHandle plan, int nx, int ny, int nz, cufftType type, size_t* workSize) {
  const auto real = ABFT_REAL(Cufft, cufftMakePlan3d);
  ABFT_CUFFT_NESTED(real, plan, nx, ny, nz, type, workSize);
  const cufftResult r = real(plan, nx, ny, nz, type, workSize);
  const int n[3] = {nx, ny, nz};
  if (r == CUFFT_SUCCESS) record_plan(plan, basic_shape(3, n, type, 1), true);
  return r;
}

extern "C" cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int* n, int* inembed, int istride, int idist,
                                         int* onembed, int ostride, int odist, cufftType type, int batch,
                                         size_t* workSize) {
  const auto real = ABFT_REAL(Cufft, cufftMakePlanMany);
  ABFT_CUFFT_NESTED(real, plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize);
  const cufftResult r = real(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize);
  if (r == CUFFT_SUCCESS)
    record_plan(plan, many_shape<int>(rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch), true);
  return r;
}

extern "C" cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long int* n, long long int* inembed,
                                           long long int istride, long long int idist, long long int* onembed,
                                           long long int ostride, long long int odist, cufftType type,
                                           long long int batch, size_t* workSize) {
  const auto real = ABFT_REAL(Cufft, cufftMakePlanMany64);
  ABFT_CUFFT_NESTED(real, plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize);
  const cufftResult r = real(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize);
  if (r == CUFFT_SUCCESS)
    record_plan(plan,
                many_shape<long long>(rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch), true);
  return r;
}

extern "C" cufftResult cufftXtMakePlanMany(cufftHandle plan, int rank, long long int* n, long long int* inembed,
                                           long long int istride, long long int idist, cudaDataType inputtype,
                                           long long int* onembed, long long int ostride, long long int odist,
                                           cudaDataType outputtype, long long int batch, size_t* workSize,
                                           cudaDataType executiontype) {
  const auto real = ABFT_REAL(Cufft, cufftXtMakePlanMany);
  ABFT_CUFFT_NESTED(real, plan, rank, n, inembed, istride, idist, inputtype, onembed, ostride, odist, outputtype,
                    batch, workSize, executiontype);
  const cufftResult r = real(plan, rank, n, inembed, istride, idist, inputtype, onembed, ostride, odist, outputtype,
                             batch, workSize, executiontype);
  if (r == CUFFT_SUCCESS) {
    cufftType t = CUFFT_C2C;
    const bool known = xt_cufft_type(inputtype, outputtype, executiontype, &t);
    FftShape s = many_shape<long long>(rank, n, inembed, istride, idist, onembed, ostride, odist, t, batch);
    s.type_known = known;
    record_plan(plan, s, true);
  }
  return r;
}

extern "C" cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream) {
  const auto real = ABFT_REAL(Cufft, cufftSetStream);
  ABFT_CUFFT_NESTED(real, plan, stream);
  const cufftResult r = real(plan, stream);
  if (r == CUFFT_SUCCESS) {  // kept also for a handle whose plan is not made yet
    std::lock_guard<std::mutex> g(g_mu);
    plans()[plan].stream = stream;
  }
  return r;
}

extern "C" cufftResult cufftDestroy(cufftHandle plan) {
  const auto real = ABFT_REAL(Cufft, cufftDestroy);
  ABFT_CUFFT_NESTED(real, plan);
  PlanRecord rec;
  bool had = false;
  {
    std::lock_guard<std::mutex> g(g_mu);
    auto it = plans().find(plan);
    if (it != plans().end()) rec = it->second, had = true, plans().erase(it);
  }
  if (had && rec.made && rec.state == PlanRecord::Ready) drop_shadow(rec.shadow);
  return real(plan);
}

extern "C" cufftResult cufftExecC2C(cufftHandle plan, cufftComplex* idata, cufftComplex* odata, int direction) {
  const auto real = ABFT_REAL(Cufft, cufftExecC2C);
  ABFT_CUFFT_NESTED(real, plan, idata, odata, direction);
  return exec_entry(Entry::ExecC2C, plan, idata, odata, direction, CUFFT_C2C,
                    [&] { return real(plan, idata, odata, direction); });
}

extern "C" cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleComplex* odata,
                                    int direction) {
  const auto real = ABFT_REAL(Cufft, cufftExecZ2Z);
  ABFT_CUFFT_NESTED(real, plan, idata, odata, direction);
  return exec_entry(Entry::ExecZ2Z, plan, idata, odata, direction, CUFFT_Z2Z,
                    [&] { return real(plan, idata, odata, direction); });
}

extern "C" cufftResult cufftExecR2C(cufftHandle plan, cufftReal* idata, cufftComplex* odata) {
  const auto real = ABFT_REAL(Cufft, cufftExecR2C);
  ABFT_CUFFT_NESTED(real, plan, idata, odata);
  return exec_entry(Entry::ExecR2C, plan, idata, odata, CUFFT_FORWARD, CUFFT_R2C,
                    [&] { return real(plan, idata, odata); });
}

extern "C" cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal* idata, cufftDoubleComplex* odata) {
  const auto real = ABFT_REAL(Cufft, cufftExecD2Z);
  ABFT_CUFFT_NESTED(real, plan, idata, odata);
  return exec_entry(Entry::ExecD2Z, plan, idata, odata, CUFFT_FORWARD, CUFFT_D2Z,
                    [&] { return real(plan, idata, odata); });
}

extern "C" cufftResult cufftExecC2R(cufftHandle plan, cufftComplex* idata, cufftReal* odata) {
  const auto real = ABFT_REAL(Cufft, cufftExecC2R);
  ABFT_CUFFT_NESTED(real, plan, idata, odata);
  return exec_entry(Entry::ExecC2R, plan, idata, odata, CUFFT_INVERSE, CUFFT_C2R,
                    [&] { return real(plan, idata, odata); });
}

extern "C" cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleReal* odata) {
  const auto real = ABFT_REAL(Cufft, cufftExecZ2D);
  ABFT_CUFFT_NESTED(real, plan, idata, odata);
  return exec_entry(Entry::ExecZ2D, plan, idata, odata, CUFFT_INVERSE, CUFFT_Z2D,
                    [&] { return real(plan, idata, odata); });
}

extern "C" cufftResult cufftXtExec(cufftHandle plan, void* input, void* output, int direction) {
  const auto real = ABFT_REAL(Cufft, cufftXtExec);
  ABFT_CUFFT_NESTED(real, plan, input, output, direction);
  auto forward = [&] { return real(plan, input, output, direction); };
  bool known = false;
  const cufftType t = recorded_type(plan, &known);
  if (!known) {  // not seen made, or an Xt plan of types the engine has no cufftType for
    note_call(Entry::XtExec);
    bool seen = false;
    {
      std::lock_guard<std::mutex> g(g_mu);
      auto it = plans().find(plan);
      seen = it != plans().end() && it->second.made;
    }
    note_unprotected(Entry::XtExec, policy_off() ? Reason::PolicyOff : seen ? Reason::FftShape : Reason::FftPlanUnknown);
    return forward();
  }
  const int dir = (t == CUFFT_C2C || t == CUFFT_Z2Z) ? direction : (t == CUFFT_C2R || t == CUFFT_Z2D) ? CUFFT_INVERSE
                                                                                                       : CUFFT_FORWARD;
  return exec_entry(Entry::XtExec, plan, input, output, dir, t, forward);
}

extern "C" int abft_preload_fft_stream(int plan, void** stream) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = plans().find(plan);
  if (it == plans().end() || !stream) return -1;
  *stream = it->second.stream;
  return 0;
}

// The program's own callbacks: forwarded, and remembered so that the plan's executions pass
// through (the shadow plan has none of them). The engine's own JIT callbacks (its FFT plans'
// checksums, set from inside an intercepted call) are forwarded unremembered.
extern "C" cufftResult cufftXtSetCallback(cufftHandle plan, void** callback_routine, cufftXtCallbackType type,
                                          void** caller_info) {
  const auto real = ABFT_REAL(Cufft, cufftXtSetCallback);
  ABFT_CUFFT_NESTED(real, plan, callback_routine, type, caller_info);
  const cufftResult r = real(plan, callback_routine, type, caller_info);
  if (r == CUFFT_SUCCESS) note_callback(plan, int(type), true);
  return r;
}

extern "C" cufftResult cufftXtClearCallback(cufftHandle plan, cufftXtCallbackType type) {
  const auto real = ABFT_REAL(Cufft, cufftXtClearCallback);
  ABFT_CUFFT_NESTED(real, plan, type);
  const cufftResult r = real(plan, type);
  if (r == CUFFT_SUCCESS) note_callback(plan, int(type), false);
  return r;
}

// cuFFT 11 (CUDA 12) exports this name with an older signature, without the symbol name: the
// engine's plans then fall back to passes (NOT_SUPPORTED), and a program built for it has its
// call forwarded with its own arguments unchanged (the same registers, in order).
extern "C" cufftResult cufftXtSetJITCallback(cufftHandle plan, const char* name, const void* fatbin, size_t size,
                                             cufftXtCallbackType type, void** caller_info) {
  const auto real = ABFT_REAL(Cufft, cufftXtSetJITCallback);
  if (!real) return CUFFT_NOT_SUPPORTED;
  const auto version = ABFT_REAL(Cufft, cufftGetVersion);
  int v = 0;
  const bool cuda13 = version && version(&v) == CUFFT_SUCCESS && v >= 12000;
  if (ReentryGuard::inside()) return note_nested(), cuda13 ? real(plan, name, fatbin, size, type, caller_info)
                                                           : CUFFT_NOT_SUPPORTED;
  ReentryGuard guard_;
  const cufftResult r = real(plan, name, fatbin, size, type, caller_info);
  // (Under the older signature the type is another argument: remembered as some callback.)
  if (r == CUFFT_SUCCESS) note_callback(plan, cuda13 ? int(type) : 31, true);
  return r;
}
