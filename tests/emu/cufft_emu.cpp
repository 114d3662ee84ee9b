/** \file cufft_emu.cpp
 *  \brief The cuFFT calls the GPU FFT makes, on the CUDA emulator: plans (the basic and advanced
 *  layouts, 32- and 64-bit planners), execution by the library's own CPU FFT (policy off) on a
 *  packed copy, and LTO callbacks by name — cufftXtSetJITCallback finds the engine's callbacks
 *  (cuda/fft_callbacks.cu, compiled into the emulator for the host) in a table, and execution
 *  calls the load callback once for every input element and the store callback once for every
 *  output element, as cuFFT documents, from emulated kernels (the callbacks' warp collectives
 *  need their warp). What cuFFT's own kernels do between the two is not reproduced; which lanes
 *  of a warp share a signal is: consecutive elements to consecutive threads.
 *  A C2R is given the freedoms cuFFT documents and the protected engine must live with: its
 *  input is overwritten (NaN) once read, out of place too; and of every bin pair (k, -k) of a
 *  self-conjugate plane (the last index 0 or n/2) of a multi-dimensional C2R only the first is
 *  read, the other taken as its conjugate — as an algorithm may, since the half spectrum of a
 *  real signal holds both — so a spectrum that is not Hermitian there gives another result than
 *  the CPU FFT's own (which transforms the Hermitian part); and a 1D C2R reads the imaginary
 *  part of bin 0 (added to bin 1's real part), as some of cuFFT's C2R kernels read it (a cuFFT
 *  developer in FourierFlows.jl issue 326), where the CPU FFT ignores it.
 */
#include <cufftXt.h>

#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "abft/checksum/fft_library_check.hpp"
#include "abft/fft.h"

// (C++ linkage, as cuFFT's wrapper declares them: cuda/fft_callbacks.cu.)
cufftComplex abft_fft_cb_load_c(void*, unsigned long long, void*, void*);
cufftDoubleComplex abft_fft_cb_load_z(void*, unsigned long long, void*, void*);
cufftReal abft_fft_cb_load_r(void*, unsigned long long, void*, void*);
cufftDoubleReal abft_fft_cb_load_d(void*, unsigned long long, void*, void*);
void abft_fft_cb_store_c(void*, unsigned long long, cufftComplex, void*, void*);
void abft_fft_cb_store_z(void*, unsigned long long, cufftDoubleComplex, void*, void*);
void abft_fft_cb_store_r(void*, unsigned long long, cufftReal, void*, void*);
void abft_fft_cb_store_d(void*, unsigned long long, cufftDoubleReal, void*, void*);

// The LTO-IR images the real build embeds (cmake/embed_binary.cmake): here only a name
// cufftXtSetJITCallback is given alongside the symbol it looks up.
namespace abft::cuda {
extern const unsigned char kFftLoadsImage[] = {0};
extern const size_t kFftLoadsImage_size = 1;
extern const unsigned char kFftStoresImage[] = {0};
extern const size_t kFftStoresImage_size = 1;
}  // namespace abft::cuda

namespace {

struct Plan {
  bool made = false;
  int rank = 1;
  long long n[3] = {1, 1, 1}, inembed[3] = {1, 1, 1}, onembed[3] = {1, 1, 1};
  long long istride = 1, idist = 1, ostride = 1, odist = 1, batch = 1;
  cufftType type = CUFFT_C2C;
  bool basic = true;  ///< made with NULL embeds: in place, a real side's rows are padded
  void* load = nullptr;  // a callback of the table below, and its caller_info[0]
  void* load_info = nullptr;
  void* store = nullptr;
  void* store_info = nullptr;
  cudaStream_t stream = nullptr;  ///< cufftSetStream's
};

std::mutex g_mu;
std::map<cufftHandle, Plan*> g_plans;
cufftHandle g_next = 1;

Plan* plan_of(cufftHandle h) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_plans.find(h);
  return it == g_plans.end() ? nullptr : it->second;
}

