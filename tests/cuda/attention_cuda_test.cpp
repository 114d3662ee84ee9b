/** \file attention_cuda_test.cpp
 *  \brief The protected attention forward on device memory (abft_cuda_attention_forward,
 *  cuda/attention_forward.cu).
 *
 *  Argument checks run everywhere (they return before the device is touched; a valid call on a
 *  machine without a GPU is NOT_SUPPORTED, said cleanly). Everything else needs a CUDA device and
 *  skips with the reason without one: results against the double-precision reference
 *  (abft/checksum/attention_reference.hpp) for float, binary16 and bfloat16 storage, causal and
 *  not, GQA / MQA, q_len != kv_len, head_dim 40..256, a BSHD layout and a mask; zero detections
 *  on adversarial clean data; a fault at every forward site detected on the device, repaired to
 *  the clean run's bits under CORRECT and only counted under DETECT.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/abft_cuda.h"
#include "abft/attention.h"
#include "abft/checksum/attention_reference.hpp"
#include "cuda_test_util.hpp"

namespace {

namespace ref = abft::checksum::attn_ref;
using abft_test::DeviceBuffer;

TEST(CudaAttentionArgs, BadArgumentsAreRejectedBeforeTheDevice) {
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  abft_attention_desc d{};
  ASSERT_EQ(abft_attention_desc_init(&d, 1, 4, 2, 16, 16, 64), ABFT_STATUS_SUCCESS);
  float dummy[4] = {};
  void* p = dummy;  // never dereferenced: every call below is rejected first
  const auto F = ABFT_CUDA_FLOAT;
  const auto C = ABFT_POLICY_CORRECT;
  EXPECT_EQ(abft_cuda_attention_forward(nullptr, nullptr, C, &d, F, p, p, p, nullptr, p, nullptr),
            ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, nullptr, F, p, p, p, nullptr, p, nullptr),
            ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, abft_policy(9), &d, F, p, p, p, nullptr, p, nullptr),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, &d, abft_cuda_dtype(7), p, p, p, nullptr, p, nullptr),
            ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, &d, F, nullptr, p, p, nullptr, p, nullptr),
            ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, &d, F, p, nullptr, p, nullptr, p, nullptr),
            ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, &d, F, p, p, p, nullptr, nullptr, nullptr),
            ABFT_STATUS_NULL_POINTER);
  abft_attention_desc e = d;
  e.causal = 2;
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, &e, F, p, p, p, nullptr, p, nullptr),
            ABFT_STATUS_INVALID_VALUE);
  e = d;
  e.scale = NAN;
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, &e, F, p, p, p, nullptr, p, nullptr),
            ABFT_STATUS_INVALID_VALUE);
  e = d;
  e.head_dim = ABFT_ATTENTION_MAX_HEAD_DIM + 1;
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, &e, F, p, p, p, nullptr, p, nullptr),
            ABFT_STATUS_INVALID_SIZE);
  e = d;
  e.kv_heads = 3;  // 4 heads are not a multiple of 3
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, &e, F, p, p, p, nullptr, p, nullptr),
            ABFT_STATUS_INVALID_SIZE);
  e = d;
  e.q_len = -1;
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, &e, F, p, p, p, nullptr, p, nullptr),
            ABFT_STATUS_INVALID_SIZE);
  e = d;
  e.q_strides[0] = 1, e.q_strides[1] = 0, e.q_strides[2] = 64, e.q_strides[3] = 1;  // heads alias
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, &e, F, p, p, p, nullptr, p, nullptr),
            ABFT_STATUS_INVALID_LD);
  // Empty problems succeed without touching anything.
  e = d;
  e.q_len = 0;
  EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, &e, F, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
            ABFT_STATUS_SUCCESS);
  // A valid call: NOT_SUPPORTED without a device (said cleanly); runs with one (tested below).
  if (abft_cuda_device_count() < 1)
    EXPECT_EQ(abft_cuda_attention_forward(h, nullptr, C, &d, F, p, p, p, nullptr, p, nullptr),
              ABFT_STATUS_NOT_SUPPORTED);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

// ------------------------------------------------------------------ device problems

/** Host value <-> storage bits of each dtype. */
uint16_t to_bits(float x, abft_cuda_dtype t) {
  if (t == ABFT_CUDA_HALF) {
    const __half y = __float2half_rn(x);
    uint16_t b;
    std::memcpy(&b, &y, 2);
    return b;
  }
  const __nv_bfloat16 y = __float2bfloat16_rn(x);
  uint16_t b;
  std::memcpy(&b, &y, 2);
  return b;
}
float from_bits(uint16_t b, abft_cuda_dtype t) {
  if (t == ABFT_CUDA_HALF) {
    __half y;
    std::memcpy(&y, &b, 2);
    return __half2float(y);
  }
  __nv_bfloat16 y;
  std::memcpy(&y, &b, 2);
  return __bfloat162float(y);
}
/** x rounded to the storage type (what the device will read). */
float stored(float x, abft_cuda_dtype t) { return t == ABFT_CUDA_FLOAT ? x : from_bits(to_bits(x, t), t); }
double unit_of(abft_cuda_dtype t) {
  return t == ABFT_CUDA_FLOAT ? std::ldexp(1.0, -24) : t == ABFT_CUDA_HALF ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
}
size_t esize(abft_cuda_dtype t) { return t == ABFT_CUDA_FLOAT ? 4 : 2; }

