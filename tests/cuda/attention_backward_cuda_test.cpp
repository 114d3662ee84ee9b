/** \file attention_backward_cuda_test.cpp
 *  \brief The protected attention backward on device memory (abft_cuda_attention_backward,
 *  cuda/attention_backward.cu).
 *
 *  Argument checks run everywhere (they return before any CUDA call; a valid call on a machine
 *  without a GPU is NOT_SUPPORTED, said cleanly). Everything else needs a CUDA device and skips
 *  with the reason without one: gradients against the double-precision reference of
 *  abft/checksum/attention_reference.hpp (run on the very O, lse and inputs the kernel reads,
 *  rounded to the storage type) for float, binary16 and bfloat16 storage, causal and not, GQA,
 *  q_len != kv_len both ways, strided layouts (storage outside the views untouched), a mask
 *  with -inf entries and a fully masked row, every head-dim bucket; empty sides written as
 *  zeros; no detection on adversarial clean data (wide range, ties, peaked softmax); a fault at
 *  every backward site detected and, under CORRECT, repaired bit for bit (DETECT counts
 *  without repair); policy OFF gives the same gradients bit for bit.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "abft/abft.h"
#include "abft/abft_cuda.h"
#include "abft/attention.h"
#include "abft/checksum/attention_reference.hpp"
#include "cuda_test_util.hpp"

namespace {

namespace ref = abft::checksum::attn_ref;
using abft_test::DeviceBuffer;
constexpr float kInf = std::numeric_limits<float>::infinity();

// ------------------------------------------------------------------ argument checks (no device)

TEST(CudaAttentionBackwardArgs, BadArgumentsAreRejectedBeforeTheDevice) {
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  abft_attention_desc d;
  ASSERT_EQ(abft_attention_desc_init(&d, 2, 4, 2, 16, 24, 64), ABFT_STATUS_SUCCESS);
  // Stand-in pointers: never dereferenced, every call below returns before touching them.
  float host[4] = {};
  void* p = host;
  const float* lse = host;
  const auto F = ABFT_CUDA_FLOAT;
  const auto C = ABFT_POLICY_CORRECT;
  auto call = [&](abft_handle_t hh, abft_policy pol, const abft_attention_desc* dd, abft_cuda_dtype t, const void* Q,
                  const void* K, const void* V, const void* O, const void* dO, const float* L, void* dQ, void* dK,
                  void* dV) {
    return abft_cuda_attention_backward(hh, nullptr, pol, dd, t, Q, K, V, nullptr, O, dO, L, dQ, dK, dV);
  };
  EXPECT_EQ(call(nullptr, C, &d, F, p, p, p, p, p, lse, p, p, p), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(call(h, C, nullptr, F, p, p, p, p, p, lse, p, p, p), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(call(h, abft_policy(9), &d, F, p, p, p, p, p, lse, p, p, p), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(h, C, &d, abft_cuda_dtype(7), p, p, p, p, p, lse, p, p, p), ABFT_STATUS_INVALID_VALUE);
  // Every tensor the call reads or writes; lse is required.
  EXPECT_EQ(call(h, C, &d, F, nullptr, p, p, p, p, lse, p, p, p), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(call(h, C, &d, F, p, nullptr, p, p, p, lse, p, p, p), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(call(h, C, &d, F, p, p, nullptr, p, p, lse, p, p, p), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(call(h, C, &d, F, p, p, p, nullptr, p, lse, p, p, p), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(call(h, C, &d, F, p, p, p, p, nullptr, lse, p, p, p), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(call(h, C, &d, F, p, p, p, p, p, nullptr, p, p, p), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(call(h, C, &d, F, p, p, p, p, p, lse, nullptr, p, p), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(call(h, C, &d, F, p, p, p, p, p, lse, p, nullptr, p), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(call(h, C, &d, F, p, p, p, p, p, lse, p, p, nullptr), ABFT_STATUS_NULL_POINTER);
  // The descriptor's rules (core::check_attention_desc, shared with the CPU engine).
  abft_attention_desc bad = d;
  bad.causal = 2;
  EXPECT_EQ(call(h, C, &bad, F, p, p, p, p, p, lse, p, p, p), ABFT_STATUS_INVALID_VALUE);
  bad = d;
  bad.scale = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(call(h, C, &bad, F, p, p, p, p, p, lse, p, p, p), ABFT_STATUS_INVALID_VALUE);
  bad = d;
  bad.head_dim = 0;
  EXPECT_EQ(call(h, C, &bad, F, p, p, p, p, p, lse, p, p, p), ABFT_STATUS_INVALID_SIZE);
  bad.head_dim = ABFT_ATTENTION_MAX_HEAD_DIM + 1;
  EXPECT_EQ(call(h, C, &bad, F, p, p, p, p, p, lse, p, p, p), ABFT_STATUS_INVALID_SIZE);
  bad = d;
  bad.heads = 3;
  EXPECT_EQ(call(h, C, &bad, F, p, p, p, p, p, lse, p, p, p), ABFT_STATUS_INVALID_SIZE);
  bad = d;
  bad.q_len = -1;
  EXPECT_EQ(call(h, C, &bad, F, p, p, p, p, p, lse, p, p, p), ABFT_STATUS_INVALID_SIZE);
  bad = d;
  bad.k_strides[2] = 0;
  EXPECT_EQ(call(h, C, &bad, F, p, p, p, p, p, lse, p, p, p), ABFT_STATUS_INVALID_LD);
  // Empty calls succeed without reading anything; a side that is not empty needs its tensors.
  abft_attention_desc e = d;
  e.batch = 0;
  EXPECT_EQ(call(h, C, &e, F, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
            ABFT_STATUS_SUCCESS);
  e = d;
  e.q_len = 0;  // dK, dV are written (zeros): K, V, dK, dV required, the query side not
  EXPECT_EQ(call(h, C, &e, F, nullptr, p, p, nullptr, nullptr, nullptr, nullptr, p, nullptr),
            ABFT_STATUS_NULL_POINTER);
  e = d;
  e.kv_len = 0;  // dQ is written (zeros)
  EXPECT_EQ(call(h, C, &e, F, p, nullptr, nullptr, p, p, lse, nullptr, nullptr, nullptr),
            ABFT_STATUS_NULL_POINTER);
  // A valid call: NOT_SUPPORTED without a device (said cleanly, nothing touched).
  if (abft_cuda_device_count() < 1) {
    EXPECT_EQ(call(h, C, &d, F, p, p, p, p, p, lse, p, p, p), ABFT_STATUS_NOT_SUPPORTED);
  }
  abft_handle_destroy(h);
}

// ------------------------------------------------------------------ storage types on the host

template <class T>
float dec(T x) {
  if constexpr (std::is_same_v<T, float>) return x;
  else if constexpr (std::is_same_v<T, __half>) return __half2float(x);
  else return __bfloat162float(x);
}
template <class T>
T enc(float x) {
  if constexpr (std::is_same_v<T, float>) return x;
  else if constexpr (std::is_same_v<T, __half>) return __float2half_rn(x);
  else return __float2bfloat16_rn(x);
}
template <class T>
constexpr abft_cuda_dtype dtype_of() {
  return std::is_same_v<T, float> ? ABFT_CUDA_FLOAT : std::is_same_v<T, __half> ? ABFT_CUDA_HALF : ABFT_CUDA_BFLOAT16;
}
template <class T>
const char* type_name() {
  return std::is_same_v<T, float> ? "float" : std::is_same_v<T, __half> ? "half" : "bf16";
}
/** The storage format's unit roundoff and half its subnormal quantum (0 for float). */
template <class T>
double storage_u() {
  return std::is_same_v<T, float> ? 0.0 : std::is_same_v<T, __half> ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
}
template <class T>
double storage_tiny() {
  return std::is_same_v<T, float> ? 0.0 : std::is_same_v<T, __half> ? std::ldexp(1.0, -25) : std::ldexp(1.0, -134);
}

