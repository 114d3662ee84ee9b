/** \file attn_args_test.cpp
 *  \brief Argument handling of the attention C API: every rejected argument
 *  returns its status and writes nothing (outputs hold a sentinel that must
 *  survive); zero-size problems succeed (kv_len 0: O = 0, lse = -inf;
 *  q_len 0 backward: dK = dV = 0); abft_attention_desc_init defaults;
 *  abft_attention_kernel_info; per-handle statistics rows ATTN_FWD / ATTN_BWD.
 */
#include <gtest/gtest.h>

#include <functional>

#include "abft/abft.hpp"
#include "attn_reference.hpp"
#include "attn_test_util.hpp"
#include "test_util.hpp"

using namespace attn_test;

namespace {

/** Buffers large enough for any descriptor these tests derive from the base
 *  one (sizes only ever shrink, or grow within the slack), all outputs at the
 *  sentinel, inputs random. */
struct Buffers {
  std::vector<float> Q, K, V, M, O, lse, dO, dQ, dK, dV;
  explicit Buffers(size_t n = 1 << 16) {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<float> u(-1, 1);
    for (auto* v : {&Q, &K, &V, &M, &dO}) {
      v->resize(n);
      for (float& x : *v) x = u(rng);
    }
    for (auto* v : {&O, &lse, &dQ, &dK, &dV}) v->assign(n, kOutSentinel);
  }
  /** Outputs still all sentinel? Names the first tensor written. */
  std::string written() const {
    const char* names[] = {"O", "lse", "dQ", "dK", "dV"};
    const std::vector<float>* outs[] = {&O, &lse, &dQ, &dK, &dV};
    for (int i = 0; i < 5; ++i)
      for (float x : *outs[i])
        if (!same_bits(x, kOutSentinel)) return names[i];
    return "";
  }
};

abft_attention_desc base_desc() {
  abft_attention_desc d{};
  d.batch = 2, d.heads = 4, d.kv_heads = 2, d.q_len = 9, d.kv_len = 11, d.head_dim = 16;
  d.scale = 0.25f;
  d.causal = 0;
  return d;
}

struct BadCase {
  std::string name;
  std::function<void(abft_attention_desc&)> edit;
  std::vector<abft_status> want;  // accepted statuses (the first is the expected one)
};

void PrintTo(const BadCase& b, std::ostream* os) { *os << b.name; }

std::vector<BadCase> bad_descs() {
  const std::vector<abft_status> size{ABFT_STATUS_INVALID_SIZE};
  const std::vector<abft_status> value{ABFT_STATUS_INVALID_VALUE};
  std::vector<BadCase> v = {
      {"NegativeBatch", [](abft_attention_desc& d) { d.batch = -1; }, size},
      {"NegativeHeads", [](abft_attention_desc& d) { d.heads = -4; }, size},
      {"NegativeKvHeads", [](abft_attention_desc& d) { d.kv_heads = -2; }, size},
      {"NegativeQLen", [](abft_attention_desc& d) { d.q_len = -1; }, size},
      {"NegativeKvLen", [](abft_attention_desc& d) { d.kv_len = -3; }, size},
      {"NegativeHeadDim", [](abft_attention_desc& d) { d.head_dim = -16; }, size},
      // Inconsistent dimensions: INVALID_SIZE ("negative or inconsistent dimension",
      // abft_status_string); head_dim must lie in 1..ABFT_ATTENTION_MAX_HEAD_DIM.
      {"HeadsNotMultipleOfKvHeads", [](abft_attention_desc& d) { d.kv_heads = 3; }, size},
      {"KvHeadsAboveHeads", [](abft_attention_desc& d) { d.kv_heads = 8; }, size},
      {"KvHeadsZero", [](abft_attention_desc& d) { d.kv_heads = 0; }, size},
      {"HeadDimZero", [](abft_attention_desc& d) { d.head_dim = 0; }, size},
      {"HeadDimAboveMax", [](abft_attention_desc& d) { d.head_dim = ABFT_ATTENTION_MAX_HEAD_DIM + 1; }, size},
      // A zero stride on a dimension of size > 1 of O (and so of dQ) would make outputs alias.
      {"OutputZeroStride", [](abft_attention_desc& d) {
         const int64_t st[4] = {4 * 9 * 16, 0, 16, 1};
         for (int i = 0; i < 4; ++i) d.o_strides[i] = st[i];
       }, {ABFT_STATUS_INVALID_LD, ABFT_STATUS_INVALID_VALUE}},
      {"ScaleNaN", [](abft_attention_desc& d) { d.scale = qnan(); }, value},
      {"ScalePosInf", [](abft_attention_desc& d) { d.scale = std::numeric_limits<float>::infinity(); }, value},
      {"ScaleNegInf", [](abft_attention_desc& d) { d.scale = -std::numeric_limits<float>::infinity(); }, value},
      {"CausalTwo", [](abft_attention_desc& d) { d.causal = 2; }, value},
      {"CausalNegative", [](abft_attention_desc& d) { d.causal = -1; }, value},
  };
  return v;
}

bool accepted(abft_status s, const std::vector<abft_status>& want) {
  return std::find(want.begin(), want.end(), s) != want.end();
}

class AttnBadDesc : public ::testing::TestWithParam<BadCase> {};

TEST_P(AttnBadDesc, ForwardRejectsAndWritesNothing) {
  const BadCase& bc = GetParam();
  abft_attention_desc d = base_desc();
  bc.edit(d);
  Buffers b;
  abft::Handle h;
  abft_report rep{};
  const abft_status s = abft_attention_forward(h.get(), ABFT_POLICY_CORRECT, &d, b.Q.data(), b.K.data(),
                                               b.V.data(), b.M.data(), b.O.data(), b.lse.data(), &rep);
  EXPECT_TRUE(accepted(s, bc.want)) << bc.name << ": got " << abft_status_string(s) << ", want "
                                    << abft_status_string(bc.want[0]);
  EXPECT_EQ(b.written(), "") << bc.name << ": output written on a rejected call";
  if (bc.want.size() > 1) std::printf("  %s -> %s\n", bc.name.c_str(), abft_status_string(s));
}

TEST_P(AttnBadDesc, BackwardRejectsAndWritesNothing) {
  const BadCase& bc = GetParam();
  abft_attention_desc d = base_desc();
  bc.edit(d);
  Buffers b;
  std::fill(b.O.begin(), b.O.end(), 0.1f);  // an input here
  std::fill(b.lse.begin(), b.lse.end(), 1.0f);
  const std::vector<float> O0 = b.O, L0 = b.lse;
  abft::Handle h;
  const abft_status s = abft_attention_backward(h.get(), ABFT_POLICY_CORRECT, &d, b.Q.data(), b.K.data(),
                                                b.V.data(), nullptr, b.O.data(), b.dO.data(),
                                                b.lse.data(), b.dQ.data(), b.dK.data(), b.dV.data(), nullptr);
  EXPECT_TRUE(accepted(s, bc.want)) << bc.name << ": got " << abft_status_string(s);
  b.O.assign(b.O.size(), kOutSentinel), b.lse.assign(b.lse.size(), kOutSentinel);
  EXPECT_EQ(b.written(), "") << bc.name << ": gradient written on a rejected call";
}

INSTANTIATE_TEST_SUITE_P(Args, AttnBadDesc, ::testing::ValuesIn(bad_descs()),
                         [](const ::testing::TestParamInfo<BadCase>& i) { return i.param.name; });

// ------------------------------------------------------------------ pointers and policy
TEST(AttnArgs, ForwardNullPointers) {
  const abft_attention_desc d = base_desc();
  abft::Handle h;
  for (int which = 0; which < 5; ++which) {
    Buffers b;
    const abft_attention_desc* dp = which == 0 ? nullptr : &d;
    const float* Q = which == 1 ? nullptr : b.Q.data();
    const float* K = which == 2 ? nullptr : b.K.data();
    const float* V = which == 3 ? nullptr : b.V.data();
    float* O = which == 4 ? nullptr : b.O.data();
    const abft_status s =
        abft_attention_forward(h.get(), ABFT_POLICY_CORRECT, dp, Q, K, V, nullptr, O, b.lse.data(), nullptr);
    const char* names[] = {"desc", "Q", "K", "V", "O"};
    EXPECT_EQ(s, ABFT_STATUS_NULL_POINTER) << "NULL " << names[which] << ": " << abft_status_string(s);
    EXPECT_EQ(b.written(), "") << "NULL " << names[which];
  }
}

TEST(AttnArgs, BackwardNullPointers) {
  const abft_attention_desc d = base_desc();
  abft::Handle h;
  const char* names[] = {"desc", "Q", "K", "V", "O", "dO", "lse", "dQ", "dK", "dV"};
  for (int which = 0; which < 10; ++which) {
    Buffers b;
    std::vector<float> O(b.O.size(), 0.1f), lse(b.lse.size(), 1.0f);
    auto pick = [&](int k, float* p) { return which == k ? nullptr : p; };
    const abft_status s = abft_attention_backward(
        h.get(), ABFT_POLICY_CORRECT, which == 0 ? nullptr : &d, pick(1, b.Q.data()), pick(2, b.K.data()),
        pick(3, b.V.data()), nullptr, pick(4, O.data()), pick(5, b.dO.data()), pick(6, lse.data()),
        pick(7, b.dQ.data()), pick(8, b.dK.data()), pick(9, b.dV.data()), nullptr);
    EXPECT_EQ(s, ABFT_STATUS_NULL_POINTER) << "NULL " << names[which] << ": " << abft_status_string(s);
    EXPECT_EQ(b.written(), "") << "NULL " << names[which];
  }
}

TEST(AttnArgs, NullMaskAndNullLseAreFineInForward) {
  const abft_attention_desc d = base_desc();
  Buffers b;
  abft_report rep{};
  // No handle either: process defaults.
  EXPECT_EQ(abft_attention_forward(nullptr, ABFT_POLICY_DEFAULT, &d, b.Q.data(), b.K.data(), b.V.data(),
                                   nullptr, b.O.data(), nullptr, &rep),
            ABFT_STATUS_SUCCESS);
  EXPECT_EQ(rep.detected, 0u);
  // O written (all 2*4*9*16 elements), lse untouched.
  for (int64_t t = 0; t < 2 * 4 * 9 * 16; ++t) ASSERT_FALSE(same_bits(b.O[size_t(t)], kOutSentinel)) << t;
  for (float x : b.lse) ASSERT_TRUE(same_bits(x, kOutSentinel));
  // The report may be NULL.
  EXPECT_EQ(abft_attention_forward(nullptr, ABFT_POLICY_CORRECT, &d, b.Q.data(), b.K.data(), b.V.data(),
                                   nullptr, b.O.data(), b.lse.data(), nullptr),
            ABFT_STATUS_SUCCESS);
}

TEST(AttnArgs, BadPolicy) {
  const abft_attention_desc d = base_desc();
  for (int pol : {3, -2, 7, 1000}) {
    Buffers b;
    EXPECT_EQ(abft_attention_forward(nullptr, abft_policy(pol), &d, b.Q.data(), b.K.data(), b.V.data(),
                                     nullptr, b.O.data(), b.lse.data(), nullptr),
              ABFT_STATUS_INVALID_VALUE)
        << "policy " << pol;
    std::vector<float> O(b.O.size(), 0.1f), lse(b.lse.size(), 1.0f);
    EXPECT_EQ(abft_attention_backward(nullptr, abft_policy(pol), &d, b.Q.data(), b.K.data(), b.V.data(),
                                      nullptr, O.data(), b.dO.data(), lse.data(), b.dQ.data(),
                                      b.dK.data(), b.dV.data(), nullptr),
              ABFT_STATUS_INVALID_VALUE)
        << "policy " << pol;
    EXPECT_EQ(b.written(), "") << "policy " << pol;
  }
}

TEST(AttnArgs, EveryPolicyAccepted) {
  const abft_attention_desc d = base_desc();
  for (abft_policy pol : {ABFT_POLICY_DEFAULT, ABFT_POLICY_OFF, ABFT_POLICY_DETECT, ABFT_POLICY_CORRECT}) {
    Buffers b;
    EXPECT_EQ(abft_attention_forward(nullptr, pol, &d, b.Q.data(), b.K.data(), b.V.data(), nullptr,
                                     b.O.data(), b.lse.data(), nullptr),
              ABFT_STATUS_SUCCESS)
        << abft_test::policy_tag(pol);
    EXPECT_EQ(abft_attention_backward(nullptr, pol, &d, b.Q.data(), b.K.data(), b.V.data(), nullptr,
                                      b.O.data(), b.dO.data(), b.lse.data(), b.dQ.data(), b.dK.data(),
                                      b.dV.data(), nullptr),
              ABFT_STATUS_SUCCESS)
        << abft_test::policy_tag(pol);
  }
}

// ------------------------------------------------------------------ zero-size problems
struct ZeroCase {
  const char* name;
  int64_t batch, heads, kv_heads, q_len, kv_len;
};
void PrintTo(const ZeroCase& z, std::ostream* os) { *os << z.name; }
class AttnZeroSize : public ::testing::TestWithParam<ZeroCase> {};

TEST_P(AttnZeroSize, SucceedsWithTheDocumentedOutputs) {
  const ZeroCase& z = GetParam();
  for (int causal = 0; causal <= 1; ++causal) {
    abft_attention_desc d = base_desc();
    d.batch = z.batch, d.heads = z.heads, d.kv_heads = z.kv_heads, d.q_len = z.q_len, d.kv_len = z.kv_len;
    d.causal = causal;
    const int64_t D = d.head_dim;
    const size_t nO = size_t(d.batch * d.heads * d.q_len * D), nL = size_t(d.batch * d.heads * d.q_len);
    const size_t nK = size_t(d.batch * d.kv_heads * d.kv_len * D);
    Buffers b;
    abft::Handle h;
    abft_report rep{};
    ASSERT_EQ(abft_attention_forward(h.get(), ABFT_POLICY_CORRECT, &d, b.Q.data(), b.K.data(), b.V.data(),
                                     nullptr, b.O.data(), b.lse.data(), &rep),
              ABFT_STATUS_SUCCESS)
        << z.name << " causal=" << causal;
    EXPECT_EQ(rep.detected, 0u);
    // kv_len 0: every row has no key: O = 0, lse = -inf. Beyond the tensors: untouched.
    for (size_t t = 0; t < b.O.size(); ++t) {
      if (t < nO) ASSERT_EQ(b.O[t], 0.0f) << z.name << " O[" << t << "] = " << b.O[t];
      else ASSERT_TRUE(same_bits(b.O[t], kOutSentinel)) << z.name << " O[" << t << "] written";
    }
    for (size_t t = 0; t < b.lse.size(); ++t) {
      if (t < nL) ASSERT_EQ(b.lse[t], -std::numeric_limits<float>::infinity()) << z.name << " lse[" << t << "]";
      else ASSERT_TRUE(same_bits(b.lse[t], kOutSentinel)) << z.name << " lse[" << t << "] written";
    }
    // Backward from those outputs: every gradient element is zero (dQ of rows
    // without keys; dK, dV of keys no query sees), nothing beyond is written.
    ASSERT_EQ(abft_attention_backward(h.get(), ABFT_POLICY_CORRECT, &d, b.Q.data(), b.K.data(), b.V.data(),
                                      nullptr, b.O.data(), b.dO.data(), b.lse.data(), b.dQ.data(),
                                      b.dK.data(), b.dV.data(), &rep),
              ABFT_STATUS_SUCCESS)
        << z.name << " causal=" << causal;
    EXPECT_EQ(rep.detected, 0u);
    auto zero_then_sentinel = [&](const std::vector<float>& v, size_t n, const char* nm) {
      for (size_t t = 0; t < v.size(); ++t) {
        if (t < n) ASSERT_EQ(v[t], 0.0f) << z.name << " " << nm << "[" << t << "]";
        else ASSERT_TRUE(same_bits(v[t], kOutSentinel)) << z.name << " " << nm << "[" << t << "] written";
      }
    };
    zero_then_sentinel(b.dQ, nO, "dQ");
    zero_then_sentinel(b.dK, nK, "dK");
    zero_then_sentinel(b.dV, nK, "dV");
  }
}

INSTANTIATE_TEST_SUITE_P(Args, AttnZeroSize,
                         ::testing::Values(ZeroCase{"Batch0", 0, 4, 2, 9, 11},
                                           ZeroCase{"QLen0", 2, 4, 2, 0, 11},
                                           ZeroCase{"KvLen0", 2, 4, 2, 9, 0},
                                           ZeroCase{"QLen0KvLen0", 2, 4, 2, 0, 0},
                                           ZeroCase{"Heads0KvHeads0", 2, 0, 0, 9, 11}),
                         [](const ::testing::TestParamInfo<ZeroCase>& i) { return std::string(i.param.name); });

// ------------------------------------------------------------------ descriptor, info, stats
TEST(AttnArgs, DescInitDefaults) {
  for (int64_t hd : {1, 17, 64, 80, 128, 256}) {
    abft_attention_desc d;
    std::memset(&d, 0x5A, sizeof d);  // garbage in every field
    ASSERT_EQ(abft_attention_desc_init(&d, 3, 8, 2, 70, 130, hd), ABFT_STATUS_SUCCESS);
    EXPECT_EQ(d.batch, 3);
    EXPECT_EQ(d.heads, 8);
    EXPECT_EQ(d.kv_heads, 2);
    EXPECT_EQ(d.q_len, 70);
    EXPECT_EQ(d.kv_len, 130);
    EXPECT_EQ(d.head_dim, hd);
    EXPECT_EQ(d.causal, 0);
    // 1/sqrt(head_dim) to within an ulp of float (1/sqrtf or the rounded double).
    const double want = 1.0 / std::sqrt(double(hd));
    EXPECT_NEAR(double(d.scale), want, want * 1.2e-7) << "head_dim " << hd;
    // Contiguous: written out, or all zero (which the header defines as contiguous).
    auto contiguous = [](const int64_t s[4], int64_t d1, int64_t d2, int64_t d3) {
      const bool zeros = s[0] == 0 && s[1] == 0 && s[2] == 0 && s[3] == 0;
      const bool dense = s[0] == d1 * d2 * d3 && s[1] == d2 * d3 && s[2] == d3 && s[3] == 1;
      return zeros || dense;
    };
    EXPECT_TRUE(contiguous(d.q_strides, 8, 70, hd));
    EXPECT_TRUE(contiguous(d.o_strides, 8, 70, hd));
    EXPECT_TRUE(contiguous(d.k_strides, 2, 130, hd));
    EXPECT_TRUE(contiguous(d.v_strides, 2, 130, hd));
    EXPECT_TRUE(contiguous(d.mask_strides, 8, 70, 130));
  }
  EXPECT_EQ(abft_attention_desc_init(nullptr, 1, 1, 1, 1, 1, 64), ABFT_STATUS_NULL_POINTER);
}

TEST(AttnArgs, DescInitGivesTheSameResultAsExplicitStrides) {
  abft_attention_desc a, e;
  ASSERT_EQ(abft_attention_desc_init(&a, 2, 4, 2, 9, 11, 16), ABFT_STATUS_SUCCESS);
  e = a;
  const int64_t q[4] = {4 * 9 * 16, 9 * 16, 16, 1}, k[4] = {2 * 11 * 16, 11 * 16, 16, 1},
                m[4] = {4 * 9 * 11, 9 * 11, 11, 1};
  for (int i = 0; i < 4; ++i) {
    e.q_strides[i] = e.o_strides[i] = q[i];
    e.k_strides[i] = e.v_strides[i] = k[i];
    e.mask_strides[i] = m[i];
  }
  Buffers b1, b2;
  ASSERT_EQ(abft_attention_forward(nullptr, ABFT_POLICY_CORRECT, &a, b1.Q.data(), b1.K.data(), b1.V.data(),
                                   b1.M.data(), b1.O.data(), b1.lse.data(), nullptr),
            ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_attention_forward(nullptr, ABFT_POLICY_CORRECT, &e, b2.Q.data(), b2.K.data(), b2.V.data(),
                                   b2.M.data(), b2.O.data(), b2.lse.data(), nullptr),
            ABFT_STATUS_SUCCESS);
  EXPECT_EQ(std::memcmp(b1.O.data(), b2.O.data(), b1.O.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(b1.lse.data(), b2.lse.data(), b1.lse.size() * sizeof(float)), 0);
}

TEST(AttnArgs, KernelInfoIsNonEmpty) {
  const char* s = abft_attention_kernel_info();
  ASSERT_NE(s, nullptr);
  EXPECT_GT(std::strlen(s), 0u);
  std::printf("  abft_attention_kernel_info(): %s\n", s);
}

TEST(AttnArgs, StatsCountCallsPerKernel) {
  abft::Handle h;
  h.reset_stats();
  const abft_attention_desc d = base_desc();
  abft_counters sum_f{}, sum_b{};
  for (int i = 0; i < 3; ++i) {
    Buffers b;
    abft_report rep{};
    ASSERT_EQ(abft_attention_forward(h.get(), ABFT_POLICY_CORRECT, &d, b.Q.data(), b.K.data(), b.V.data(),
                                     nullptr, b.O.data(), b.lse.data(), &rep),
              ABFT_STATUS_SUCCESS);
    abft_test::add_report(&sum_f, rep);
    if (i < 2) {
      ASSERT_EQ(abft_attention_backward(h.get(), ABFT_POLICY_CORRECT, &d, b.Q.data(), b.K.data(),
                                        b.V.data(), nullptr, b.O.data(), b.dO.data(), b.lse.data(),
                                        b.dQ.data(), b.dK.data(), b.dV.data(), &rep),
                ABFT_STATUS_SUCCESS);
      abft_test::add_report(&sum_b, rep);
    }
  }
  abft_counters f{}, bw{}, sg{};
  ASSERT_EQ(abft_stats_get(h.get(), ABFT_KERNEL_ATTN_FWD, &f), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_stats_get(h.get(), ABFT_KERNEL_ATTN_BWD, &bw), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_stats_get(h.get(), ABFT_KERNEL_SGEMM, &sg), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(f.calls, 3u);
  EXPECT_EQ(bw.calls, 2u);
  EXPECT_EQ(sg.calls, 0u) << "attention calls counted as sgemm";
  EXPECT_GT(f.checks, 0u) << "policy CORRECT ran no check";
  EXPECT_GT(bw.checks, 0u) << "policy CORRECT ran no check";
  EXPECT_TRUE(abft_test::counters_match(f, sum_f)) << "forward";
  EXPECT_TRUE(abft_test::counters_match(bw, sum_b)) << "backward";
  EXPECT_STREQ(abft_kernel_name(ABFT_KERNEL_ATTN_FWD), "attn_fwd");
  EXPECT_STREQ(abft_kernel_name(ABFT_KERNEL_ATTN_BWD), "attn_bwd");
  // The text table names the rows.
  const std::string txt = h.stats_text();
  EXPECT_NE(txt.find("attn_fwd"), std::string::npos) << txt;
  EXPECT_NE(txt.find("attn_bwd"), std::string::npos) << txt;
  // Reset clears them.
  h.reset_stats();
  ASSERT_EQ(abft_stats_get(h.get(), ABFT_KERNEL_ATTN_FWD, &f), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(f.calls, 0u);
}

TEST(AttnArgs, PolicyOffRunsNoChecks) {
  const abft_attention_desc d = base_desc();
  Buffers b;
  abft_report rep{};
  rep.checks = 99;
  ASSERT_EQ(abft_attention_forward(nullptr, ABFT_POLICY_OFF, &d, b.Q.data(), b.K.data(), b.V.data(),
                                   nullptr, b.O.data(), b.lse.data(), &rep),
            ABFT_STATUS_SUCCESS);
  EXPECT_EQ(rep.checks, 0u);
  EXPECT_EQ(rep.detected, 0u);
}

// Workspace that cannot be allocated is a status, not an abort: the packs are
// allocated inside OpenMP regions, where an escaping exception would terminate.
TEST(AttnArgs, UnallocatableWorkspaceGivesAllocFailed) {
  std::vector<float> q(64, 1.0f), k(64, 1.0f), v(64, 1.0f), o(64, 0.0f), l(1, 0.0f);
  std::vector<float> dq(64, 0.0f), dk(64, 0.0f), dv(64, 0.0f);
  abft_attention_desc d;
  ASSERT_EQ(abft_attention_desc_init(&d, 1, 1, 1, 1, int64_t(1) << 40, 64), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_attention_forward(nullptr, ABFT_POLICY_CORRECT, &d, q.data(), k.data(), v.data(),
                                   nullptr, o.data(), l.data(), nullptr),
            ABFT_STATUS_ALLOC_FAILED);
  ASSERT_EQ(abft_attention_desc_init(&d, 1, 1, 1, int64_t(1) << 40, 1, 64), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_attention_backward(nullptr, ABFT_POLICY_CORRECT, &d, q.data(), k.data(), v.data(),
                                    nullptr, o.data(), o.data(), l.data(), dq.data(), dk.data(),
                                    dv.data(), nullptr),
            ABFT_STATUS_ALLOC_FAILED);
}

}  // namespace