bool real_in(cufftType t) { return t == CUFFT_R2C || t == CUFFT_D2Z; }
bool real_out(cufftType t) { return t == CUFFT_C2R || t == CUFFT_Z2D; }
bool dbl(cufftType t) { return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D; }

/** Elements a signal on a side, and the side's dims (the halved last one on the complex side
 *  of a real transform). */
void side_dims(const Plan& p, bool input, long long* d) {
  for (int i = 0; i < 3; ++i) d[i] = i < p.rank ? p.n[i] : 1;
  const bool halved = input ? real_out(p.type) : real_in(p.type);
  if (halved) d[p.rank - 1] = d[p.rank - 1] / 2 + 1;
}

/** Offset of element e (row-major over dims d) of signal b in a side's layout. */
unsigned long long offset_of(const Plan& p, bool input, const long long* d, long long b, long long e) {
  const long long* emb = input ? p.inembed : p.onembed;
  long long idx[3] = {0, 0, 0}, r = e;
  for (int i = p.rank - 1; i >= 0; --i) idx[i] = r % d[i], r /= d[i];
  long long o = idx[0];
  for (int i = 1; i < p.rank; ++i) o = o * emb[i] + idx[i];
  return (unsigned long long)(b * (input ? p.idist : p.odist) + o * (input ? p.istride : p.ostride));
}

cufftResult make(Plan* p, int rank, const long long* n, const long long* inembed, long long istride, long long idist,
                 const long long* onembed, long long ostride, long long odist, cufftType type, long long batch) {
  if (!p) return CUFFT_INVALID_PLAN;
  if (rank < 1 || rank > 3 || batch < 1) return CUFFT_INVALID_VALUE;
  p->rank = rank, p->type = type, p->batch = batch;
  for (int i = 0; i < 3; ++i) p->n[i] = i < rank ? n[i] : 1;
  long long din[3], dout[3];
  side_dims(*p, true, din);
  side_dims(*p, false, dout);
  const bool basic = !inembed || !onembed;  // cuFFT: either NULL -> the basic, contiguous layout
  long long cin = 1, cout = 1;
  for (int i = 0; i < 3; ++i) {
    p->inembed[i] = basic || i >= rank ? din[i] : inembed[i];
    p->onembed[i] = basic || i >= rank ? dout[i] : onembed[i];
    cin *= din[i], cout *= dout[i];
  }
  p->basic = basic;
  p->istride = basic ? 1 : istride, p->ostride = basic ? 1 : ostride;
  p->idist = basic ? cin : idist, p->odist = basic ? cout : odist;
  p->made = true;
  return CUFFT_SUCCESS;
}