/** A device tensor of `n` elements of dtype t, from host floats (already representable). */
struct DevTensor {
  void* p = nullptr;
  size_t n = 0;
  abft_cuda_dtype t;
  DevTensor(const std::vector<float>& h, abft_cuda_dtype type) : n(h.size()), t(type) {
    if (cudaMalloc(&p, std::max<size_t>(n, 1) * esize(t)) != cudaSuccess) p = nullptr;
    if (!p || n == 0) return;
    if (t == ABFT_CUDA_FLOAT) {
      cudaMemcpy(p, h.data(), n * 4, cudaMemcpyHostToDevice);
    } else {
      std::vector<uint16_t> b(n);
      for (size_t i = 0; i < n; ++i) b[i] = to_bits(h[i], t);
      cudaMemcpy(p, b.data(), n * 2, cudaMemcpyHostToDevice);
    }
  }
  ~DevTensor() { cudaFree(p); }
  DevTensor(const DevTensor&) = delete;
  DevTensor& operator=(const DevTensor&) = delete;
  std::vector<float> get() const {
    std::vector<float> h(n);
    if (t == ABFT_CUDA_FLOAT) {
      cudaMemcpy(h.data(), p, n * 4, cudaMemcpyDeviceToHost);
    } else {
      std::vector<uint16_t> b(n);
      cudaMemcpy(b.data(), p, n * 2, cudaMemcpyDeviceToHost);
      for (size_t i = 0; i < n; ++i) h[i] = from_bits(b[i], t);
    }
    return h;
  }
};

enum class Data { Uniform, Wide, Ties, Offset };

/** One forward problem: inputs (rounded to the storage type), the reference. */
struct Case {
  abft_attention_desc d{};
  abft_cuda_dtype t = ABFT_CUDA_FLOAT;
  bool bshd = false, use_mask = false;
  std::vector<float> Q, K, V, mask;
  size_t nO = 0;
  int64_t qoff = 0, ooff = 0;  ///< element [0,0,0,0] of Q and O in their buffers (negative strides)

  /** Q and O with the sequence reversed in storage (negative seq stride, as the CPU API allows). */
  Case& reverse_sequence() {
    const int64_t H = d.heads, Lq = d.q_len, D = d.head_dim;
    const int64_t st[4] = {H * Lq * D, Lq * D, -D, 1};
    std::copy(st, st + 4, d.q_strides);
    std::copy(st, st + 4, d.o_strides);
    qoff = ooff = (Lq - 1) * D;
    bshd = false;
    return *this;
  }

