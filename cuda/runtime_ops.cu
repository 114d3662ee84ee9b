/** \file runtime_ops.cu
 *  \brief The transformer runtime's pointwise ops on device memory (runtime_ops.hpp): the GPU
 *  engine's resident pass runs them between its protected products and attention calls, so a
 *  pass's activations never leave the device.
 *
 *  Row ops take one block of kRowThreads per row (grid-stride over rows): the threads stride the
 *  row's columns, a row's reductions go through block_reduce (a warp butterfly, then every
 *  thread adds the warps' partials in warp order: the same result in every thread and every
 *  run), and the block's thread 0 records the row's check. A row that fails and can be
 *  recomputed (its inputs are not its outputs) is recomputed at once by the same block and
 *  checked again; CheckFlags tells the host after the pass. Reductions over rows (bias and norm
 *  parameter gradients) sum fixed chunks of rows per column in double, then the chunks in
 *  order: no atomics, the same bits every run.
 *  Status: compiled for sm_90, run on the CUDA emulator (tests/runtime/gpu_engine_test.cpp);
 *  not yet run on a GPU.
 */
#include "runtime_ops.hpp"

#include <cmath>

#include "runtime/adamw_element.hpp"
#include "runtime/fast_math.hpp"

namespace abft::cuda::rt {
namespace {

namespace fm = abft::transformer::fastm;

constexpr int kRowThreads = 128;
constexpr int kWarps = kRowThreads / 32;
constexpr int64_t kMaxGrid = int64_t(1) << 20;
/** Rows per chunk of the column sums. */
constexpr int64_t kChunkRows = 64;
constexpr int kColThreads = 128;

struct SumOp {
  template <class T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
/** max and min that keep NaN out, as std::max(a, b) with a the running value does on the host. */
struct MaxOp {
  __device__ float operator()(float a, float b) const { return a < b ? b : a; }
};
struct MinOp {
  __device__ float operator()(float a, float b) const { return b < a ? b : a; }
};

/** The block's reduction of v: every thread gets the same value. `sh` holds kWarps values. */
template <class T, class Op>
__device__ T block_reduce(T v, T* sh, Op op) {
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  __syncthreads();  // the previous reduction's readers are done with sh
  if (lane == 0) sh[w] = v;
  __syncthreads();
  T t = sh[0];
  for (int i = 1; i < kWarps; ++i) t = op(t, sh[i]);
  return t;
}

/** Finite (not Inf, not NaN), from the bits: the same test on the device and in the emulator. */
__device__ bool finite(float x) { return (__float_as_uint(x) & 0x7f800000u) != 0x7f800000u; }
__device__ bool finite(double x) {
  return (static_cast<unsigned long long>(__double_as_longlong(x)) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
}

/** Record a row's check in f (thread 0): failed first, and whether it still fails. */
__device__ void flag(CheckFlags* f, bool first, bool still) {
  if (threadIdx.x != 0) return;
  if (first) atomicOr(&f->bad, 1u);
  if (still) atomicOr(&f->bad2, 1u);
}

unsigned grid_rows(int64_t N) { return unsigned(N < kMaxGrid ? N : kMaxGrid); }

// ------------------------------------------------------------------ norms

__global__ void __launch_bounds__(kRowThreads)
norm_fwd_kernel(int64_t N, int64_t d, const float* x, const float* w, const float* b, double eps, float* y,
                float* mean, float* rstd, bool recompute, CheckFlags* f) {
  __shared__ double shd[kWarps];
  __shared__ float shf[kWarps];
  const double bound = sqrt(double(d)) * (1.0 + 1e-3);
  for (int64_t i = blockIdx.x; i < N; i += gridDim.x) {
    const float* xr = x + i * d;
    float* yr = y + i * d;
    bool first_bad = false;
    for (int attempt = 0; attempt < 2; ++attempt) {
      double mu = 0.0;
      if (b) {
        double s = 0.0;
        for (int64_t j = threadIdx.x; j < d; j += kRowThreads) s += xr[j];
        mu = block_reduce(s, shd, SumOp()) / double(d);
      }
      double ss = 0.0;
      for (int64_t j = threadIdx.x; j < d; j += kRowThreads) {
        const double c = double(xr[j]) - mu;
        ss += c * c;
      }
      ss = block_reduce(ss, shd, SumOp());
      const float r = float(1.0 / sqrt(ss / double(d) + eps));
      const float m = float(mu);
      float amax = 0.0f;
      for (int64_t j = threadIdx.x; j < d; j += kRowThreads) {
        const float n = (xr[j] - m) * r;
        amax = MaxOp()(amax, fabsf(n));
        yr[j] = b ? n * w[j] + b[j] : n * w[j];
      }
      amax = block_reduce(amax, shf, MaxOp());
      if (threadIdx.x == 0) {
        if (mean) mean[i] = m;
        rstd[i] = r;
      }
      const bool bad = !(double(amax) <= bound) || !finite(r);
      if (attempt == 0) first_bad = bad;
      if (!bad || !recompute || attempt == 1) {
        flag(f, first_bad, bad);
        break;
      }
    }
  }
}

/** dx += the row's backward; the parameter gradients are column sums (norm_cols_kernel). */
__global__ void __launch_bounds__(kRowThreads)
norm_bwd_rows_kernel(int64_t N, int64_t d, const float* x, const float* w, bool layernorm, const float* mean,
                     const float* rstd, const float* dy, float* dx, CheckFlags* f) {
  __shared__ double shd[kWarps];
  __shared__ float shf[kWarps];
  for (int64_t i = blockIdx.x; i < N; i += gridDim.x) {
    const float* xr = x + i * d;
    const float* g = dy + i * d;
    float* o = dx + i * d;
    const float m = layernorm ? mean[i] : 0.0f, r = rstd[i];
    double s1 = 0.0, s2 = 0.0;
    for (int64_t j = threadIdx.x; j < d; j += kRowThreads) {
      const float xh = (xr[j] - m) * r;
      const float dh = g[j] * w[j];
      s1 += dh;
      s2 += double(dh) * xh;
    }
    s1 = block_reduce(s1, shd, SumOp());
    s2 = block_reduce(s2, shd, SumOp());
    const float a = layernorm ? float(s1 / double(d)) : 0.0f;
    const float c = float(s2 / double(d));
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < d; j += kRowThreads) {
      const float xh = (xr[j] - m) * r;
      const float v = r * (g[j] * w[j] - a - xh * c);
      o[j] += v;
      sum += v;
    }
    sum = block_reduce(sum, shf, SumOp());
    const bool bad = !finite(sum);
    flag(f, bad, bad);  // accumulated in place: not recomputed
  }
}

/** What a column sum adds per element: Y[i, j] (plain), or the norm's (dy * xhat, dy). */
struct PlainTerm {
  const float* Y;
  int64_t ld;
  __device__ void operator()(int64_t i, int64_t j, double& s0, double&) const { s0 += Y[i * ld + j]; }
};
struct NormTerm {
  const float *x, *dy, *mean, *rstd;
  int64_t d;
  __device__ void operator()(int64_t i, int64_t j, double& s0, double& s1) const {
    const float m = mean ? mean[i] : 0.0f;
    const float xh = (x[i * d + j] - m) * rstd[i];
    const float g = dy[i * d + j];
    s0 += double(g) * xh;
    s1 += g;
  }
};

/** partial[c][j] (and partial[chunks + c][j]): the sums of chunk c's rows of column j. */
template <class Term>
__global__ void __launch_bounds__(kColThreads)
column_partials_kernel(int64_t N, int64_t n, Term term, double* partial) {
  const int64_t j = int64_t(blockIdx.x) * kColThreads + threadIdx.x;
  const int64_t c = blockIdx.y, chunks = gridDim.y;
  if (j >= n) return;
  double s0 = 0.0, s1 = 0.0;
  const int64_t hi = (c + 1) * kChunkRows < N ? (c + 1) * kChunkRows : N;
  for (int64_t i = c * kChunkRows; i < hi; ++i) term(i, j, s0, s1);
  partial[c * n + j] = s0;
  partial[(chunks + c) * n + j] = s1;
}

/** out0[j] += sum_c partial[c][j]; out1 likewise from the second half (when given). */
__global__ void __launch_bounds__(kColThreads)
column_finish_kernel(int64_t n, int64_t chunks, const double* partial, float* out0, float* out1) {
  const int64_t j = int64_t(blockIdx.x) * kColThreads + threadIdx.x;
  if (j >= n) return;
  double s0 = 0.0, s1 = 0.0;
  for (int64_t c = 0; c < chunks; ++c) {
    s0 += partial[c * n + j];
    s1 += partial[(chunks + c) * n + j];
  }
  out0[j] += float(s0);
  if (out1) out1[j] += float(s1);
}

int64_t chunks_of(int64_t N) { return (N + kChunkRows - 1) / kChunkRows; }

template <class Term>
cudaError_t column_sums(int64_t N, int64_t n, Term term, float* out0, float* out1, double* scratch) {
  if (N <= 0 || n <= 0) return cudaSuccess;
  const int64_t chunks = chunks_of(N);
  if (chunks > 65535) return cudaErrorInvalidValue;
  const dim3 grid(unsigned((n + kColThreads - 1) / kColThreads), unsigned(chunks));
  column_partials_kernel<Term><<<grid, kColThreads>>>(N, n, term, scratch);
  column_finish_kernel<<<unsigned((n + kColThreads - 1) / kColThreads), kColThreads>>>(n, chunks, scratch, out0,
                                                                                      out1);
  return cudaGetLastError();
}

// ------------------------------------------------------------------ biases, residuals

__global__ void add_bias_kernel(int64_t N, int64_t n, float* Y, int64_t ldy, const float* b) {
  const int64_t total = N * n;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e / n, j = e % n;
    Y[i * ldy + j] += b[j];
  }
}

__global__ void residual_add_kernel(int64_t N, int64_t d, float* y, const float* r, const float* b) {
  const int64_t total = N * d;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x)
    y[e] += b ? r[e] + b[e % d] : r[e];
}

unsigned grid_elems(int64_t total) {
  const int64_t g = (total + 255) / 256;
  return unsigned(g < kMaxGrid ? g : kMaxGrid);
}

// ------------------------------------------------------------------ activations

/** One row op with a check: `body(j)` writes column j and returns (its value for the lower
 *  bound, its value for the sum); the row fails when the minimum is below `lo_bound` or the sum
 *  is not finite. */
template <class Body>
__device__ void checked_row(int64_t f, float lo_bound, bool recompute, CheckFlags* fl, Body body) {
  __shared__ float shf[kWarps];
  bool first_bad = false;
  for (int attempt = 0; attempt < 2; ++attempt) {
    float lo = 0.0f, sum = 0.0f;
    for (int64_t j = threadIdx.x; j < f; j += kRowThreads) {
      float v, s;
      body(j, v, s);
      lo = MinOp()(lo, v);
      sum += s;
    }
    lo = block_reduce(lo, shf, MinOp());
    sum = block_reduce(sum, shf, SumOp());
    const bool bad = !(lo >= lo_bound) || !finite(sum);
    if (attempt == 0) first_bad = bad;
    if (!bad || !recompute || attempt == 1) {
      flag(fl, first_bad, bad);
      return;
    }
  }
}

__global__ void __launch_bounds__(kRowThreads)
bias_gelu_kernel(int64_t N, int64_t f, float* u, const float* b, float* a, bool recompute, CheckFlags* fl) {
  for (int64_t i = blockIdx.x; i < N; i += gridDim.x) {
    float* ur = u + i * f;
    float* ar = a + i * f;
    if (b) {
      for (int64_t j = threadIdx.x; j < f; j += kRowThreads) ur[j] += b[j];
      __syncthreads();
    }
    checked_row(f, fm::kGeluMin, recompute, fl, [&](int64_t j, float& v, float& s) {
      v = s = ar[j] = fm::gelu(ur[j]);
    });
  }
}

__global__ void __launch_bounds__(kRowThreads)
gelu_bwd_kernel(int64_t N, int64_t f, const float* u, const float* da, float* du, bool recompute, CheckFlags* fl) {
  for (int64_t i = blockIdx.x; i < N; i += gridDim.x) {
    const float* ur = u + i * f;
    const float* gr = da + i * f;
    float* o = du + i * f;
    checked_row(f, -INFINITY, recompute, fl, [&](int64_t j, float& v, float& s) {
      s = o[j] = gr[j] * fm::gelu_grad(ur[j]);
      v = 0.0f;
    });
  }
}

__global__ void __launch_bounds__(kRowThreads)
swiglu_fwd_kernel(int64_t N, int64_t f, const float* g, const float* u, float* a, bool recompute, CheckFlags* fl) {
  for (int64_t i = blockIdx.x; i < N; i += gridDim.x) {
    const float* gr = g + i * f;
    const float* ur = u + i * f;
    float* ar = a + i * f;
    checked_row(f, fm::kSiluMin, recompute, fl, [&](int64_t j, float& v, float& s) {
      v = gr[j] * fm::sigmoid(gr[j]);
      s = ar[j] = v * ur[j];
    });
  }
}

__global__ void __launch_bounds__(kRowThreads)
swiglu_bwd_kernel(int64_t N, int64_t f, const float* g, const float* u, const float* da, float* dg, float* du,
                  bool recompute, CheckFlags* fl) {
  for (int64_t i = blockIdx.x; i < N; i += gridDim.x) {
    const float* gr = g + i * f;
    const float* ur = u + i * f;
    const float* ar = da + i * f;
    float* og = dg + i * f;
    float* ou = du + i * f;
    checked_row(f, -INFINITY, recompute, fl, [&](int64_t j, float& v, float& s) {
      const float x = gr[j], sg = fm::sigmoid(x);
      ou[j] = ar[j] * (x * sg);
      og[j] = ar[j] * ur[j] * sg * (1.0f + x * (1.0f - sg));
      s = ou[j] + og[j];
      v = 0.0f;
    });
  }
}

// ------------------------------------------------------------------ rotary, embedding

/** One thread per (row, head). */
__global__ void rope_kernel(int64_t N, int64_t heads, int64_t hd, float* x, int64_t ld, const int32_t* pos,
                            const float* cos_t, const float* sin_t, float sgn, CheckFlags* fl) {
  const int64_t h = hd / 2;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < N * heads;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = e / heads, hh = e % heads;
    const float* c = cos_t + int64_t(pos[r]) * h;
    const float* s = sin_t + int64_t(pos[r]) * h;
    if (!fm::rotate_head(x + r * ld + hh * hd, c, s, h, sgn)) {
      atomicOr(&fl->bad, 1u);
      atomicOr(&fl->bad2, 1u);  // in place: not recomputed
    }
  }
}

