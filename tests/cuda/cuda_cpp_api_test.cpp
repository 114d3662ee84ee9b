/** \file cuda_cpp_api_test.cpp
 *  \brief The CUDA engine's C++ API (abft/cuda.hpp) passes arguments, statuses and ownership
 *  through to the C API unchanged: gemm::run (pointer and view forms, every element type) and
 *  run_strided_batched give the C calls' results bit for bit and their counts; the view form
 *  rejects layouts and shapes that disagree; fft::Plan (c2c, r2c, c2r, many) gives the C plans'
 *  results, moves, throws abft::Error on bad arguments and on an empty plan; attention forward
 *  and backward give the C calls' results and reject shapes and layouts that disagree. Argument
 *  checks run everywhere; the rest needs a device (or the CUDA emulator, tests/emu).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <random>
#include <vector>

#include "abft/cuda.hpp"
#include "cuda_test_util.hpp"

namespace {

using abft_test::DeviceBuffer;

template <class T>
std::vector<T> random_vector(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<T> v(n);
  for (T& x : v) x = T(u(g));
  return v;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TEST(CudaCppApi, BadArgumentsReturnOrThrowTheCStatus) {
  abft::Handle h;
  float x = 0;
  using abft::Layout;
  using abft::Op;
  namespace g = abft::cuda::gemm;
  // Views whose layouts or shapes disagree never reach the device.
  abft::MatrixView<const float> A{&x, 4, 3, 4, Layout::ColMajor}, B{&x, 3, 5, 3, Layout::ColMajor};
  abft::MatrixView<float> C{&x, 4, 5, 4, Layout::ColMajor}, Cr{&x, 4, 5, 5, Layout::RowMajor}, Cs{&x, 4, 6, 4};
  EXPECT_EQ(g::run<float>(&h, nullptr, Op::N, A, Op::N, B, Cr), ABFT_STATUS_INVALID_VALUE);
  EXPECT_EQ(g::run<float>(&h, nullptr, Op::N, A, Op::N, B, Cs), ABFT_STATUS_INVALID_SIZE);
  EXPECT_EQ(g::run<float>(nullptr, nullptr, Op::N, A, Op::N, B, C), ABFT_STATUS_NULL_POINTER);
  EXPECT_EQ(g::run_strided_batched<double>(&h, nullptr, Layout::ColMajor, Op::N, Op::N, 4, 4, 4, 1.0, nullptr, 4, 16,
                                           nullptr, 4, 16, 0.0, nullptr, 4, 15, 2),
            ABFT_STATUS_INVALID_VALUE);  // C's items overlap
  // Plans: the C statuses as abft::Error.
  namespace f = abft::cuda::fft;
  try {
    f::c2c<float>({0}, 1, f::Direction::Forward, &h);
    ADD_FAILURE() << "a plan of length 0 was made";
  } catch (const abft::Error& e) {
    EXPECT_EQ(e.status(), ABFT_STATUS_INVALID_SIZE);
  }
  EXPECT_THROW(f::c2c<double>({8, 8, 8, 8}, 1, f::Direction::Forward, &h), abft::Error);  // rank 4
  EXPECT_THROW(f::c2c<float>({}, 1, f::Direction::Forward, &h), abft::Error);
  f::C2CPlan<float> empty;
  EXPECT_FALSE(empty);
  try {
    empty.execute(nullptr, nullptr, nullptr);
    ADD_FAILURE() << "an empty plan executed";
  } catch (const abft::Error& e) {
    EXPECT_EQ(e.status(), ABFT_STATUS_NULL_POINTER);
  }
  // Attention: shapes that disagree.
  namespace at = abft::cuda::attention;
  using T4 = at::Tensor4<const __nv_bfloat16>;
  __nv_bfloat16 y{};
  const T4 Q = T4::contiguous(&y, 1, 2, 8, 64), K = T4::contiguous(&y, 1, 2, 9, 64), V = T4::contiguous(&y, 1, 2, 8, 64);
  at::Tensor4<__nv_bfloat16> O = at::Tensor4<__nv_bfloat16>::contiguous(&y, 1, 2, 8, 64);
  EXPECT_EQ(at::forward<__nv_bfloat16>(&h, nullptr, Q, K, V, O), ABFT_STATUS_INVALID_SIZE);  // V's length is not K's
  abft::cuda::release(h);
}

/** gemm::run and run_strided_batched against the C calls, bit for bit, and their counts. */
template <class T>
void check_gemm() {
  using S = abft::cuda::gemm::Scalar<T>;
  namespace g = abft::cuda::gemm;
  const int64_t m = 37, n = 29, k = 41, count = 3;
  const std::vector<T> hA = random_vector<T>(size_t(m * k * count), 1), hB = random_vector<T>(size_t(k * n * count), 2),
                       hC = random_vector<T>(size_t(m * n * count), 3);
  DeviceBuffer<T> A(hA), B(hB), C1(hC), C2(hC), C3(hC), C4(hC), C5(hC);
  abft::Handle h, hc;
  const S alpha = S(1.5), beta = S(-0.5);
  // Row-major, op(A) = A^T: A is k x m (ld m), B k x n (ld n), C m x n (ld n).
  ASSERT_EQ(g::run<T>(&h, nullptr, abft::Layout::RowMajor, abft::Op::T, abft::Op::N, m, n, k, alpha, A.p, m, B.p, n,
                      beta, C1.p, n),
            ABFT_STATUS_SUCCESS);
  abft::MatrixView<const T> Av{A.p, k, m, m, abft::Layout::RowMajor}, Bv{B.p, k, n, n, abft::Layout::RowMajor};
  abft::MatrixView<T> Cv{C2.p, m, n, n, abft::Layout::RowMajor};
  ASSERT_EQ(g::run<T>(&h, nullptr, abft::Op::T, Av, abft::Op::N, Bv, Cv, alpha, beta), ABFT_STATUS_SUCCESS);
  const abft::Report r = abft::cuda::sync(h);
  EXPECT_EQ(r.checks, uint64_t(2 * m));  // row-major: one check per row of C, per call
  EXPECT_EQ(r.detected, 0u);
  // The C call on another handle.
  abft_status cs;
  if constexpr (std::is_same<T, float>::value)
    cs = abft_cuda_sgemm(hc.get(), nullptr, ABFT_POLICY_DEFAULT, ABFT_ROW_MAJOR, ABFT_TRANS, ABFT_NO_TRANS, m, n, k,
                         alpha, A.p, m, B.p, n, beta, C3.p, n);
  else if constexpr (std::is_same<T, double>::value)
    cs = abft_cuda_dgemm(hc.get(), nullptr, ABFT_POLICY_DEFAULT, ABFT_ROW_MAJOR, ABFT_TRANS, ABFT_NO_TRANS, m, n, k,
                         alpha, A.p, m, B.p, n, beta, C3.p, n);
  else if constexpr (std::is_same<T, __half>::value)
    cs = abft_cuda_hgemm(hc.get(), nullptr, ABFT_POLICY_DEFAULT, ABFT_ROW_MAJOR, ABFT_TRANS, ABFT_NO_TRANS, m, n, k,
                         alpha, A.p, m, B.p, n, beta, C3.p, n);
  else
    cs = abft_cuda_bf16gemm(hc.get(), nullptr, ABFT_POLICY_DEFAULT, ABFT_ROW_MAJOR, ABFT_TRANS, ABFT_NO_TRANS, m, n, k,
                            alpha, A.p, m, B.p, n, beta, C3.p, n);
  ASSERT_EQ(cs, ABFT_STATUS_SUCCESS);
  const size_t one = size_t(m * n);
  const std::vector<T> c1 = C1.get(one), c2 = C2.get(one), c3 = C3.get(one);
  EXPECT_TRUE(same_bits(c1, c3));
  EXPECT_TRUE(same_bits(c2, c3));
  // A strided batch of three, column-major, no transposes; item 0 equals the single call.
  ASSERT_EQ(g::run_strided_batched<T>(&h, nullptr, abft::Layout::ColMajor, abft::Op::N, abft::Op::N, m, n, k, alpha,
                                      A.p, m, m * k, B.p, k, k * n, beta, C4.p, m, m * n, count, abft::Policy::Correct),
            ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft::cuda::sync(h).checks, uint64_t(count * n));
  ASSERT_EQ(g::run<T>(&hc, nullptr, abft::Layout::ColMajor, abft::Op::N, abft::Op::N, m, n, k, alpha, A.p, m, B.p, k,
                      beta, C5.p, m),
            ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(same_bits(C4.get(one), C5.get(one)));
  abft::cuda::release(h);
  abft::cuda::release(hc);
}

TEST(CudaCppApi, GemmFormsGiveTheCCallsResults) {
  REQUIRE_DEVICE();
  check_gemm<float>();
  check_gemm<double>();
  check_gemm<__half>();
  check_gemm<__nv_bfloat16>();
}

TEST(CudaCppApi, FftPlansGiveTheCPlansResults) {
  REQUIRE_DEVICE();
  namespace f = abft::cuda::fft;
  using cf = std::complex<float>;
  abft::Handle h;
  const int64_t n = 48, batch = 3;
  // C2C through the C++ plan and the C plan, on one input.
  std::vector<cf> hin(size_t(n * batch));
  std::mt19937_64 g(4);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (cf& z : hin) z = cf(u(g), u(g));
  DeviceBuffer<cf> in(hin), out1(hin), out2(hin);
  f::C2CPlan<float> p = f::c2c<float>({n}, batch, f::Direction::Forward, &h);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p.sums() == f::Sums::Callbacks || p.sums() == f::Sums::Passes);
  if (p.sums() == f::Sums::Callbacks) EXPECT_EQ(p.callback_refusal().first, "");
  p.execute(nullptr, in.p, out1.p);
  abft_cuda_fft_plan_t cp = nullptr;
  ASSERT_EQ(abft_cuda_fft_plan_1d(&cp, h.get(), ABFT_PRECISION_FLOAT, ABFT_FFT_C2C, n, -1, batch), ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_cuda_fft_execute(cp, nullptr, in.p, out2.p), ABFT_STATUS_SUCCESS);
  abft_cuda_fft_destroy(cp);
  EXPECT_TRUE(same_bits(out1.get(hin.size()), out2.get(hin.size())));
  const abft::Report r = abft::cuda::sync(h);
  EXPECT_EQ(r.detected, 0u);
  EXPECT_GE(r.checks, uint64_t(2 * batch));
  // Moves: the plan goes with the object.
  f::C2CPlan<float> q = std::move(p);
  EXPECT_FALSE(p);
  ASSERT_TRUE(q);
  q.set_policy(abft::Policy::Off);
  q.execute(nullptr, in.p, out2.p);
  EXPECT_EQ(abft::cuda::sync(h).checks, 0u);  // policy off: nothing checked
  // R2C then C2R of a real batch (double), through many() with explicit packed sides: the round
  // trip gives n times the input.
  std::vector<double> hr(size_t(n * batch));
  for (double& x : hr) x = u(g);
  DeviceBuffer<double> rin(hr), rback(hr);
  DeviceBuffer<std::complex<double>> spec(std::vector<std::complex<double>>(size_t((n / 2 + 1) * batch)));
  auto fwd = f::many<double, std::complex<double>>({n}, batch, f::Side{}, f::Side{}, f::Direction::Forward, &h);
  auto inv = f::c2r<double>({n}, batch, &h);
  fwd.execute(nullptr, rin.p, spec.p);
  inv.execute(nullptr, spec.p, rback.p);
  const std::vector<double> back = rback.get(hr.size());
  for (size_t i = 0; i < hr.size(); ++i) EXPECT_NEAR(back[i], double(n) * hr[i], 1e-10) << i;
  EXPECT_EQ(abft::cuda::sync(h).detected, 0u);
  // The same round trip in 2D (float): the R2C's spectrum is Hermitian in its self-conjugate
  // planes only to rounding; the C2R checks it and gives n0 n1 times the input.
  const int64_t n0 = 12, n1 = 20, b2 = 3;
  std::vector<float> h2(size_t(n0 * n1 * b2));
  for (float& x : h2) x = float(u(g));
  DeviceBuffer<float> r2(h2), back2(h2);
  DeviceBuffer<std::complex<float>> spec2(std::vector<std::complex<float>>(size_t(n0 * (n1 / 2 + 1) * b2)));
  auto fwd2 = f::many<float, std::complex<float>>({n0, n1}, b2, f::Side{}, f::Side{}, f::Direction::Forward, &h);
  auto inv2 = f::c2r<float>({n0, n1}, b2, &h);
  fwd2.execute(nullptr, r2.p, spec2.p);
  inv2.execute(nullptr, spec2.p, back2.p);
  const std::vector<float> got2 = back2.get(h2.size());
  for (size_t i = 0; i < h2.size(); ++i) EXPECT_NEAR(got2[i], float(n0 * n1) * h2[i], 2e-3) << i;
  const abft::Report r2c2r = abft::cuda::sync(h);
  EXPECT_EQ(r2c2r.checks, uint64_t(2 * b2));
  EXPECT_EQ(r2c2r.detected, 0u);
  abft::cuda::release(h);
}

