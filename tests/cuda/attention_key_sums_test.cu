/** \file attention_key_sums_test.cu
 *  \brief The GPU attention's pre-pass (cuda/attention_key_sums.cu): its records hold, bit for
 *  bit, the sums the kernels would form from their tiles (docs/ABFT.md §13.3) — the column sums
 *  e^T K, e^T |K| (and e^T V, e^T |V| for the backward) summed in double over the block's keys
 *  in order and rounded to float once, and the forward's V checksum pairs v_j, a_j summed per
 *  lane over c = lane + 4a, then the four lanes' butterfly — computed here on the host the same
 *  way. Also: the pre-pass is made when a key block has several readers, and not for one reader
 *  or under ABFT_CUDA_ATTN_KEY_SUMS=0. The kernels' own tests (attention_cuda_test,
 *  attention_backward_cuda_test) run with and without the records; this one checks what the
 *  records hold, which an output comparison cannot see. Skips without a device.
 */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/abft_cuda.h"
#include "attention_launch.hpp"
#include "cuda_test_util.hpp"
#include "device_state.hpp"

namespace {

using namespace abft::cuda;
using namespace abft::cuda::attn;

struct Shape {
  int64_t B, H, HK, Lq, Lk, D;
};

/** K or V of a shape, [B, HK, Lk, D] contiguous, as floats holding values of the storage type. */
std::vector<float> draw(const Shape& s, abft_cuda_dtype t, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  std::vector<float> x(size_t(s.B * s.HK * s.Lk * s.D));
  for (float& v : x) {
    v = std::ldexp(u(g), int(g() % 7) - 3);  // a few binades: sums that round
    if (t == ABFT_CUDA_BFLOAT16) v = __bfloat162float(__float2bfloat16(v));
  }
  return x;
}

/** A device copy of x in the storage type (float or bfloat16). */
void* upload(const std::vector<float>& x, abft_cuda_dtype t) {
  void* p = nullptr;
  if (t == ABFT_CUDA_FLOAT) {
    cudaMalloc(&p, x.size() * sizeof(float));
    cudaMemcpy(p, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice);
  } else {
    std::vector<__nv_bfloat16> h(x.size());
    for (size_t i = 0; i < x.size(); ++i) h[i] = __float2bfloat16(x[i]);
    cudaMalloc(&p, h.size() * sizeof(__nv_bfloat16));
    cudaMemcpy(p, h.data(), h.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice);
  }
  return p;
}

/** K and V on the device, a handle and its device state (st null when it cannot be had); all
 *  released with the object, after the device is done. */
struct OnDevice {
  void* K = nullptr;
  void* V = nullptr;
  abft_handle_t h = nullptr;
  State* st = nullptr;
  OnDevice(const std::vector<float>& k, const std::vector<float>& v, abft_cuda_dtype t) : K(upload(k, t)), V(upload(v, t)) {
    if (abft_handle_create(&h) == ABFT_STATUS_SUCCESS && state_of(h, &st) != ABFT_STATUS_SUCCESS) st = nullptr;
  }
  ~OnDevice() {
    cudaDeviceSynchronize();
    if (h) abft_cuda_release(h), abft_handle_destroy(h);
    cudaFree(K);
    cudaFree(V);
  }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;
};

AttnArgs args_of(const Shape& s, const void* K, const void* V) {
  AttnArgs a;
  a.B = s.B, a.H = s.H, a.HK = s.HK, a.G = s.H / s.HK, a.Lq = s.Lq, a.Lk = s.Lk, a.D = s.D;
  a.off = s.Lk - s.Lq;
  const int64_t st[4] = {s.HK * s.Lk * s.D, s.Lk * s.D, s.D, 1};
  for (int i = 0; i < 4; ++i) a.ks[i] = a.vs[i] = st[i];
  a.k = K, a.v = V;
  a.nqb = (s.Lq + kBR - 1) / kBR;
  return a;
}

/** The records of a shape as the host forms them (key_sums_bytes layout, floats). */
std::vector<float> host_records(const Shape& s, const std::vector<float>& K, const std::vector<float>& V, bool rows) {
  const int DM = attn_head_dim_bucket(s.D);
  const int64_t nkb = (s.Lk + kBC - 1) / kBC;
  const size_t per = size_t(key_sums_bytes(DM, rows) / int64_t(sizeof(float)));
  std::vector<float> r(size_t(s.B * s.HK * nkb) * per, 0.f);
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t hk = 0; hk < s.HK; ++hk)
      for (int64_t kb = 0; kb < nkb; ++kb) {
        float* rec = &r[size_t((b * s.HK + hk) * nkb + kb) * per];
        const int64_t j0 = kb * kBC, nk = std::min<int64_t>(kBC, s.Lk - j0);
        auto at = [&](const std::vector<float>& X, int64_t j, int c) {
          return c < s.D ? double(X[size_t(((b * s.HK + hk) * s.Lk + j0 + j) * s.D + c)]) : 0.0;
        };
        for (int c = 0; c < DM; ++c) {
          double k = 0, ka = 0, v = 0, va = 0;
          for (int64_t j = 0; j < nk; ++j) {
            k += at(K, j, c), ka += std::fabs(at(K, j, c));
            v += at(V, j, c), va += std::fabs(at(V, j, c));
          }
          rec[c] = float(k), rec[DM + c] = float(ka);
          if (!rows) rec[2 * DM + c] = float(v), rec[3 * DM + c] = float(va);
        }
        if (rows)
          for (int j = 0; j < kBC; ++j) {
            double ls[kLanes] = {}, la[kLanes] = {};
            for (int lane = 0; lane < kLanes; ++lane)
              for (int c = lane; c < DM; c += kLanes) {
                const double x = j < nk ? at(V, j, c) : 0.0;
                ls[lane] += x, la[lane] += std::fabs(x);
              }
            rec[2 * DM + 2 * j] = float((ls[0] + ls[1]) + (ls[2] + ls[3]));
            rec[2 * DM + 2 * j + 1] = float((la[0] + la[1]) + (la[2] + la[3]));
          }
      }
  return r;
}