  Case(abft_cuda_dtype type, int64_t B, int64_t H, int64_t HK, int64_t Lq, int64_t Lk, int64_t D, bool causal,
       bool bshd_layout, bool with_mask, Data data, uint64_t seed, bool broadcast_mask = false)
      : t(type), bshd(bshd_layout), use_mask(with_mask) {
    abft_attention_desc_init(&d, B, H, HK, Lq, Lk, D);
    d.causal = causal ? 1 : 0;
    if (bshd) {  // [batch, seq, heads, dim] storage for Q, K, V and O
      const int64_t qs[4] = {Lq * H * D, D, H * D, 1}, ks[4] = {Lk * HK * D, D, HK * D, 1};
      std::copy(qs, qs + 4, d.q_strides);
      std::copy(qs, qs + 4, d.o_strides);
      std::copy(ks, ks + 4, d.k_strides);
      std::copy(ks, ks + 4, d.v_strides);
    }
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f), ex(-3.f, 3.f);
    auto draw = [&](float base) {
      switch (data) {
        case Data::Uniform: return u(g);
        case Data::Wide: return (u(g) < 0 ? -1.f : 1.f) * std::exp(ex(g));  // magnitudes e^-3 .. e^3
        case Data::Ties: return std::round(u(g) * 2.f) / 2.f;                 // many equal scores
        case Data::Offset: return base + 0.01f * u(g);                        // cancellation in sum O
      }
      return 0.f;
    };
    Q.resize(size_t(B * H * Lq * D));
    K.resize(size_t(B * HK * Lk * D));
    V.resize(K.size());
    for (float& x : Q) x = stored(draw(0.5f) * (data == Data::Wide ? 2.f : 1.f), t);
    for (float& x : K) x = stored(draw(0.5f), t);
    for (float& x : V) x = stored(draw(100.f), t);
    if (use_mask && broadcast_mask) {  // one [kv_len] row for every query (zero strides)
      mask.resize(size_t(Lk));
      d.mask_strides[0] = d.mask_strides[1] = d.mask_strides[2] = 0;
      d.mask_strides[3] = 1;
      for (size_t j = 0; j < mask.size(); ++j) mask[j] = j % 5 == 1 ? -INFINITY : stored(0.5f * u(g), t);
    } else if (use_mask) {  // [batch, heads, q_len, kv_len]: a padding mask and an additive bias
      mask.resize(size_t(B * H * Lq * Lk));
      for (size_t i = 0; i < mask.size(); ++i)
        mask[i] = (i % size_t(Lk)) % 7 == 3 ? -INFINITY : stored(0.25f * u(g), t);
    }
    nO = size_t(B * H * Lq * D);
  }

  /** The tensors as the engine reads them (reference input, in the descriptor's layout). */
  ref::Forward reference() const {
    return ref::forward<float>(d, Q.data() + qoff, K.data(), V.data(), use_mask ? mask.data() : nullptr);
  }
  /** O from storage (descriptor layout) to the reference's contiguous order. */
  std::vector<double> contiguous(const std::vector<float>& O) const {
    std::vector<double> r(nO);
    for (int64_t b = 0; b < d.batch; ++b)
      for (int64_t h = 0; h < d.heads; ++h)
        for (int64_t i = 0; i < d.q_len; ++i)
          for (int64_t c = 0; c < d.head_dim; ++c)
            r[ref::oidx(d, b, h, i, c)] =
                O[size_t(ooff + b * d.o_strides[0] + h * d.o_strides[1] + i * d.o_strides[2] + c * d.o_strides[3])];
    return r;
  }
};

/** Run the forward on the device; O, lse and the report after abft_cuda_sync. */
struct Outcome {
  std::vector<float> O, lse;
  abft_report rep{};
  abft_status call = ABFT_STATUS_INTERNAL_ERROR, sync = ABFT_STATUS_INTERNAL_ERROR;
};
Outcome run(const Case& c, abft_handle_t h, abft_policy pol) {
  DevTensor Q(c.Q, c.t), K(c.K, c.t), V(c.V, c.t), M(c.mask, c.t);
  DevTensor O(std::vector<float>(c.nO, -7.0f), c.t);
  DeviceBuffer<float> lse(std::vector<float>(size_t(c.d.batch * c.d.heads * c.d.q_len), 0.f));
  Outcome r;
  void* q0 = static_cast<char*>(Q.p) + c.qoff * int64_t(esize(c.t));
  void* o0 = static_cast<char*>(O.p) + c.ooff * int64_t(esize(c.t));
  r.call = abft_cuda_attention_forward(h, nullptr, pol, &c.d, c.t, q0, K.p, V.p, c.use_mask ? M.p : nullptr, o0,
                                       lse.p);
  r.sync = abft_cuda_sync(h, nullptr, &r.rep);
  r.O = O.get();
  r.lse = lse.get(size_t(c.d.batch * c.d.heads * c.d.q_len));
  return r;
}

/** O and lse within the reference's float tolerance plus the storage rounding of O; with tensor
 *  cores (tc), plus the rounding of the probabilities to the storage type (ABFT.md §13.2): up to
 *  u_st of O's magnitude sum through the numerator and again through the normalizer, u_st of lse. */