/** attention::forward and backward against the C calls, bit for bit, in T. */
template <class T>
void check_attention() {
  namespace at = abft::cuda::attention;
  const int64_t b = 1, hq = 4, hk = 2, lq = 40, lk = 56, dh = 64;
  const size_t nq = size_t(b * hq * lq * dh), nk = size_t(b * hk * lk * dh);
  const std::vector<T> hQ = random_vector<T>(nq, 5), hK = random_vector<T>(nk, 6), hV = random_vector<T>(nk, 7),
                       hdO = random_vector<T>(nq, 8);
  DeviceBuffer<T> Q(hQ), K(hK), V(hV), dO(hdO), O1(hQ), O2(hQ), dQ1(hQ), dQ2(hQ), dK1(hK), dK2(hK), dV1(hK), dV2(hK);
  DeviceBuffer<float> lse1(std::vector<float>(size_t(b * hq * lq))), lse2(std::vector<float>(size_t(b * hq * lq)));
  abft::Handle h;
  using CT = at::Tensor4<const T>;
  using MT = at::Tensor4<T>;
  at::Options opt;
  opt.causal = true;
  const CT tq = CT::contiguous(Q.p, b, hq, lq, dh), tk = CT::contiguous(K.p, b, hk, lk, dh),
           tv = CT::contiguous(V.p, b, hk, lk, dh), tdo = CT::contiguous(dO.p, b, hq, lq, dh);
  ASSERT_EQ(at::forward<T>(&h, nullptr, tq, tk, tv, MT::contiguous(O1.p, b, hq, lq, dh), lse1.p, nullptr, opt),
            ABFT_STATUS_SUCCESS);
  ASSERT_EQ(at::backward<T>(&h, nullptr, tq, tk, tv, CT::contiguous(O1.p, b, hq, lq, dh), tdo, lse1.p,
                            MT::contiguous(dQ1.p, b, hq, lq, dh), MT::contiguous(dK1.p, b, hk, lk, dh),
                            MT::contiguous(dV1.p, b, hk, lk, dh), nullptr, opt),
            ABFT_STATUS_SUCCESS);
  const abft::Report r = abft::cuda::sync(h);
  EXPECT_EQ(r.detected, 0u);
  EXPECT_GT(r.checks, 0u);
  // Gradients laid out unlike what they differentiate: refused.
  MT bad = MT::contiguous(dQ2.p, b, hq, lq, dh);
  bad.stride[2] = 2 * dh;
  EXPECT_EQ(at::backward<T>(&h, nullptr, tq, tk, tv, CT::contiguous(O1.p, b, hq, lq, dh), tdo, lse1.p, bad,
                            MT::contiguous(dK2.p, b, hk, lk, dh), MT::contiguous(dV2.p, b, hk, lk, dh), nullptr, opt),
            ABFT_STATUS_INVALID_LD);
  // The C calls.
  abft_attention_desc d;
  ASSERT_EQ(abft_attention_desc_init(&d, b, hq, hk, lq, lk, dh), ABFT_STATUS_SUCCESS);
  d.causal = 1;
  const abft_cuda_dtype dt = std::is_same<T, float>::value ? ABFT_CUDA_FLOAT
                             : std::is_same<T, __half>::value ? ABFT_CUDA_HALF
                                                              : ABFT_CUDA_BFLOAT16;
  ASSERT_EQ(abft_cuda_attention_forward(h.get(), nullptr, ABFT_POLICY_DEFAULT, &d, dt, Q.p, K.p, V.p, nullptr, O2.p,
                                        lse2.p),
            ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_cuda_attention_backward(h.get(), nullptr, ABFT_POLICY_DEFAULT, &d, dt, Q.p, K.p, V.p, nullptr, O2.p,
                                         dO.p, lse2.p, dQ2.p, dK2.p, dV2.p),
            ABFT_STATUS_SUCCESS);
  abft::cuda::sync(h);
  EXPECT_TRUE(same_bits(O1.get(nq), O2.get(nq)));
  EXPECT_TRUE(same_bits(lse1.get(size_t(b * hq * lq)), lse2.get(size_t(b * hq * lq))));
  EXPECT_TRUE(same_bits(dQ1.get(nq), dQ2.get(nq)));
  EXPECT_TRUE(same_bits(dK1.get(nk), dK2.get(nk)));
  EXPECT_TRUE(same_bits(dV1.get(nk), dV2.get(nk)));
  abft::cuda::release(h);
}

TEST(CudaCppApi, AttentionGivesTheCCallsResults) {
  REQUIRE_DEVICE();
  check_attention<float>();
  check_attention<__nv_bfloat16>();
}

}  // namespace