__global__ void __launch_bounds__(kRowThreads)
embed_fwd_kernel(int64_t N, int64_t d, const int32_t* tok, const int32_t* pos, const float* wte, const float* wpe,
                 float* x, bool recompute, CheckFlags* fl) {
  for (int64_t i = blockIdx.x; i < N; i += gridDim.x) {
    const float* e = wte + int64_t(tok[i]) * d;
    const float* p = wpe ? wpe + int64_t(pos[i]) * d : nullptr;
    float* o = x + i * d;
    checked_row(d, -INFINITY, recompute, fl, [&](int64_t j, float& v, float& s) {
      s = o[j] = p ? e[j] + p[j] : e[j];
      v = 0.0f;
    });
  }
}

__global__ void embed_bwd_kernel(int64_t N, int64_t d, const int32_t* tok, const int32_t* pos, const float* dx,
                                 float* dwte, float* dwpe) {
  const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= d) return;
  for (int64_t i = 0; i < N; ++i) {
    const float g = dx[i * d + j];
    dwte[int64_t(tok[i]) * d + j] += g;
    if (dwpe) dwpe[int64_t(pos[i]) * d + j] += g;
  }
}

__global__ void kv_append_kernel(int64_t count, int64_t kvh, int64_t hd, const float* qkv, int64_t ld, int64_t koff,
                                 int64_t voff, float* kc, float* vc, int64_t cap, int64_t len) {
  const int64_t total = count * kvh * hd;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % hd, h = (e / hd) % kvh, t = e / (hd * kvh);
    const float* row = qkv + t * ld;
    const int64_t at = (h * cap + len + t) * hd + i;
    kc[at] = row[koff + h * hd + i];
    vc[at] = row[voff + h * hd + i];
  }
}