void expect_close(const Case& c, const Outcome& r, const std::string& what, bool tc = false) {
  const ref::Forward f = c.reference();
  const ref::Tol tol = ref::tolerance(c.d, f.qk_mag, f.s_max_abs, f.lse_max_abs, 1.0 + ref::max_abs(f.O));
  const std::vector<double> got = c.contiguous(r.O);
  const double us = c.t == ABFT_CUDA_FLOAT ? 0.0 : unit_of(c.t);
  int bad = 0;
  for (size_t i = 0; i < c.nO && bad < 5; ++i) {
    const double lim = tol.coef * f.magO[i] + tol.floor + us * std::fabs(f.O[i]) * 1.01 + 1e-30 +
                       (tc ? 2.02 * us * f.magO[i] : 0.0);
    if (!(std::fabs(got[i] - f.O[i]) <= lim)) {
      ADD_FAILURE() << what << ": O[" << i << "] = " << got[i] << ", reference " << f.O[i] << ", allowed " << lim;
      ++bad;
    }
  }
  for (size_t i = 0; i < f.lse.size() && bad < 10; ++i) {
    const double e = f.lse[i];
    if (std::isinf(e)) {
      if (!(std::isinf(r.lse[i]) && r.lse[i] < 0)) ADD_FAILURE() << what << ": lse[" << i << "] should be -inf";
      continue;
    }
    if (!(std::fabs(double(r.lse[i]) - e) <= 1e-5 * (1.0 + std::fabs(e)) + tol.coef * 4.0 + (tc ? 2.0 * us : 0.0))) {
      ADD_FAILURE() << what << ": lse[" << i << "] = " << r.lse[i] << ", reference " << e;
      ++bad;
    }
  }
}

/** The forward's product engines: SIMT everywhere (ABFT_CUDA_ATTN_TC unset), WMMA tensor cores
 *  ("1": 16-bit storage at head_dim buckets 64 and 128), the mma.sync kernel ("mma": 16-bit
 *  storage at buckets 64 and 128 without a mask; attention_forward_mma.cu). */
enum class Engine { Simt, Wmma, Mma };
constexpr Engine kEngines[] = {Engine::Simt, Engine::Wmma, Engine::Mma};
/** The engine for a scope. */
struct ProductEngine : abft_test::ScopedEnv {
  explicit ProductEngine(Engine e)
      : abft_test::ScopedEnv("ABFT_CUDA_ATTN_TC", e == Engine::Wmma ? "1" : e == Engine::Mma ? "mma" : nullptr) {}
};
const char* engine_name(Engine e) { return e == Engine::Wmma ? "tensor cores " : e == Engine::Mma ? "mma " : ""; }

const char* dtype_name(abft_cuda_dtype t) {
  return t == ABFT_CUDA_FLOAT ? "float" : t == ABFT_CUDA_HALF ? "half" : "bf16";
}