template <class In, class Out>
cufftResult exec(Plan* p, void* in, void* out, int direction) {
  if (!p || !p->made) return CUFFT_INVALID_PLAN;
  abft_emu::ledger_library_call(true);
  long long din[3], dout[3], cin = 1, cout = 1;
  side_dims(*p, true, din);
  side_dims(*p, false, dout);
  for (int i = 0; i < 3; ++i) cin *= din[i], cout *= dout[i];
  const long long nin = cin * p->batch, nout = cout * p->batch;
  std::vector<In> a(static_cast<size_t>(nin));
  std::vector<Out> y(static_cast<size_t>(nout));
  Plan q = *p;
  if (q.basic && in == out && (real_in(q.type) || real_out(q.type))) {
    // cuFFT's basic layout in place: the real side's last dimension padded to 2 (n/2 + 1)
    // elements, the complex side's n/2 + 1 in the same bytes.
    long long* emb = real_in(q.type) ? q.inembed : q.onembed;
    emb[q.rank - 1] = 2 * (q.n[q.rank - 1] / 2 + 1);
    long long dist = 1;
    for (int i = 0; i < q.rank; ++i) dist *= emb[i];
    (real_in(q.type) ? q.idist : q.odist) = dist;
  }
  // Every input element through the load callback, one thread each, consecutive elements on
  // consecutive threads.
  const unsigned threads = 128;
  abft_emu::launch(abft_emu::cfg(dim3(unsigned((nin + threads - 1) / threads)), dim3(threads)), [&] {
    const long long t = (long long)blockIdx.x * threads + threadIdx.x;
    if (t >= nin) return;
    const unsigned long long off = offset_of(q, true, din, t / cin, t % cin);
    using L = In (*)(void*, unsigned long long, void*, void*);
    a[size_t(t)] = q.load ? reinterpret_cast<L>(q.load)(in, off, q.load_info, nullptr) : static_cast<In*>(in)[off];
  });
  if (cudaPeekAtLastError() != cudaSuccess) return CUFFT_EXEC_FAILED;
  if constexpr (!std::is_floating_point<In>::value) {  // (a complex input: C2C or C2R)
    if (real_out(q.type) && in != out)  // a C2R overwrites its input (in place, the output does)
      for (long long t = 0; t < nin; ++t) {
        In& x = static_cast<In*>(in)[offset_of(q, true, din, t / cin, t % cin)];
        x.x = x.y = std::numeric_limits<decltype(x.x)>::quiet_NaN();
      }
    if (real_out(q.type) && q.rank == 1 && cin > 1)
      for (long long b = 0; b < q.batch; ++b) a[size_t(b * cin + 1)].x += a[size_t(b * cin)].y;
    if (real_out(q.type) && q.rank > 1) {  // one bin of each pair of the self-conjugate planes read, the other its conjugate
      const int L = q.rank - 1;
      int64_t outer = 1, dims[3] = {q.n[0], q.n[1], q.n[2]};
      for (int i = 0; i < L; ++i) outer *= dims[i];
      for (long long b = 0; b < q.batch; ++b)
        for (long long pl = 0; pl <= (q.n[L] % 2 == 0 ? 1 : 0); ++pl)
          for (int64_t o = 0; o < outer; ++o) {
            int64_t idx[3] = {0, 0, 0}, mir[3] = {0, 0, 0};
            const int64_t mo = abft::checksum::fft_mirror_flat(o, L, dims, idx, mir);
            if (mo <= o) continue;
            const long long h1 = din[L], lo = b * cin + o * h1 + pl * (q.n[L] / 2), hi = b * cin + mo * h1 + pl * (q.n[L] / 2);
            a[size_t(hi)].x = a[size_t(lo)].x;
            a[size_t(hi)].y = -a[size_t(lo)].y;
          }
    }
  }
  // The transform: the library's CPU FFT, unprotected, on the packed batch.
  const bool d = dbl(q.type);
  const abft_fft_kind kind = real_in(q.type) ? ABFT_FFT_R2C : real_out(q.type) ? ABFT_FFT_C2R : ABFT_FFT_C2C;
  const int sign = kind == ABFT_FFT_R2C ? -1 : kind == ABFT_FFT_C2R ? 1 : (direction == CUFFT_FORWARD ? -1 : 1);
  int64_t n[3];
  for (int i = 0; i < q.rank; ++i) n[i] = q.n[i];
  abft_fft_plan_t cpu = nullptr;
  if (abft_fft_plan_many(&cpu, nullptr, d ? ABFT_PRECISION_DOUBLE : ABFT_PRECISION_FLOAT, kind, q.rank, n, q.batch,
                         nullptr, 1, cin, nullptr, 1, cout, sign, 0) != ABFT_STATUS_SUCCESS)
    return CUFFT_EXEC_FAILED;
  abft_fft_set_policy(cpu, ABFT_POLICY_OFF);
  const abft_status s = abft_fft_execute(cpu, a.data(), y.data(), nullptr);
  abft_fft_destroy(cpu);
  if (s != ABFT_STATUS_SUCCESS) return CUFFT_EXEC_FAILED;
  // Every output element through the store callback (which stores it), or stored.
  abft_emu::launch(abft_emu::cfg(dim3(unsigned((nout + threads - 1) / threads)), dim3(threads)), [&] {
    const long long t = (long long)blockIdx.x * threads + threadIdx.x;
    if (t >= nout) return;
    const unsigned long long off = offset_of(q, false, dout, t / cout, t % cout);
    using S = void (*)(void*, unsigned long long, Out, void*, void*);
    if (q.store) reinterpret_cast<S>(q.store)(out, off, y[size_t(t)], q.store_info, nullptr);
    else static_cast<Out*>(out)[off] = y[size_t(t)];
  });
  return cudaPeekAtLastError() == cudaSuccess ? CUFFT_SUCCESS : CUFFT_EXEC_FAILED;
}

}  // namespace