/** The backward's product engines: SIMT everywhere (ABFT_CUDA_ATTN_TC unset), the mma.sync
 *  kernels ("mma": 16-bit storage at head-dim buckets 64 and 128 without a mask, unit-stride
 *  16-byte aligned rows; attention_backward_mma.cu). There is no WMMA backward ("1" runs SIMT). */
enum class Engine { Simt, Mma };
constexpr Engine kEngines[] = {Engine::Simt, Engine::Mma};
/** The engine for a scope. */
struct ProductEngine : abft_test::ScopedEnv {
  explicit ProductEngine(Engine e) : abft_test::ScopedEnv("ABFT_CUDA_ATTN_TC", e == Engine::Mma ? "mma" : nullptr) {}
};
const char* engine_name(Engine e) { return e == Engine::Mma ? "mma " : ""; }

// ------------------------------------------------------------------ one problem

struct Spec {
  int64_t B = 1, H = 2, HK = 1, Lq = 40, Lk = 40, D = 64;
  int causal = 0;
  bool strided = false;  ///< Q, O in [B, L, H, D]; K rows padded; V every other element
  bool mask = false;     ///< additive mask, broadcast over the batch, -inf entries, one fully masked row
  int data = 0;          ///< 0 normal; 1 wide range; 2 ties (identical keys and queries); 3 peaked softmax
  float scale_mul = 1.0f;
  float do_scale = 1.0f;  ///< dO drawn times this (then rounded to the storage type)
  /** Whether the mma.sync kernels take this problem in storage T (their scope). */
  template <class T>
  bool mma_scope() const {
    return !std::is_same_v<T, float> && !mask && !strided && D > 32 && D <= 128 && D % 8 == 0 && Lq > 0 && Lk > 0;
  }
  /** The units (checks + skipped) one protected call counts: a block of the dK/dV kernel per
   *  (batch, KV head, key block), one of the dQ kernel per (batch, head, query block); blocks
   *  of 32 in the SIMT kernels, of 64 in the mma ones. */
  template <class T>
  uint64_t units(Engine e) const {
    const int64_t bl = e == Engine::Mma && mma_scope<T>() ? 64 : 32;
    return uint64_t(B * HK * ((Lk + bl - 1) / bl) + B * H * ((Lq + bl - 1) / bl));
  }
  std::string name() const {
    std::ostringstream s;
    s << "B" << B << "H" << H << "KV" << HK << "q" << Lq << "k" << Lk << "d" << D << (causal ? "_causal" : "")
      << (strided ? "_strided" : "") << (mask ? "_mask" : "") << "_data" << data;
    return s.str();
  }
};

/** Span in elements of a 4-D view with nonnegative strides. */
size_t span(const ref::View4& v, int64_t n0, int64_t n1, int64_t n2, int64_t n3) {
  if (n0 == 0 || n1 == 0 || n2 == 0 || n3 == 0) return 1;
  return size_t((n0 - 1) * v.s[0] + (n1 - 1) * v.s[1] + (n2 - 1) * v.s[2] + (n3 - 1) * v.s[3] + 1);
}

template <class T>
struct Problem {
  Spec s;
  abft_attention_desc d{};
  ref::Views w;
  std::vector<float> Q, K, V, M, O, dO;  // the values the kernel reads (representable in T), in their layouts
  std::vector<float> lse;
  ref::Backward rb;
  double lse_max_abs = 0.0, data_max = 0.0;
  static constexpr float kSentinel = 1234.5f;  // in the gradients' storage outside their views