// ------------------------------------------------------------------ loss

__global__ void __launch_bounds__(kRowThreads)
cross_entropy_kernel(int64_t N, int64_t V, float* logits, const int32_t* targets, float* dlogits, float g,
                     double* row_loss, bool recompute, CheckFlags* fl) {
  __shared__ float shf[kWarps];
  for (int64_t i = blockIdx.x; i < N; i += gridDim.x) {
    const float* z = logits + i * V;
    const int32_t t = targets[i];
    // Read before any thread overwrites the row (in place).
    const float zt = t >= 0 ? z[t] : 0.0f;
    bool first_bad = false;
    for (int attempt = 0; attempt < 2; ++attempt) {
      float mx = z[0];
      for (int64_t j = threadIdx.x; j < V; j += kRowThreads) mx = MaxOp()(mx, z[j]);
      mx = block_reduce(mx, shf, MaxOp());
      float se = 0.0f;
      for (int64_t j = threadIdx.x; j < V; j += kRowThreads) se += fm::exp(z[j] - mx);
      se = block_reduce(se, shf, SumOp());
      const double lse = double(mx) + log(double(se));
      bool bad = false;
      if (t >= 0) {
        const double l = lse - double(zt);
        bad = !(l >= -double(V) * 0x1p-23) || !finite(l);
        if (threadIdx.x == 0) row_loss[i] = l;
      } else if (threadIdx.x == 0) {
        row_loss[i] = 0.0;
      }
      const bool again = bad && recompute && attempt == 0;
      if (dlogits && !again) {
        float* dr = dlogits + i * V;
        const float gi = t >= 0 ? g : 0.0f;
        const float flse = float(lse);
        __syncthreads();  // every thread has read the row's logits
        for (int64_t j = threadIdx.x; j < V; j += kRowThreads) {
          float v = gi * fm::exp(z[j] - flse);
          if (j == t) v -= gi;
          dr[j] = v;
        }
      }
      if (attempt == 0) first_bad = bad;
      if (!again) {
        flag(fl, first_bad, bad);
        break;
      }
    }
  }
}