TEST(CudaAttention, MatchesTheReferenceWithoutDetections) {
  REQUIRE_DEVICE();
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  struct Shape {
    int64_t B, H, HK, Lq, Lk, D;
    bool causal, bshd, mask;
  };
  const Shape shapes[] = {
      {1, 2, 2, 64, 64, 64, false, false, false},   {2, 4, 2, 77, 77, 64, true, false, false},
      {1, 4, 1, 33, 130, 128, true, true, false},   {1, 2, 2, 1, 200, 128, true, false, false},
      {1, 3, 3, 50, 20, 40, true, false, false},    {2, 2, 1, 45, 97, 256, false, true, true},
      {1, 8, 2, 128, 128, 128, false, false, true}, {1, 1, 1, 5, 0, 32, false, false, false},
      {1, 2, 1, 70, 90, 32, true, false, false},    {1, 2, 2, 40, 2100, 64, false, false, false},
      {1, 1, 1, 33, 1500, 256, true, false, false},
  };
  for (Engine eng : kEngines)
  for (abft_cuda_dtype t : {ABFT_CUDA_FLOAT, ABFT_CUDA_HALF, ABFT_CUDA_BFLOAT16})
    for (const Shape& s : shapes) {
      if (eng != Engine::Simt && t == ABFT_CUDA_FLOAT) continue;  // the tensor-core paths are 16-bit only
      const ProductEngine mode(eng);
      const bool tc = eng != Engine::Simt;
      const Case c(t, s.B, s.H, s.HK, s.Lq, s.Lk, s.D, s.causal, s.bshd, s.mask, Data::Uniform, 7);
      const std::string what = std::string(engine_name(eng)) + dtype_name(t) + " B" + std::to_string(s.B) + " H" +
                               std::to_string(s.H) + "/" + std::to_string(s.HK) + " Lq" + std::to_string(s.Lq) +
                               " Lk" + std::to_string(s.Lk) + " D" + std::to_string(s.D) +
                               (s.causal ? " causal" : "") + (s.bshd ? " bshd" : "") + (s.mask ? " mask" : "");
      for (abft_policy pol : {ABFT_POLICY_CORRECT, ABFT_POLICY_OFF}) {
        const Outcome r = run(c, h, pol);
        ASSERT_EQ(r.call, ABFT_STATUS_SUCCESS) << what;
        ASSERT_EQ(r.sync, ABFT_STATUS_SUCCESS) << what;
        EXPECT_EQ(r.rep.detected, 0u) << what;
        if (pol == ABFT_POLICY_CORRECT) EXPECT_GT(r.rep.checks, 0u) << what;
        else EXPECT_EQ(r.rep.checks, 0u) << what;
        expect_close(c, r, what + (pol == ABFT_POLICY_OFF ? " (off)" : ""), tc);
        // The tensor-core path really ran where it exists: its rounded probabilities give other
        // bits than the SIMT path.
        if (tc && pol == ABFT_POLICY_CORRECT && s.Lk >= 32 && (s.D == 64 || s.D == 128) &&
            !(eng == Engine::Mma && s.mask)) {
          const ProductEngine simt(Engine::Simt);
          const Outcome rs = run(c, h, ABFT_POLICY_CORRECT);
          EXPECT_NE(0, std::memcmp(rs.O.data(), r.O.data(), r.O.size() * sizeof(float))) << what;
        }
      }
    }
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

TEST(CudaAttention, NegativeStridesAndABroadcastMask) {
  REQUIRE_DEVICE();
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  for (abft_cuda_dtype t : {ABFT_CUDA_FLOAT, ABFT_CUDA_HALF}) {
    Case rev(t, 2, 4, 2, 45, 70, 64, true, false, false, Data::Uniform, 11);
    rev.reverse_sequence();
    const Case bm(t, 2, 4, 2, 45, 70, 64, false, false, true, Data::Uniform, 12, /*broadcast_mask=*/true);
    for (const Case* c : {static_cast<const Case*>(&rev), &bm}) {
      const std::string what = std::string(dtype_name(t)) + (c == &rev ? " reversed sequence" : " broadcast mask");
      const Outcome r = run(*c, h, ABFT_POLICY_CORRECT);
      ASSERT_EQ(r.call, ABFT_STATUS_SUCCESS) << what;
      EXPECT_EQ(r.sync, ABFT_STATUS_SUCCESS) << what;
      EXPECT_EQ(r.rep.detected, 0u) << what;
      expect_close(*c, r, what);
    }
  }
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

TEST(CudaAttention, NoFalsePositivesOnAdversarialData) {
  REQUIRE_DEVICE();
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  uint64_t seed = 100;
  for (Engine eng : kEngines)
  for (abft_cuda_dtype t : {ABFT_CUDA_FLOAT, ABFT_CUDA_HALF, ABFT_CUDA_BFLOAT16})
    for (Data data : {Data::Wide, Data::Ties, Data::Offset})
      for (int64_t D : {64, 128})
        for (bool causal : {false, true}) {
          if (eng != Engine::Simt && t == ABFT_CUDA_FLOAT) continue;
          const ProductEngine mode(eng);
          const Case c(t, 2, 4, 2, 150, 190, D, causal, false, data == Data::Ties, data, ++seed);
          const Outcome r = run(c, h, ABFT_POLICY_CORRECT);
          ASSERT_EQ(r.call, ABFT_STATUS_SUCCESS);
          ASSERT_EQ(r.sync, ABFT_STATUS_SUCCESS);
          EXPECT_EQ(r.rep.detected, 0u) << dtype_name(t) << " data " << int(data) << " D" << D
                                        << (causal ? " causal" : "");
          EXPECT_GT(r.rep.checks, 0u);
        }
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

/** One fault at `site`; returns the run and the landed fault. */
Outcome run_fault(const Case& c, abft_policy pol, abft_site site, abft_fault_model model, int bit, int64_t row,
              int64_t col, int64_t kpos, abft_fault* landed) {
  abft_handle_t h = nullptr;
  abft_injector_t inj = nullptr;
  abft_handle_create(&h);
  abft_injector_create(5, &inj);
  abft_fault f{};
  f.site = site, f.model = model, f.bit = bit, f.row = row, f.col = col, f.kpos = kpos;
  abft_injector_add(inj, &f);
  abft_handle_set_injector(h, inj);
  Outcome r = run(c, h, pol);
  int count = 0;
  *landed = abft_fault{};
  abft_injector_last(inj, landed, 1, &count);
  abft_handle_set_injector(h, nullptr);
  abft_injector_destroy(inj);
  abft_cuda_release(h);
  abft_handle_destroy(h);
  return r;
}

TEST(CudaAttention, InjectedFaultsAreDetectedAndRepairedOnTheDevice) {
  REQUIRE_DEVICE();
  struct Site {
    abft_site site;
    int64_t col, kpos;
  };
  // Query row 37 of head instance 1 (row = 1 * q_len + 37); key 70 is in the third key block.
  const Site sites[] = {
      {ABFT_SITE_ATTN_SCORES, 70, 0}, {ABFT_SITE_ATTN_PROBS, 70, 0}, {ABFT_SITE_ATTN_ROWSTAT, 0, 70},
      {ABFT_SITE_ATTN_ROWSTAT, 1, 70}, {ABFT_SITE_ATTN_ACC, 5, 70},  {ABFT_SITE_OUTPUT, 5, 0},
      {ABFT_SITE_PACKED_A, 0, 9},
  };
  for (Engine eng : kEngines)
  for (abft_cuda_dtype t : {ABFT_CUDA_FLOAT, ABFT_CUDA_BFLOAT16}) {
    if (eng != Engine::Simt && t == ABFT_CUDA_FLOAT) continue;
    const ProductEngine mode(eng);
    const Case c(t, 1, 2, 1, 100, 120, 64, false, false, false, Data::Uniform, 3);
    abft_handle_t h = nullptr;
    ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
    const Outcome clean = run(c, h, ABFT_POLICY_CORRECT);
    abft_cuda_release(h);
    abft_handle_destroy(h);
    ASSERT_EQ(clean.rep.detected, 0u);
    for (const Site& s : sites)
      for (abft_fault_model model : {ABFT_FAULT_BITFLIP, ABFT_FAULT_NAN}) {
        // An exponent bit: 30 of a float value; of a 16-bit stored output, its top exponent bit.
        const int bit = (s.site == ABFT_SITE_OUTPUT && t != ABFT_CUDA_FLOAT) ? 14 : 30;
        const std::string what = std::string(engine_name(eng)) + dtype_name(t) + " site " + std::to_string(int(s.site)) + " col " +
                                 std::to_string(s.col) + " model " + std::to_string(int(model));
        abft_fault landed{};
        const Outcome r = run_fault(c, ABFT_POLICY_CORRECT, s.site, model, bit, 100 + 37, s.col, s.kpos, &landed);
        ASSERT_EQ(r.call, ABFT_STATUS_SUCCESS) << what;
        EXPECT_EQ(landed.applied, 1) << what;
        // One unit (the query block holding the row) fails, and only it.
        EXPECT_EQ(r.rep.detected, 1u) << what;
        EXPECT_EQ(r.rep.corrected, 1u) << what;
        EXPECT_EQ(r.rep.uncorrectable, 0u) << what;
        EXPECT_EQ(r.sync, ABFT_STATUS_SUCCESS) << what;
        // The repair reruns the block's arithmetic: the clean run's bits.
        EXPECT_EQ(0, std::memcmp(r.O.data(), clean.O.data(), r.O.size() * sizeof(float))) << what;
        EXPECT_EQ(0, std::memcmp(r.lse.data(), clean.lse.data(), r.lse.size() * sizeof(float))) << what;
        // DETECT counts and leaves the result as computed.
        const Outcome dr = run_fault(c, ABFT_POLICY_DETECT, s.site, model, bit, 100 + 37, s.col, s.kpos, &landed);
        EXPECT_EQ(landed.applied, 1) << what << " (detect)";
        EXPECT_EQ(dr.rep.detected, 1u) << what << " (detect)";
        EXPECT_EQ(dr.rep.corrected, 0u) << what << " (detect)";
        EXPECT_EQ(dr.sync, ABFT_STATUS_FAULT_DETECTED) << what << " (detect)";
      }
  }
}

/** What only the mma.sync kernel (ABFT_CUDA_ATTN_TC=mma) has: score checks over groups of 512
 *  keys and their prefix records (faults in a later group of a long causal row with
 *  q_len != kv_len, and in its last, partial block), and V's checksum columns in the storage
 *  type, scaled for binary16 (|V| up to 2000: sum_c |V_jc| is past binary16's range unscaled)
 *  and among its subnormals (|V| ~ 1e-3): no detection on the clean run, every site seen and
 *  repaired to the clean run's bits, on binary16 and bfloat16. */
TEST(CudaAttention, MmaKernelLongRowsAndBinary16Ranges) {
  REQUIRE_DEVICE();
  const ProductEngine mode(Engine::Mma);
  struct Site {
    abft_site site;
    int64_t col, kpos;
  };
  // Head instance 1, query 65 (the second query block): it attends keys 0..1295 of 1300, 21 key
  // blocks in groups of 8, 8 and 5.
  const int64_t row = 70 + 65;
  const Site sites[] = {
      {ABFT_SITE_ATTN_SCORES, 1100, 0}, {ABFT_SITE_ATTN_SCORES, 1290, 0}, {ABFT_SITE_ATTN_PROBS, 900, 0},
      {ABFT_SITE_ATTN_ROWSTAT, 0, 1299}, {ABFT_SITE_ATTN_ROWSTAT, 1, 600},  {ABFT_SITE_ATTN_ACC, 77, 600},
      {ABFT_SITE_OUTPUT, 77, 0},         {ABFT_SITE_PACKED_A, 0, 100},
  };
  for (float vscale : {1.0f, 2000.0f, 1e-3f})
    for (abft_cuda_dtype t : {ABFT_CUDA_HALF, ABFT_CUDA_BFLOAT16}) {
      Case c(t, 1, 2, 1, 70, 1300, 128, true, false, false, Data::Uniform, 31);
      for (float& x : c.V) x = stored(x * vscale, t);
      const std::string what = std::string(dtype_name(t)) + " |V| x " + std::to_string(vscale);
      abft_handle_t h = nullptr;
      ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
      const Outcome clean = run(c, h, ABFT_POLICY_CORRECT);
      abft_cuda_release(h);
      abft_handle_destroy(h);
      ASSERT_EQ(clean.call, ABFT_STATUS_SUCCESS) << what;
      ASSERT_EQ(clean.rep.detected, 0u) << what;
      EXPECT_EQ(clean.rep.skipped, 0u) << what;
      EXPECT_GT(clean.rep.checks, 0u) << what;
      expect_close(c, clean, what, true);
      for (const Site& s : sites) {
        const std::string w = what + " site " + std::to_string(int(s.site)) + " col " + std::to_string(s.col);
        abft_fault landed{};
        // (A stored output is checked at the storage format's resolution of the row's magnitude,
        // which with |V| ~ 2000 hides a cleared top exponent bit of an element near 30: a NaN.)
        const abft_fault_model model = s.site == ABFT_SITE_OUTPUT ? ABFT_FAULT_NAN : ABFT_FAULT_BITFLIP;
        const Outcome r = run_fault(c, ABFT_POLICY_CORRECT, s.site, model, 30, row, s.col, s.kpos, &landed);
        ASSERT_EQ(r.call, ABFT_STATUS_SUCCESS) << w;
        EXPECT_EQ(landed.applied, 1) << w;
        EXPECT_EQ(r.rep.detected, 1u) << w;
        EXPECT_EQ(r.rep.corrected, 1u) << w;
        EXPECT_EQ(0, std::memcmp(r.O.data(), clean.O.data(), r.O.size() * sizeof(float))) << w;
      }
    }
}

TEST(CudaAttention, FaultsInCausalBlocksAndRowsWithoutKeys) {
  REQUIRE_DEVICE();
  // q_len 100 > kv_len 60, causal: queries 0..39 attend no key (O = 0, lse = -inf).
  const Case c(ABFT_CUDA_FLOAT, 1, 2, 2, 100, 60, 64, true, false, false, Data::Uniform, 21);
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  const Outcome clean = run(c, h, ABFT_POLICY_CORRECT);
  abft_cuda_release(h);
  abft_handle_destroy(h);
  ASSERT_EQ(clean.rep.detected, 0u);
  struct Site {
    abft_site site;
    int64_t row, col, kpos;
  };
  const Site sites[] = {
      {ABFT_SITE_OUTPUT, 5, 3, 0},           // a row without keys: its output must stay zero
      {ABFT_SITE_ATTN_SCORES, 90, 40, 0},    // the causal diagonal block
      {ABFT_SITE_ATTN_ACC, 90, 7, 59},       // after the last key block
      {ABFT_SITE_ATTN_ROWSTAT, 90, 1, 59},   // the last key (kv_len 60): lands after the last block
      {ABFT_SITE_PACKED_A, 100 + 20, 0, 3},  // head 1, a block of rows without keys
  };
  for (const Site& s : sites) {
    const std::string what = "site " + std::to_string(int(s.site)) + " row " + std::to_string(s.row);
    abft_fault landed{};
    const Outcome r = run_fault(c, ABFT_POLICY_CORRECT, s.site, ABFT_FAULT_BITFLIP, 30, s.row, s.col, s.kpos, &landed);
    ASSERT_EQ(r.call, ABFT_STATUS_SUCCESS) << what;
    EXPECT_EQ(landed.applied, 1) << what;
    EXPECT_EQ(r.rep.detected, 1u) << what;
    EXPECT_EQ(r.rep.corrected, 1u) << what;
    EXPECT_EQ(0, std::memcmp(r.O.data(), clean.O.data(), r.O.size() * sizeof(float))) << what;
  }
}

/** The pre-pass's records stand in for the sums each query block forms from its tiles, bit for
 *  bit (attention_key_sums.cu): the same verdicts and counts with and without them, on shapes
 *  whose causal sweeps stop inside a key block (q_len != kv_len), a partial last block, GQA and
 *  MQA, every head-dim bucket and both product engines; and a fault is found and repaired with
 *  them as without (the repair pass forms its own sums). */
TEST(CudaAttention, KeySumRecordsGiveTheSameVerdicts) {
  REQUIRE_DEVICE();
  struct Shape {
    int64_t B, H, HK, Lq, Lk, D;
    bool causal;
  };
  const Shape shapes[] = {
      {1, 4, 1, 33, 130, 128, true}, {2, 4, 2, 77, 77, 64, true}, {1, 2, 2, 100, 61, 40, true},
      {1, 8, 2, 96, 200, 64, false}, {1, 2, 1, 70, 90, 256, true}, {1, 3, 3, 65, 33, 32, false},
  };
  for (Engine eng : kEngines)
    for (abft_cuda_dtype t : {ABFT_CUDA_FLOAT, ABFT_CUDA_BFLOAT16})
      for (const Shape& s : shapes) {
        if (eng != Engine::Simt && t == ABFT_CUDA_FLOAT) continue;
        const ProductEngine mode(eng);
        const Case c(t, s.B, s.H, s.HK, s.Lq, s.Lk, s.D, s.causal, false, false, Data::Wide, 11);
        const std::string what = std::string(engine_name(eng)) + dtype_name(t) + " H" + std::to_string(s.H) +
                                 "/" + std::to_string(s.HK) + " Lq" + std::to_string(s.Lq) + " Lk" +
                                 std::to_string(s.Lk) + " D" + std::to_string(s.D);
        abft_handle_t h = nullptr;
        ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
        Outcome with, without;
        {
          const abft_test::KeySumRecords on(true);
          with = run(c, h, ABFT_POLICY_CORRECT);
        }
        {
          const abft_test::KeySumRecords off(false);
          without = run(c, h, ABFT_POLICY_CORRECT);
        }
        ASSERT_EQ(with.call, ABFT_STATUS_SUCCESS) << what;
        ASSERT_EQ(without.call, ABFT_STATUS_SUCCESS) << what;
        EXPECT_EQ(with.rep.detected, 0u) << what;
        EXPECT_EQ(without.rep.detected, 0u) << what;
        EXPECT_EQ(with.rep.checks, without.rep.checks) << what;
        EXPECT_EQ(with.rep.skipped, without.rep.skipped) << what;
        EXPECT_GT(with.rep.checks, 0u) << what;
        EXPECT_EQ(0, std::memcmp(with.O.data(), without.O.data(), with.O.size() * sizeof(float))) << what;
        EXPECT_EQ(0, std::memcmp(with.lse.data(), without.lse.data(), with.lse.size() * sizeof(float))) << what;
        abft_cuda_release(h);
        abft_handle_destroy(h);
        // A score fault at the last key of head instance 1's last query row (which attends every
        // key, causal or not), with records.
        const abft_test::KeySumRecords on(true);
        const int64_t row = s.Lq + s.Lq - 1, key = s.Lk - 1;
        abft_fault landed{};
        const Outcome r =
            run_fault(c, ABFT_POLICY_CORRECT, ABFT_SITE_ATTN_SCORES, ABFT_FAULT_BITFLIP, 30, row, key, 0, &landed);
        ASSERT_EQ(r.call, ABFT_STATUS_SUCCESS) << what;
        EXPECT_EQ(landed.applied, 1) << what;
        EXPECT_EQ(r.rep.detected, 1u) << what;
        EXPECT_EQ(r.rep.corrected, 1u) << what;
        EXPECT_EQ(0, std::memcmp(r.O.data(), with.O.data(), r.O.size() * sizeof(float))) << what;
      }
}

TEST(CudaAttention, CountsReachTheHandleStatistics) {
  REQUIRE_DEVICE();
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  const Case c(ABFT_CUDA_HALF, 1, 2, 2, 64, 64, 64, true, false, false, Data::Uniform, 1);
  const Outcome r = run(c, h, ABFT_POLICY_CORRECT);
  ASSERT_EQ(r.call, ABFT_STATUS_SUCCESS);
  abft_counters s{};
  ASSERT_EQ(abft_stats_get(h, ABFT_KERNEL_ATTN_FWD, &s), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(s.calls, 1u);
  EXPECT_EQ(s.checks, r.rep.checks);
  EXPECT_GT(s.checks, 0u);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

}  // namespace