  explicit Problem(const Spec& sp, uint64_t seed) : s(sp) {
    abft_attention_desc_init(&d, s.B, s.H, s.HK, s.Lq, s.Lk, s.D);
    d.causal = s.causal;
    d.scale *= s.scale_mul;
    if (s.strided) {
      const int64_t q[4] = {s.Lq * s.H * s.D, s.D, s.H * s.D, 1};
      const int64_t k[4] = {s.HK * s.Lk * (s.D + 3), s.Lk * (s.D + 3), s.D + 3, 1};
      const int64_t v[4] = {s.HK * s.Lk * s.D * 2, s.Lk * s.D * 2, s.D * 2, 2};
      std::memcpy(d.q_strides, q, sizeof q);
      std::memcpy(d.o_strides, q, sizeof q);
      std::memcpy(d.k_strides, k, sizeof k);
      std::memcpy(d.v_strides, v, sizeof v);
    }
    if (s.mask) {
      const int64_t m[4] = {0, s.Lq * s.Lk, s.Lk, 1};
      std::memcpy(d.mask_strides, m, sizeof m);
    }
    w = ref::views(d);
    std::mt19937_64 g(seed);
    std::normal_distribution<double> nd(0.0, 1.0);
    std::uniform_real_distribution<double> ud(0.0, 1.0);
    auto draw = [&]() -> float {
      double x = nd(g);
      if (s.data == 1) x = (ud(g) < 0.5 ? -1.0 : 1.0) * std::pow(10.0, -3.0 + 5.0 * ud(g));
      return dec<T>(enc<T>(float(x)));
    };
    Q.assign(span(w.q, s.B, s.H, s.Lq, s.D), 0.0f);
    O.assign(span(w.o, s.B, s.H, s.Lq, s.D), 0.0f);
    dO.assign(O.size(), 0.0f);
    K.assign(span(w.k, s.B, s.HK, s.Lk, s.D), 0.0f);
    V.assign(span(w.v, s.B, s.HK, s.Lk, s.D), 0.0f);
    std::vector<float> qrow(size_t(s.D)), krow(size_t(s.D));
    for (float& x : qrow) x = draw();
    for (float& x : krow) x = draw();
    for (int64_t b = 0; b < s.B; ++b)
      for (int64_t h = 0; h < s.H; ++h)
        for (int64_t i = 0; i < s.Lq; ++i)
          for (int64_t c = 0; c < s.D; ++c) {
            Q[size_t(w.q.at(b, h, i, c))] = s.data == 2 ? qrow[size_t(c)] : draw();
            dO[size_t(w.o.at(b, h, i, c))] = dec<T>(enc<T>(draw() * s.do_scale));
          }
    for (int64_t b = 0; b < s.B; ++b)
      for (int64_t h = 0; h < s.HK; ++h)
        for (int64_t j = 0; j < s.Lk; ++j)
          for (int64_t c = 0; c < s.D; ++c) {
            K[size_t(w.k.at(b, h, j, c))] = s.data == 2 ? krow[size_t(c)] : draw();
            V[size_t(w.v.at(b, h, j, c))] = draw();
          }
    if (s.mask) {
      M.assign(size_t(s.H * s.Lq * s.Lk), 0.0f);
      for (size_t t = 0; t < M.size(); ++t)
        M[t] = ud(g) < 0.15 ? -kInf : dec<T>(enc<T>(float(0.5 * nd(g))));
      if (s.Lq > 3)  // query 3 of head 0 sees no key: lse = -inf, zero gradients
        for (int64_t j = 0; j < s.Lk; ++j) M[size_t(3 * s.Lk + j)] = -kInf;
    }
    const float* mp = s.mask ? M.data() : nullptr;
    // The forward in double, its O rounded to T and lse to float: what the kernel reads. The
    // reference backward then runs on those very values (the backward is a function of them).
    const ref::Forward rf = ref::forward<float>(d, Q.data(), K.data(), V.data(), mp);
    std::vector<double> Oc(rf.O.size()), lsec(rf.lse.size());
    lse.assign(rf.lse.size(), 0.0f);
    for (int64_t b = 0; b < s.B; ++b)
      for (int64_t h = 0; h < s.H; ++h)
        for (int64_t i = 0; i < s.Lq; ++i) {
          const size_t li = ref::lidx(d, b, h, i);
          lse[li] = float(rf.lse[li]);
          lsec[li] = double(lse[li]);
          if (std::isfinite(lsec[li])) lse_max_abs = std::max(lse_max_abs, std::fabs(lsec[li]));
          for (int64_t c = 0; c < s.D; ++c) {
            const size_t oi = ref::oidx(d, b, h, i, c);
            const float o = dec<T>(enc<T>(float(rf.O[oi])));
            O[size_t(w.o.at(b, h, i, c))] = o;
            Oc[oi] = double(o);
          }
        }
    rb = ref::backward<float>(d, Q.data(), K.data(), V.data(), mp, Oc.data(), lsec.data(), dO.data());
    for (const std::vector<float>* v : {&Q, &K, &V, &dO})
      for (float x : *v) data_max = std::max(data_max, double(std::fabs(x)));
  }

  static std::vector<T> to_t(const std::vector<float>& v) {
    std::vector<T> r(v.size());
    for (size_t t = 0; t < v.size(); ++t) r[t] = enc<T>(v[t]);
    return r;
  }
};

/** The device side of one call: inputs uploaded once, gradients (with a sentinel outside their
 *  views) reset before each run. */