/** *total = sum of row_loss in a fixed order (one block). */
__global__ void __launch_bounds__(kRowThreads) sum_rows_kernel(int64_t N, const double* row_loss, double* total) {
  __shared__ double shd[kWarps];
  double s = 0.0;
  for (int64_t i = threadIdx.x; i < N; i += kRowThreads) s += row_loss[i];
  s = block_reduce(s, shd, SumOp());
  if (threadIdx.x == 0) *total = s;
}

// ------------------------------------------------------------------ AdamW

__global__ void __launch_bounds__(kRowThreads)
sum_squares_kernel(int64_t n, const float* g, int64_t block, double* partial) {
  __shared__ double shd[kWarps];
  const int64_t blocks = (n + block - 1) / block;
  for (int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const int64_t lo = b * block, hi = lo + block < n ? lo + block : n;
    double s = 0.0;
    for (int64_t i = lo + threadIdx.x; i < hi; i += kRowThreads) s += double(g[i]) * double(g[i]);
    s = block_reduce(s, shd, SumOp());
    if (threadIdx.x == 0) partial[b] = s;
  }
}

__global__ void adamw_kernel(int64_t n, float* w, float* g, float* m, float* v, const uint8_t* decay, float clip_scale,
                             double b1, double b2, double step_size, double inv_sqrt_bc2, double shrink, double eps) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    if (clip_scale != 1.0f) g[i] *= clip_scale;
    abft::transformer::adamw_element(w[i], g[i], m[i], v[i], decay[i] != 0, b1, b2, step_size, inv_sqrt_bc2, shrink,
                                     eps);
  }
}

}  // namespace