TEST(CudaAttentionKeySums, RecordsHoldTheKernelsSumsBitForBit) {
  REQUIRE_DEVICE();
  const Shape shapes[] = {{2, 4, 2, 70, 77, 40}, {1, 8, 1, 33, 130, 128}, {1, 2, 2, 64, 32, 256},
                          {1, 3, 3, 65, 100, 64}, {2, 2, 1, 40, 45, 32}};
  uint64_t seed = 1;
  for (abft_cuda_dtype t : {ABFT_CUDA_FLOAT, ABFT_CUDA_BFLOAT16})
    for (bool rows : {true, false})
      for (const Shape& s : shapes) {
        const std::string what = std::string(t == ABFT_CUDA_FLOAT ? "float" : "bf16") + (rows ? " forward" : " backward") +
                                 " Lk " + std::to_string(s.Lk) + " D " + std::to_string(s.D);
        const std::vector<float> K = draw(s, t, seed++), V = draw(s, t, seed++);
        const OnDevice dev(K, V, t);
        ASSERT_NE(dev.st, nullptr) << what;
        const KeySums ks = key_sums_launch(t, args_of(s, dev.K, dev.V), dev.st, nullptr, rows);
        ASSERT_NE(ks.p, nullptr) << what << ": no records although every key block has several readers";
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
        const std::vector<float> want = host_records(s, K, V, rows);
        EXPECT_EQ(ks.bytes, key_sums_bytes(attn_head_dim_bucket(s.D), rows)) << what;
        EXPECT_EQ(ks.nkb, (s.Lk + kBC - 1) / kBC) << what;
        std::vector<float> got(want.size());
        ASSERT_EQ(cudaMemcpy(got.data(), ks.p, got.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
        size_t bad = 0;
        for (size_t i = 0; i < got.size(); ++i)
          if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && bad++ < 5)
            ADD_FAILURE() << what << ": record value " << i << " = " << got[i] << ", host " << want[i];
        EXPECT_EQ(bad, 0u) << what;
      }
}

TEST(CudaAttentionKeySums, NoRecordsForOneReaderOrWhenTurnedOff) {
  REQUIRE_DEVICE();
  const Shape decode{1, 2, 2, 1, 300, 64};  // one query block per head, no group: one reader
  const Shape many{1, 4, 2, 64, 300, 64};
  const std::vector<float> K = draw(many, ABFT_CUDA_FLOAT, 3), V = draw(many, ABFT_CUDA_FLOAT, 4);
  const OnDevice dev(K, V, ABFT_CUDA_FLOAT);
  ASSERT_NE(dev.st, nullptr);
  auto made = [&](const Shape& s, bool rows) {
    return key_sums_launch(ABFT_CUDA_FLOAT, args_of(s, dev.K, dev.V), dev.st, nullptr, rows).p != nullptr;
  };
  EXPECT_FALSE(made(decode, true));
  EXPECT_TRUE(made(many, true));
  EXPECT_TRUE(made(many, false));
  const abft_test::KeySumRecords off(false);
  EXPECT_FALSE(made(many, true));
  EXPECT_FALSE(made(many, false));
}

}  // namespace