template <class T>
struct DeviceRun {
  const Problem<T>& p;
  DeviceBuffer<T> Q, K, V, M, O, dO, dQ, dK, dV;
  DeviceBuffer<float> lse;
  std::vector<T> dQ0, dK0, dV0;
  explicit DeviceRun(const Problem<T>& pp)
      : p(pp),
        Q(Problem<T>::to_t(pp.Q)),
        K(Problem<T>::to_t(pp.K)),
        V(Problem<T>::to_t(pp.V)),
        M(Problem<T>::to_t(pp.M.empty() ? std::vector<float>(1, 0.0f) : pp.M)),
        O(Problem<T>::to_t(pp.O)),
        dO(Problem<T>::to_t(pp.dO)),
        dQ(std::vector<T>(pp.Q.size(), enc<T>(Problem<T>::kSentinel))),
        dK(std::vector<T>(pp.K.size(), enc<T>(Problem<T>::kSentinel))),
        dV(std::vector<T>(pp.V.size(), enc<T>(Problem<T>::kSentinel))),
        lse(pp.lse.empty() ? std::vector<float>(1, 0.0f) : pp.lse),
        dQ0(pp.Q.size(), enc<T>(Problem<T>::kSentinel)),
        dK0(pp.K.size(), enc<T>(Problem<T>::kSentinel)),
        dV0(pp.V.size(), enc<T>(Problem<T>::kSentinel)) {}

  abft_status run(abft_handle_t h, abft_policy pol) {
    cudaMemcpy(dQ.p, dQ0.data(), dQ0.size() * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(dK.p, dK0.data(), dK0.size() * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(dV.p, dV0.data(), dV0.size() * sizeof(T), cudaMemcpyHostToDevice);
    return abft_cuda_attention_backward(h, nullptr, pol, &p.d, dtype_of<T>(), Q.p, K.p, V.p, p.s.mask ? M.p : nullptr,
                                        O.p, dO.p, lse.p, dQ.p, dK.p, dV.p);
  }
  std::vector<T> gq() const { return dQ.get(p.Q.size()); }
  std::vector<T> gk() const { return dK.get(p.K.size()); }
  std::vector<T> gv() const { return dV.get(p.V.size()); }
};

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

/** Gradients against the reference, element by element (tolerance of attention_reference.hpp,
 *  twice, plus the storage rounding), and the storage outside each view untouched. */
template <class T>
void compare(const Problem<T>& p, const std::vector<T>& gq, const std::vector<T>& gk, const std::vector<T>& gv,
             bool mma = false) {
  const ref::Tol t = ref::tolerance(p.d, p.rb.qk_mag, p.rb.s_max_abs, p.lse_max_abs, p.data_max);
  const double su = storage_u<T>(), tiny = storage_tiny<T>();
  // The mma kernels round P and dS to the storage type before the products read them (u_st of
  // each term's magnitude), and their dot products run on tensor cores (3u per term).
  const double mma_rel = mma ? su + 6.0 * double(p.d.head_dim + 64) * std::ldexp(1.0, -24) : 0.0;
  const Spec& s = p.s;
  int bad = 0;
  double worst = 0.0;
  auto one = [&](const char* what, float got, double want, double mag, int64_t b, int64_t h, int64_t r, int64_t c) {
    const double tol = 2.0 * (t.coef * mag + t.floor) * (1.0 + su) + su * std::fabs(want) + tiny + mma_rel * mag;
    const double err = std::fabs(double(got) - want);
    worst = std::max(worst, err / tol);
    if (!(err <= tol) && bad++ < 5)
      ADD_FAILURE() << s.name() << " " << type_name<T>() << " " << what << "(" << b << "," << h << "," << r << "," << c
                    << ") = " << got << ", reference " << want << ", tolerance " << tol;
  };
  std::vector<char> inq(gq.size(), 0), ink(gk.size(), 0), inv(gv.size(), 0);
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t h = 0; h < s.H; ++h)
      for (int64_t i = 0; i < s.Lq; ++i)
        for (int64_t c = 0; c < s.D; ++c) {
          const size_t at = size_t(p.w.q.at(b, h, i, c)), ri = ref::oidx(p.d, b, h, i, c);
          inq[at] = 1;
          one("dQ", dec<T>(gq[at]), p.rb.dQ[ri], p.rb.magdQ[ri], b, h, i, c);
        }
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t h = 0; h < s.HK; ++h)
      for (int64_t j = 0; j < s.Lk; ++j)
        for (int64_t c = 0; c < s.D; ++c) {
          const size_t ak = size_t(p.w.k.at(b, h, j, c)), av = size_t(p.w.v.at(b, h, j, c));
          const size_t ri = ref::kidx(p.d, b, h, j, c);
          ink[ak] = inv[av] = 1;
          one("dK", dec<T>(gk[ak]), p.rb.dK[ri], p.rb.magdK[ri], b, h, j, c);
          one("dV", dec<T>(gv[av]), p.rb.dV[ri], p.rb.magdV[ri], b, h, j, c);
        }
  const float sentinel = dec<T>(enc<T>(Problem<T>::kSentinel));
  int64_t outside = 0;
  for (size_t e = 0; e < gq.size(); ++e) outside += !inq[e] && dec<T>(gq[e]) != sentinel;
  for (size_t e = 0; e < gk.size(); ++e) outside += !ink[e] && dec<T>(gk[e]) != sentinel;
  for (size_t e = 0; e < gv.size(); ++e) outside += !inv[e] && dec<T>(gv[e]) != sentinel;
  EXPECT_EQ(outside, 0) << s.name() << ": storage outside the gradients' views written";
  EXPECT_EQ(bad, 0) << s.name() << " " << type_name<T>() << ": " << bad << " elements out of tolerance";
  std::printf("  %-44s %-5s %s worst error / tolerance %.3g\n", s.name().c_str(), type_name<T>(), mma ? "mma " : "    ",
              worst);
}