// ------------------------------------------------------------------ entry points

cudaError_t norm_fwd(int64_t N, int64_t d, const float* x, const float* w, const float* b, double eps, float* y,
                     float* mean, float* rstd, bool recompute, CheckFlags* f) {
  if (N <= 0) return cudaSuccess;
  norm_fwd_kernel<<<grid_rows(N), kRowThreads>>>(N, d, x, w, b, eps, y, mean, rstd, recompute, f);
  return cudaGetLastError();
}

size_t column_scratch(int64_t N, int64_t n) { return size_t(2 * chunks_of(N > 0 ? N : 1) * (n > 0 ? n : 1)); }

cudaError_t norm_bwd(int64_t N, int64_t d, const float* x, const float* w, bool layernorm, const float* mean,
                     const float* rstd, const float* dy, float* dx, float* dw, float* db, double* scratch,
                     CheckFlags* f) {
  if (N <= 0) return cudaSuccess;
  norm_bwd_rows_kernel<<<grid_rows(N), kRowThreads>>>(N, d, x, w, layernorm, layernorm ? mean : nullptr, rstd, dy,
                                                      dx, f);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  return column_sums(N, d, NormTerm{x, dy, layernorm ? mean : nullptr, rstd, d}, dw, db, scratch);
}

cudaError_t column_sums_add(int64_t N, int64_t n, const float* Y, int64_t ldy, float* out, double* scratch) {
  return column_sums(N, n, PlainTerm{Y, ldy}, out, nullptr, scratch);
}

