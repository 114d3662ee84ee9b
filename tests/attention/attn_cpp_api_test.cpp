/** \file attn_cpp_api_test.cpp
 *  \brief The attention's C++ API (abft/attention.hpp) over the C API: forward and backward
 *  through 4-D views give the C calls' results bit for bit (causal, GQA, a broadcast mask,
 *  strided views) and their reports; views whose shapes disagree give INVALID_SIZE, gradients
 *  laid out unlike what they differentiate INVALID_LD, both before anything is written.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "abft/attention.hpp"

namespace {

namespace at = abft::attention;
using CT = at::Tensor4<const float>;
using MT = at::Tensor4<float>;

std::vector<float> random_vector(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(g);
  return v;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(AttnCppApi, ForwardAndBackwardGiveTheCCallsResults) {
  const int64_t b = 2, hq = 4, hk = 2, lq = 24, lk = 33, d = 16;
  const size_t nq = size_t(b * hq * lq * d), nk = size_t(b * hk * lk * d), nl = size_t(b * hq * lq);
  // Q in a wider buffer (a strided view: rows of 2 d), K and V contiguous, a mask broadcast over
  // the batch ([1, hq, lq, lk]).
  const std::vector<float> q = random_vector(2 * nq, 1), k = random_vector(nk, 2), v = random_vector(nk, 3),
                           dO = random_vector(nq, 4), mask = random_vector(size_t(hq * lq * lk), 5);
  CT Q = CT::contiguous(q.data(), b, hq, lq, d);
  Q.stride[2] = 2 * d, Q.stride[1] = lq * 2 * d, Q.stride[0] = hq * lq * 2 * d;
  const CT K = CT::contiguous(k.data(), b, hk, lk, d), V = CT::contiguous(v.data(), b, hk, lk, d);
  CT M = CT::contiguous(mask.data(), 1, hq, lq, lk);
  std::vector<float> o1(nq), o2(nq), l1(nl), l2(nl), dq1(nq), dq2(nq), dk1(nk), dk2(nk), dv1(nk), dv2(nk);
  abft::Handle h;
  at::Options opt;
  opt.causal = true;
  opt.scale = 0.3f;
  abft::Report r1{}, r2{};
  ASSERT_EQ(at::forward(&h, Q, K, V, MT::contiguous(o1.data(), b, hq, lq, d), l1.data(), &M, opt, &r1),
            ABFT_STATUS_SUCCESS);
  // Q's gradient shares Q's strides: a wider buffer too.
  std::vector<float> dqw1(2 * nq), dqw2(2 * nq);
  MT dQ1 = MT::contiguous(dqw1.data(), b, hq, lq, d);
  for (int i = 0; i < 4; ++i) dQ1.stride[i] = Q.stride[i];
  ASSERT_EQ(at::backward(&h, Q, K, V, CT::contiguous(o1.data(), b, hq, lq, d), CT::contiguous(dO.data(), b, hq, lq, d),
                         l1.data(), dQ1, MT::contiguous(dk1.data(), b, hk, lk, d),
                         MT::contiguous(dv1.data(), b, hk, lk, d), &M, opt, &r2),
            ABFT_STATUS_SUCCESS);
  EXPECT_GT(r1.checks, 0u);
  EXPECT_EQ(r1.detected, 0u);
  EXPECT_GT(r2.checks, 0u);
  EXPECT_EQ(r2.detected, 0u);
  // The C calls on the same descriptor.
  abft_attention_desc ds;
  ASSERT_EQ(abft_attention_desc_init(&ds, b, hq, hk, lq, lk, d), ABFT_STATUS_SUCCESS);
  ds.causal = 1;
  ds.scale = 0.3f;
  for (int i = 0; i < 4; ++i) ds.q_strides[i] = Q.stride[i], ds.mask_strides[i] = M.stride[i];
  ds.mask_strides[0] = 0;
  ASSERT_EQ(abft_attention_forward(h.get(), ABFT_POLICY_DEFAULT, &ds, q.data(), k.data(), v.data(), mask.data(),
                                   o2.data(), l2.data(), nullptr),
            ABFT_STATUS_SUCCESS);
  abft_attention_desc db = ds;
  for (int i = 0; i < 4; ++i) db.o_strides[i] = 0;  // O and dO contiguous
  ASSERT_EQ(abft_attention_backward(h.get(), ABFT_POLICY_DEFAULT, &db, q.data(), k.data(), v.data(), mask.data(),
                                    o1.data(), dO.data(), l1.data(), dqw2.data(), dk2.data(), dv2.data(), nullptr),
            ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(same_bits(o1, o2));
  EXPECT_TRUE(same_bits(l1, l2));
  EXPECT_TRUE(same_bits(dqw1, dqw2));
  EXPECT_TRUE(same_bits(dk1, dk2));
  EXPECT_TRUE(same_bits(dv1, dv2));
}

TEST(AttnCppApi, ViewsThatDisagreeAreRejectedBeforeAnythingIsWritten) {
  const int64_t b = 1, hq = 2, lq = 8, lk = 8, d = 8;
  std::vector<float> q = random_vector(size_t(b * hq * lq * d), 6), o(q.size(), 7.f), g(q.size(), 9.f);
  const CT Q = CT::contiguous(q.data(), b, hq, lq, d);
  abft::Handle h;
  // V longer than K; K with another head_dim; O of another shape.
  EXPECT_EQ(at::forward(&h, Q, Q, CT::contiguous(q.data(), b, hq, lq - 1, d), MT::contiguous(o.data(), b, hq, lq, d)),
            ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(at::forward(&h, Q, CT::contiguous(q.data(), b, hq, lk, d / 2), CT::contiguous(q.data(), b, hq, lk, d / 2),
                        MT::contiguous(o.data(), b, hq, lq, d)),
            ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(at::forward(&h, Q, Q, Q, MT::contiguous(o.data(), b, hq, lq + 1, d)), ABFT_STATUS_INVALID_SIZE);
  // A mask that is neither the full shape nor a broadcast of it.
  const CT M = CT::contiguous(q.data(), 1, 1, lq, lk - 1);
  EXPECT_EQ(at::forward(&h, Q, Q, Q, MT::contiguous(o.data(), b, hq, lq, d), nullptr, &M), ABFT_STATUS_INVALID_SIZE);
  for (float x : o) ASSERT_EQ(x, 7.f);
  // A gradient whose strides are not its input's.
  MT dQ = MT::contiguous(g.data(), b, hq, lq, d);
  dQ.stride[0] += 1;
  std::vector<float> lse(size_t(b * hq * lq), 0.f);
  EXPECT_EQ(at::backward(&h, Q, Q, Q, Q, Q, lse.data(), dQ, MT::contiguous(g.data(), b, hq, lk, d),
                         MT::contiguous(g.data(), b, hq, lk, d)),
            ABFT_STATUS_INVALID_LD);
  for (float x : g) ASSERT_EQ(x, 9.f);
}

}  // namespace