struct Handle {
  abft_handle_t h = nullptr;
  Handle() { abft_handle_create(&h); }
  ~Handle() {
    abft_cuda_release(h);
    abft_handle_destroy(h);
  }
};

std::string report_str(const abft_report& r) {
  std::ostringstream s;
  s << "checks " << r.checks << " detected " << r.detected << " corrected " << r.corrected << " uncorrectable "
    << r.uncorrectable << " skipped " << r.skipped;
  return s.str();
}

/** A clean call under CORRECT: no detection, the gradients against the reference (when
 *  `compare_ref`), and policy OFF bit for bit the same. */
template <class T>
void check_clean(const Spec& s, bool compare_ref, uint64_t seed, Engine eng = Engine::Simt) {
  const ProductEngine mode(eng);
  const Problem<T> p(s, seed);
  DeviceRun<T> dr(p);
  Handle h;
  const std::string what = std::string(engine_name(eng)) + s.name() + " " + type_name<T>();
  ASSERT_EQ(dr.run(h.h, ABFT_POLICY_CORRECT), ABFT_STATUS_SUCCESS) << what;
  abft_report r{};
  EXPECT_EQ(abft_cuda_sync(h.h, nullptr, &r), ABFT_STATUS_SUCCESS) << what;
  EXPECT_EQ(r.detected, 0u) << what << ": clean call flagged, " << report_str(r);
  EXPECT_EQ(r.uncorrectable, 0u) << what;
  EXPECT_GT(r.checks + r.skipped, 0u) << what;
  // The engine asked for ran (its own units: the mma kernels' blocks are of 64).
  EXPECT_EQ(r.checks + r.skipped, s.units<T>(eng)) << what << ": " << report_str(r);
  abft_counters cnt{};  // the call and its checks in the handle's statistics, under ATTN_BWD
  ASSERT_EQ(abft_stats_get(h.h, ABFT_KERNEL_ATTN_BWD, &cnt), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(cnt.calls, 1u);
  EXPECT_EQ(cnt.checks, r.checks);
  const std::vector<T> q = dr.gq(), k = dr.gk(), v = dr.gv();
  if (compare_ref) {
    EXPECT_EQ(r.skipped, 0u) << what << ": finite data skipped, " << report_str(r);
    compare(p, q, k, v, eng == Engine::Mma && s.mma_scope<T>());
  }
  ASSERT_EQ(dr.run(h.h, ABFT_POLICY_OFF), ABFT_STATUS_SUCCESS);
  abft_report off{};
  EXPECT_EQ(abft_cuda_sync(h.h, nullptr, &off), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(off.checks + off.detected + off.skipped, 0u) << "policy OFF counted checks";
  EXPECT_TRUE(same_bits(q, dr.gq())) << what << ": dQ differs under policy OFF";
  EXPECT_TRUE(same_bits(k, dr.gk())) << what << ": dK differs under policy OFF";
  EXPECT_TRUE(same_bits(v, dr.gv())) << what << ": dV differs under policy OFF";
}

std::vector<Spec> grid() {
  std::vector<Spec> g;
  Spec s;
  g.push_back(s);  // B1 H2 KV1 40x40 d64
  s = Spec{};
  s.B = 2, s.H = 4, s.HK = 2, s.Lq = 70, s.Lk = 70, s.D = 64, s.causal = 1;
  g.push_back(s);
  s = Spec{};
  s.Lq = 37, s.Lk = 100, s.D = 32, s.causal = 1;  // decoding against a longer KV cache
  g.push_back(s);
  s = Spec{};
  s.Lq = 100, s.Lk = 37, s.D = 128, s.causal = 1, s.H = 1;  // queries without an admissible key
  g.push_back(s);
  s = Spec{};
  s.B = 2, s.H = 2, s.HK = 1, s.Lq = 45, s.Lk = 66, s.D = 80, s.strided = true, s.mask = true;
  g.push_back(s);
  s = Spec{};
  s.Lq = 33, s.Lk = 65, s.D = 256, s.H = 2, s.HK = 2, s.causal = 1, s.mask = true;
  g.push_back(s);
  s = Spec{};
  s.Lq = 1, s.Lk = 129, s.D = 48, s.H = 8, s.HK = 1, s.causal = 1;  // one query, MQA
  g.push_back(s);
  return g;
}

TEST(CudaAttentionBackward, MatchesReferenceFloat) {
  REQUIRE_DEVICE();
  uint64_t seed = 100;
  for (const Spec& s : grid()) check_clean<float>(s, true, seed++);
}
TEST(CudaAttentionBackward, MatchesReferenceHalf) {
  REQUIRE_DEVICE();
  for (Engine eng : kEngines) {
    uint64_t seed = 200;
    for (const Spec& s : grid()) check_clean<__half>(s, true, seed++, eng);
  }
}
TEST(CudaAttentionBackward, MatchesReferenceBfloat16) {
  REQUIRE_DEVICE();
  for (Engine eng : kEngines) {
    uint64_t seed = 300;
    for (const Spec& s : grid()) check_clean<__nv_bfloat16>(s, true, seed++, eng);
  }
}

TEST(CudaAttentionBackward, NoFalsePositivesOnAdversarialData) {
  REQUIRE_DEVICE();
  uint64_t seed = 400;
  for (int data : {1, 2, 3})
    for (const Spec& base : {grid()[1], grid()[3], grid()[4], grid()[5]}) {
      Spec s = base;
      s.data = data;
      s.scale_mul = data == 2 ? 8.0f : data == 3 ? 30.0f : 1.0f;
      check_clean<float>(s, false, seed++);
      for (Engine eng : kEngines) {
        check_clean<__half>(s, false, seed, eng);
        check_clean<__nv_bfloat16>(s, false, seed + 1, eng);
      }
      seed += 2;
    }
}

TEST(CudaAttentionBackward, EmptySidesAreWrittenAsZeros) {
  REQUIRE_DEVICE();
  Handle h;
  for (int side = 0; side < 2; ++side) {
    abft_attention_desc d;
    abft_attention_desc_init(&d, 1, 2, 1, side == 0 ? 0 : 20, side == 0 ? 20 : 0, 64);
    // All-zero strides: the contiguous layouts (desc_init's strides of an empty side are zero
    // on its heads dimension, which the descriptor check rejects as INVALID_LD).
    std::memset(d.q_strides, 0, sizeof d.q_strides);
    std::memset(d.k_strides, 0, sizeof d.k_strides);
    std::memset(d.v_strides, 0, sizeof d.v_strides);
    std::memset(d.o_strides, 0, sizeof d.o_strides);
    const std::vector<float> junk(2 * 20 * 64, 7.0f);
    DeviceBuffer<float> Q(junk), K(junk), V(junk), O(junk), dO(junk), dQ(junk), dK(junk), dV(junk);
    DeviceBuffer<float> lse(std::vector<float>(40, 0.0f));
    ASSERT_EQ(abft_cuda_attention_backward(h.h, nullptr, ABFT_POLICY_CORRECT, &d, ABFT_CUDA_FLOAT, Q.p, K.p, V.p,
                                           nullptr, O.p, dO.p, lse.p, dQ.p, dK.p, dV.p),
              ABFT_STATUS_SUCCESS);
    abft_report r{};
    EXPECT_EQ(abft_cuda_sync(h.h, nullptr, &r), ABFT_STATUS_SUCCESS);
    EXPECT_EQ(r.detected, 0u);
    if (side == 0) {  // q_len 0: dK and dV of the KV head's 20 keys are zero
      for (float x : dK.get(20 * 64)) ASSERT_EQ(x, 0.0f);
      for (float x : dV.get(20 * 64)) ASSERT_EQ(x, 0.0f);
    } else {  // kv_len 0: dQ of both heads is zero
      for (float x : dQ.get(2 * 20 * 64)) ASSERT_EQ(x, 0.0f);
    }
  }
}

// ------------------------------------------------------------------ faults

/** Faults land at (b 0, head 1, query 40, key 9, column 7) of a causal GQA problem; DK/DV at key 9
 *  (row (b*heads + h)*kv_len + 9) after the query block holding query 40; DQ at query 40 after
 *  the key block holding key 9. */
/** One run of `dr` under `pol` with fault f planned on the handle: the call's and
 *  abft_cuda_sync's statuses, the report, and what landed (count: faults the injector kept). */
struct FaultRun {
  abft_status call = ABFT_STATUS_INTERNAL_ERROR, sync = ABFT_STATUS_INTERNAL_ERROR;
  abft_report rep{};
  abft_fault landed{};
  int count = 0;
};
template <class T>
FaultRun run_with_fault(DeviceRun<T>& dr, Handle& h, const abft_fault& f, abft_policy pol) {
  FaultRun fr;
  abft_injector_t inj = nullptr;
  if (abft_injector_create(5, &inj) != ABFT_STATUS_SUCCESS) return fr;
  if (abft_injector_add(inj, &f) == ABFT_STATUS_SUCCESS) {
    abft_handle_set_injector(h.h, inj);
    fr.call = dr.run(h.h, pol);
    fr.sync = abft_cuda_sync(h.h, nullptr, &fr.rep);
    abft_injector_last(inj, &fr.landed, 1, &fr.count);
    abft_handle_set_injector(h.h, nullptr);
  }
  abft_injector_destroy(inj);
  return fr;
}

template <class T>
void check_fault(abft_site site, abft_fault_model model, int bit, Engine eng = Engine::Simt) {
  const ProductEngine mode(eng);
  Spec s;
  s.B = 1, s.H = 2, s.HK = 1, s.Lq = 50, s.Lk = 70, s.D = 64, s.causal = 1;
  const Problem<T> p(s, 77);
  DeviceRun<T> dr(p);
  Handle h;
  ASSERT_EQ(dr.run(h.h, ABFT_POLICY_CORRECT), ABFT_STATUS_SUCCESS);
  abft_report clean{};
  ASSERT_EQ(abft_cuda_sync(h.h, nullptr, &clean), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(clean.checks + clean.skipped, s.units<T>(eng)) << engine_name(eng) << report_str(clean);
  const std::vector<T> q0 = dr.gq(), k0 = dr.gk(), v0 = dr.gv();

  const int64_t bh = 1, i = 40, j = 9, c = 7;
  abft_fault f{};
  f.site = site, f.model = model, f.bit = bit;
  const bool key_rows = site == ABFT_SITE_ATTN_DK || site == ABFT_SITE_ATTN_DV;
  const bool col_is_key = site == ABFT_SITE_ATTN_SCORES || site == ABFT_SITE_ATTN_PROBS ||
                          site == ABFT_SITE_ATTN_DP || site == ABFT_SITE_ATTN_DS;
  f.row = key_rows ? bh * s.Lk + j : bh * s.Lq + i;
  f.col = col_is_key ? j : c;
  f.kpos = key_rows ? i : j;
  const std::string what = std::string(engine_name(eng)) + type_name<T>() + " site " + std::to_string(int(site)) +
                           " model " + std::to_string(int(model)) + " bit " + std::to_string(bit);
  for (abft_policy pol : {ABFT_POLICY_CORRECT, ABFT_POLICY_DETECT}) {
    const FaultRun fr = run_with_fault(dr, h, f, pol);
    ASSERT_EQ(fr.call, ABFT_STATUS_SUCCESS) << what;
    const abft_report& r = fr.rep;
    const abft_status ss = fr.sync;
    ASSERT_EQ(fr.count, 1) << what;
    EXPECT_EQ(fr.landed.applied, 1) << what;
    EXPECT_GE(r.detected, 1u) << what << ": " << report_str(r);
    EXPECT_EQ(r.uncorrectable, 0u) << what;
    if (pol == ABFT_POLICY_CORRECT) {
      EXPECT_EQ(ss, ABFT_STATUS_SUCCESS) << what;
      EXPECT_EQ(r.corrected, r.detected) << what << ": " << report_str(r);
      // The repair reruns the same arithmetic: the clean run's gradients, bit for bit.
      EXPECT_TRUE(same_bits(q0, dr.gq())) << what << ": dQ not repaired";
      EXPECT_TRUE(same_bits(k0, dr.gk())) << what << ": dK not repaired";
      EXPECT_TRUE(same_bits(v0, dr.gv())) << what << ": dV not repaired";
    } else {
      EXPECT_EQ(ss, ABFT_STATUS_FAULT_DETECTED) << what;
      EXPECT_EQ(r.corrected, 0u) << what;
    }
  }
}

TEST(CudaAttentionBackward, FaultsAtEverySiteAreDetectedAndRepaired) {
  REQUIRE_DEVICE();
  for (abft_site site : {ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS, ABFT_SITE_ATTN_DP, ABFT_SITE_ATTN_DS,
                         ABFT_SITE_ATTN_DQ, ABFT_SITE_ATTN_DK, ABFT_SITE_ATTN_DV}) {
    check_fault<float>(site, ABFT_FAULT_NAN, 0);
    check_fault<float>(site, ABFT_FAULT_BITFLIP, 30);
    check_fault<float>(site, ABFT_FAULT_POS_INF, 0);
    for (Engine eng : kEngines) {
      check_fault<__half>(site, ABFT_FAULT_BITFLIP, 30, eng);
      check_fault<__nv_bfloat16>(site, ABFT_FAULT_NAN, 0, eng);
    }
  }
}

/** What only the mma.sync kernels (ABFT_CUDA_ATTN_TC=mma) have: S and dP checks over groups of
 *  512 rows and their records (the dK/dV kernel's causal sweeps start inside a query group: the
 *  group's suffix records; the dQ kernel's stop inside a key group: prefixes), on long causal
 *  rows with q_len < kv_len under GQA; the checksum columns in the storage type, binary16's
 *  scaled by 2^-8 (|dO| ~ 2000: sum_c |dO_ic| is past binary16's range unscaled); the ones
 *  columns against the float sums of P and dS. The clean runs match the reference without a
 *  detection; a fault at every backward site, in a later group of both sides, is detected and
 *  repaired to the clean run's bits. */
TEST(CudaAttentionBackward, MmaKernelsLongCausalRowsAndScaledColumns) {
  REQUIRE_DEVICE();
  const ProductEngine mode(Engine::Mma);
  Spec s;
  s.B = 1, s.H = 2, s.HK = 1, s.Lq = 700, s.Lk = 1200, s.D = 64, s.causal = 1;
  struct Site {
    abft_site site;
    int64_t row, col, kpos;
  };
  // Head instance 1; query 600 (block 9, the second query group) sees keys up to 1100; key 1050
  // (block 16, the third key group) is swept by query blocks 8..10 only.
  const Site sites[] = {
      {ABFT_SITE_ATTN_SCORES, 1 * 700 + 600, 1050, 0}, {ABFT_SITE_ATTN_PROBS, 1 * 700 + 600, 1050, 0},
      {ABFT_SITE_ATTN_DP, 1 * 700 + 600, 1050, 0},     {ABFT_SITE_ATTN_DS, 1 * 700 + 600, 1050, 0},
      {ABFT_SITE_ATTN_DQ, 1 * 700 + 600, 37, 700},     {ABFT_SITE_ATTN_DK, 1 * 1200 + 1050, 37, 560},
      {ABFT_SITE_ATTN_DV, 1 * 1200 + 300, 5, 100},
  };
  auto run_type = [&](auto tag, float do_scale, uint64_t seed) {
    using T = decltype(tag);
    Spec sp = s;
    sp.do_scale = do_scale;
    const Problem<T> p(sp, seed);
    DeviceRun<T> dr(p);
    Handle h;
    const std::string what = std::string(type_name<T>()) + " |dO| x " + std::to_string(do_scale);
    ASSERT_EQ(dr.run(h.h, ABFT_POLICY_CORRECT), ABFT_STATUS_SUCCESS) << what;
    abft_report r{};
    ASSERT_EQ(abft_cuda_sync(h.h, nullptr, &r), ABFT_STATUS_SUCCESS) << what;
    EXPECT_EQ(r.detected, 0u) << what << ": " << report_str(r);
    EXPECT_EQ(r.skipped, 0u) << what << ": " << report_str(r);
    EXPECT_EQ(r.checks, sp.units<T>(Engine::Mma)) << what << ": " << report_str(r);
    const std::vector<T> q0 = dr.gq(), k0 = dr.gk(), v0 = dr.gv();
    compare(p, q0, k0, v0, true);
    for (const Site& x : sites) {
      const std::string w = what + " site " + std::to_string(int(x.site));
      abft_fault f{};
      f.site = x.site, f.model = ABFT_FAULT_BITFLIP, f.bit = 30, f.row = x.row, f.col = x.col, f.kpos = x.kpos;
      const FaultRun fr = run_with_fault(dr, h, f, ABFT_POLICY_CORRECT);
      ASSERT_EQ(fr.call, ABFT_STATUS_SUCCESS) << w;
      const abft_report& rf = fr.rep;
      const abft_status ss = fr.sync;
      ASSERT_EQ(fr.count, 1) << w;
      EXPECT_EQ(fr.landed.applied, 1) << w;
      EXPECT_EQ(ss, ABFT_STATUS_SUCCESS) << w;
      EXPECT_GE(rf.detected, 1u) << w << ": " << report_str(rf);
      EXPECT_EQ(rf.corrected, rf.detected) << w << ": " << report_str(rf);
      EXPECT_EQ(rf.uncorrectable, 0u) << w;
      EXPECT_TRUE(same_bits(q0, dr.gq())) << w << ": dQ not repaired";
      EXPECT_TRUE(same_bits(k0, dr.gk())) << w << ": dK not repaired";
      EXPECT_TRUE(same_bits(v0, dr.gv())) << w << ": dV not repaired";
    }
  };
  run_type(__half{}, 2000.0f, 41);
  run_type(__nv_bfloat16{}, 1.0f, 42);
}

/** The pre-pass's key-block records (attention_key_sums.cu) stand in for the sums both kernels
 *  form from their tiles, bit for bit: the same counts with and without them on every shape of
 *  the grid (causal sweeps that stop inside a key block, GQA, MQA, strides, masks), and the same
 *  gradients. */
template <class T>
void check_records(const Spec& s, uint64_t seed, Engine eng = Engine::Simt) {
  const ProductEngine mode(eng);
  const Problem<T> p(s, seed);
  DeviceRun<T> dr(p);
  Handle h;
  abft_report with{}, without{};
  std::vector<T> q, k, v;
  {
    const abft_test::KeySumRecords on(true);
    ASSERT_EQ(dr.run(h.h, ABFT_POLICY_CORRECT), ABFT_STATUS_SUCCESS) << s.name();
    EXPECT_EQ(abft_cuda_sync(h.h, nullptr, &with), ABFT_STATUS_SUCCESS) << s.name();
    q = dr.gq(), k = dr.gk(), v = dr.gv();
  }
  {
    const abft_test::KeySumRecords off(false);
    ASSERT_EQ(dr.run(h.h, ABFT_POLICY_CORRECT), ABFT_STATUS_SUCCESS) << s.name();
    EXPECT_EQ(abft_cuda_sync(h.h, nullptr, &without), ABFT_STATUS_SUCCESS) << s.name();
  }
  const std::string what = std::string(engine_name(eng)) + s.name() + " " + type_name<T>();
  EXPECT_EQ(with.detected, 0u) << what << ": " << report_str(with);
  EXPECT_EQ(without.detected, 0u) << what << ": " << report_str(without);
  EXPECT_EQ(with.checks, without.checks) << what;
  EXPECT_EQ(with.skipped, without.skipped) << what;
  EXPECT_TRUE(same_bits(q, dr.gq())) << what << ": dQ";
  EXPECT_TRUE(same_bits(k, dr.gk())) << what << ": dK";
  EXPECT_TRUE(same_bits(v, dr.gv())) << what << ": dV";
}

TEST(CudaAttentionBackward, KeySumRecordsGiveTheSameVerdicts) {
  REQUIRE_DEVICE();
  uint64_t seed = 500;
  for (const Spec& s : grid()) {
    check_records<float>(s, seed);
    for (Engine eng : kEngines) check_records<__nv_bfloat16>(s, seed + 1, eng);
    seed += 2;
  }
}

/** Non-finite data in one head (dO, K, or the forward's lse: NaN or +inf) skips the units that
 *  read it, never corrects them: float on the SIMT kernels, binary16 on both engines. */
template <class T>
void check_non_finite(Engine eng, int what) {
  const ProductEngine mode(eng);
  Spec s;
  s.Lq = 40, s.Lk = 40, s.D = 64;
  Problem<T> p(s, 9);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (what == 0) p.dO[size_t(p.w.o.at(0, 1, 5, 3))] = nan;
  else if (what == 1) p.K[size_t(p.w.k.at(0, 0, 7, 3))] = nan;
  else p.lse[size_t(ref::lidx(p.d, 0, 1, 5))] = what == 2 ? nan : kInf;
  DeviceRun<T> dr(p);
  Handle h;
  ASSERT_EQ(dr.run(h.h, ABFT_POLICY_CORRECT), ABFT_STATUS_SUCCESS);
  abft_report r{};
  EXPECT_EQ(abft_cuda_sync(h.h, nullptr, &r), ABFT_STATUS_SUCCESS);
  const std::string w = std::string(engine_name(eng)) + type_name<T>() + " case " + std::to_string(what) + ": ";
  EXPECT_GE(r.skipped, 1u) << w << report_str(r);
  EXPECT_EQ(r.corrected, 0u) << w << report_str(r);
  EXPECT_EQ(r.uncorrectable, 0u) << w << report_str(r);
  EXPECT_EQ(r.detected, 0u) << w << report_str(r);
  EXPECT_EQ(r.checks + r.skipped, s.units<T>(eng)) << w << report_str(r);
}

TEST(CudaAttentionBackward, NonFiniteInputsAreSkippedNotCorrected) {
  REQUIRE_DEVICE();
  check_non_finite<float>(Engine::Simt, 0);
  for (Engine eng : kEngines)
    for (int what = 0; what < 4; ++what) check_non_finite<__half>(eng, what);
}

}  // namespace