cudaError_t add_bias(int64_t N, int64_t n, float* Y, int64_t ldy, const float* b) {
  if (N <= 0 || n <= 0) return cudaSuccess;
  add_bias_kernel<<<grid_elems(N * n), 256>>>(N, n, Y, ldy, b);
  return cudaGetLastError();
}

cudaError_t residual_add(int64_t N, int64_t d, float* y, const float* r, const float* b) {
  if (N <= 0 || d <= 0) return cudaSuccess;
  residual_add_kernel<<<grid_elems(N * d), 256>>>(N, d, y, r, b);
  return cudaGetLastError();
}

cudaError_t bias_gelu_fwd(int64_t N, int64_t f, float* u, const float* b, float* a, bool recompute, CheckFlags* fl) {
  if (N <= 0) return cudaSuccess;
  bias_gelu_kernel<<<grid_rows(N), kRowThreads>>>(N, f, u, b, a, recompute, fl);
  return cudaGetLastError();
}

cudaError_t gelu_bwd(int64_t N, int64_t f, const float* u, const float* da, float* du, bool recompute,
                     CheckFlags* fl) {
  if (N <= 0) return cudaSuccess;
  gelu_bwd_kernel<<<grid_rows(N), kRowThreads>>>(N, f, u, da, du, recompute, fl);
  return cudaGetLastError();
}

cudaError_t swiglu_fwd(int64_t N, int64_t f, const float* g, const float* u, float* a, bool recompute,
                       CheckFlags* fl) {
  if (N <= 0) return cudaSuccess;
  swiglu_fwd_kernel<<<grid_rows(N), kRowThreads>>>(N, f, g, u, a, recompute, fl);
  return cudaGetLastError();
}