extern "C" {

cufftResult cufftCreate(cufftHandle* h) {
  if (!h) return CUFFT_INVALID_VALUE;
  Plan* p = new (std::nothrow) Plan();
  if (!p) return CUFFT_ALLOC_FAILED;
  std::lock_guard<std::mutex> g(g_mu);
  *h = g_next++;
  g_plans[*h] = p;
  return CUFFT_SUCCESS;
}
cufftResult cufftDestroy(cufftHandle h) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_plans.find(h);
  if (it == g_plans.end()) return CUFFT_INVALID_PLAN;
  delete it->second;
  g_plans.erase(it);
  return CUFFT_SUCCESS;
}
cufftResult cufftSetStream(cufftHandle h, cudaStream_t s) {
  Plan* p = plan_of(h);
  if (!p) return CUFFT_INVALID_PLAN;
  p->stream = s;
  return CUFFT_SUCCESS;
}

cufftResult cufftMakePlanMany64(cufftHandle h, int rank, long long* n, long long* inembed, long long istride,
                                long long idist, long long* onembed, long long ostride, long long odist,
                                cufftType type, long long batch, size_t* ws) {
  if (ws) *ws = 0;
  return make(plan_of(h), rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
}
cufftResult cufftMakePlanMany(cufftHandle h, int rank, int* n, int* inembed, int istride, int idist, int* onembed,
                              int ostride, int odist, cufftType type, int batch, size_t* ws) {
  long long nn[3] = {1, 1, 1}, ie[3] = {1, 1, 1}, oe[3] = {1, 1, 1};
  for (int i = 0; i < rank && i < 3; ++i) {
    nn[i] = n[i];
    if (inembed) ie[i] = inembed[i];
    if (onembed) oe[i] = onembed[i];
  }
  return cufftMakePlanMany64(h, rank, nn, inembed ? ie : nullptr, istride, idist, onembed ? oe : nullptr, ostride,
                             odist, type, batch, ws);
}
cufftResult cufftPlanMany(cufftHandle* h, int rank, int* n, int* inembed, int istride, int idist, int* onembed,
                          int ostride, int odist, cufftType type, int batch) {
  cufftResult r = cufftCreate(h);
  if (r == CUFFT_SUCCESS) r = cufftMakePlanMany(*h, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, nullptr);
  return r;
}
cufftResult cufftPlan1d(cufftHandle* h, int nx, cufftType type, int batch) {
  return cufftPlanMany(h, 1, &nx, nullptr, 1, 0, nullptr, 1, 0, type, batch);
}
cufftResult cufftPlan2d(cufftHandle* h, int nx, int ny, cufftType type) {
  int n[2] = {nx, ny};
  return cufftPlanMany(h, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1);
}
cufftResult cufftPlan3d(cufftHandle* h, int nx, int ny, int nz, cufftType type) {
  int n[3] = {nx, ny, nz};
  return cufftPlanMany(h, 3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1);
}

cufftResult cufftXtSetJITCallback(cufftHandle h, const char* symbol, const void*, size_t, cufftXtCallbackType type,
                                  void** caller_info) {
  static const std::map<std::string, void*> table = {
      {"abft_fft_cb_load_c", reinterpret_cast<void*>(&abft_fft_cb_load_c)},
      {"abft_fft_cb_load_z", reinterpret_cast<void*>(&abft_fft_cb_load_z)},
      {"abft_fft_cb_load_r", reinterpret_cast<void*>(&abft_fft_cb_load_r)},
      {"abft_fft_cb_load_d", reinterpret_cast<void*>(&abft_fft_cb_load_d)},
      {"abft_fft_cb_store_c", reinterpret_cast<void*>(&abft_fft_cb_store_c)},
      {"abft_fft_cb_store_z", reinterpret_cast<void*>(&abft_fft_cb_store_z)},
      {"abft_fft_cb_store_r", reinterpret_cast<void*>(&abft_fft_cb_store_r)},
      {"abft_fft_cb_store_d", reinterpret_cast<void*>(&abft_fft_cb_store_d)}};
  Plan* p = plan_of(h);
  if (!p) return CUFFT_INVALID_PLAN;
  if (p->made) return CUFFT_INVALID_VALUE;  // cuFFT: callbacks before the plan is made
  auto it = symbol ? table.find(symbol) : table.end();
  if (it == table.end()) return CUFFT_NVJITLINK_FAILURE;  // no such symbol to link
  void* info = caller_info ? caller_info[0] : nullptr;
  const bool load = type == CUFFT_CB_LD_COMPLEX || type == CUFFT_CB_LD_COMPLEX_DOUBLE || type == CUFFT_CB_LD_REAL ||
                    type == CUFFT_CB_LD_REAL_DOUBLE;
  (load ? p->load : p->store) = it->second;
  (load ? p->load_info : p->store_info) = info;
  return CUFFT_SUCCESS;
}

// The transform on the plan's stream (abft_emu::enqueue: queued with the emulator's asynchrony,
// on a copy of the plan as it stands: a plan destroyed before its work runs is still whole).
cufftResult cufftXtExec(cufftHandle h, void* in, void* out, int direction) {
  Plan* p = plan_of(h);
  if (!p) return CUFFT_INVALID_PLAN;
  if (!p->made) return CUFFT_INVALID_PLAN;
  cufftResult (*run)(Plan*, void*, void*, int) = nullptr;
  switch (p->type) {
    case CUFFT_C2C: run = exec<cufftComplex, cufftComplex>; break;
    case CUFFT_Z2Z: run = exec<cufftDoubleComplex, cufftDoubleComplex>; break;
    case CUFFT_R2C: run = exec<cufftReal, cufftComplex>; break;
    case CUFFT_D2Z: run = exec<cufftDoubleReal, cufftDoubleComplex>; break;
    case CUFFT_C2R: run = exec<cufftComplex, cufftReal>; break;
    case CUFFT_Z2D: run = exec<cufftDoubleComplex, cufftDoubleReal>; break;
    default: return CUFFT_INVALID_TYPE;
  }
  if (!abft_emu::async_mode()) return run(p, in, out, direction);
  abft_emu::enqueue(p->stream, [q = *p, run, in, out, direction]() mutable { run(&q, in, out, direction); });
  return CUFFT_SUCCESS;
}
cufftResult cufftExecC2C(cufftHandle h, cufftComplex* in, cufftComplex* out, int d) { return cufftXtExec(h, in, out, d); }
cufftResult cufftExecZ2Z(cufftHandle h, cufftDoubleComplex* in, cufftDoubleComplex* out, int d) {
  return cufftXtExec(h, in, out, d);
}
cufftResult cufftExecR2C(cufftHandle h, cufftReal* in, cufftComplex* out) { return cufftXtExec(h, in, out, CUFFT_FORWARD); }
cufftResult cufftExecD2Z(cufftHandle h, cufftDoubleReal* in, cufftDoubleComplex* out) {
  return cufftXtExec(h, in, out, CUFFT_FORWARD);
}
cufftResult cufftExecC2R(cufftHandle h, cufftComplex* in, cufftReal* out) { return cufftXtExec(h, in, out, CUFFT_INVERSE); }
cufftResult cufftExecZ2D(cufftHandle h, cufftDoubleComplex* in, cufftDoubleReal* out) {
  return cufftXtExec(h, in, out, CUFFT_INVERSE);
}

}  // extern "C"