cudaError_t swiglu_bwd(int64_t N, int64_t f, const float* g, const float* u, const float* da, float* dg, float* du,
                       bool recompute, CheckFlags* fl) {
  if (N <= 0) return cudaSuccess;
  swiglu_bwd_kernel<<<grid_rows(N), kRowThreads>>>(N, f, g, u, da, dg, du, recompute, fl);
  return cudaGetLastError();
}

cudaError_t rope(int64_t N, int64_t heads, int64_t hd, float* x, int64_t ld, const int32_t* pos, const float* cos_t,
                 const float* sin_t, bool inverse, CheckFlags* fl) {
  if (N <= 0 || heads <= 0) return cudaSuccess;
  rope_kernel<<<grid_elems(N * heads), 256>>>(N, heads, hd, x, ld, pos, cos_t, sin_t, inverse ? -1.0f : 1.0f, fl);
  return cudaGetLastError();
}

cudaError_t embed_fwd(int64_t N, int64_t d, const int32_t* tok, const int32_t* pos, const float* wte,
                      const float* wpe, float* x, bool recompute, CheckFlags* fl) {
  if (N <= 0) return cudaSuccess;
  embed_fwd_kernel<<<grid_rows(N), kRowThreads>>>(N, d, tok, pos, wte, wpe, x, recompute, fl);
  return cudaGetLastError();
}

cudaError_t embed_bwd(int64_t N, int64_t d, const int32_t* tok, const int32_t* pos, const float* dx, float* dwte,
                      float* dwpe) {
  if (N <= 0 || d <= 0) return cudaSuccess;
  embed_bwd_kernel<<<unsigned((d + 127) / 128), 128>>>(N, d, tok, pos, dx, dwte, dwpe);
  return cudaGetLastError();
}

cudaError_t sum_squares_blocks(int64_t n, const float* g, int64_t block, double* partial) {
  if (n <= 0 || block <= 0) return cudaSuccess;
  sum_squares_kernel<<<grid_rows((n + block - 1) / block), kRowThreads>>>(n, g, block, partial);
  return cudaGetLastError();
}

cudaError_t adamw_update(int64_t n, float* w, float* g, float* m, float* v, const uint8_t* decay, float clip_scale,
                         double b1, double b2, double step_size, double inv_sqrt_bc2, double shrink, double eps) {
  if (n <= 0) return cudaSuccess;
  adamw_kernel<<<grid_elems(n), 256>>>(n, w, g, m, v, decay, clip_scale, b1, b2, step_size, inv_sqrt_bc2, shrink, eps);
  return cudaGetLastError();
}

cudaError_t kv_append(int64_t count, int64_t kv_heads, int64_t hd, const float* qkv, int64_t ld, int64_t koff,
                      int64_t voff, float* kc, float* vc, int64_t cap, int64_t len) {
  if (count <= 0 || kv_heads <= 0 || hd <= 0) return cudaSuccess;
  kv_append_kernel<<<grid_elems(count * kv_heads * hd), 256>>>(count, kv_heads, hd, qkv, ld, koff, voff, kc, vc, cap,
                                                               len);
  return cudaGetLastError();
}

cudaError_t cross_entropy(int64_t N, int64_t V, float* logits, const int32_t* targets, float* dlogits, float g,
                          double* row_loss, double* total, bool recompute, CheckFlags* fl) {
  if (N <= 0) return cudaMemsetAsync(total, 0, sizeof(double));
  cross_entropy_kernel<<<grid_rows(N), kRowThreads>>>(N, V, logits, targets, dlogits, g, row_loss,
                                                      recompute && dlogits != logits, fl);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  sum_rows_kernel<<<1, kRowThreads>>>(N, row_loss, total);
  return cudaGetLastError();
}

}  // namespace abft::cuda::rt
