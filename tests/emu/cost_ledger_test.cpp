/** \file cost_ledger_test.cpp
 *  \brief What the GPU engine asks of the device, call by call, read on the CUDA emulator's
 *  ledger (tests/emu/cuda_emu.hpp): the cost structure the GPU's timings rest on, checked in
 *  every CI run where no GPU is. Each fault-free protected call, once warm:
 *   - never waits for the device, allocates nothing and copies nothing (issue 9: "the
 *     fault-free path adds no host synchronization"); abft_cuda_sync waits once;
 *   - GEMM: one cuBLAS product and 2 launches of its own (3 when op(B) = B^T, whose sums are
 *     weighted by op(A)'s encoding);
 *     its kernels read each of A, B and C once (C0 once more with beta != 0, and write its
 *     backup), by the 4 KiB pages they touch; a strided batch launches as one product does;
 *   - FFT: one cuFFT execution; with the sums in cuFFT's callbacks the engine's own kernels
 *     touch none of the batch; in passes, they read the input and the output once each;
 *   - attention: the protected forward and backward launch the unprotected kernels plus the
 *     key-sums pre-pass, which reads K and V once;
 *   - the transformer runtime's resident pass: no launch to move counters (each call counts
 *     into its own ledger snapshot), one wait at the pass's end, the ids in and the loss,
 *     counters and flags out — no parameter-sized array crosses a training step.
 *  And the ledger itself: the pages a launch touches, waits, copies by direction.
 */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "abft/abft.h"
#include "abft/abft_cuda.h"
#include "abft/attention.h"
#include "abft/transformer/error.hpp"
#include "abft/transformer/model.hpp"
#include "abft/transformer/train.hpp"
#include "model_reference.hpp"
#include "scoped_env.hpp"

namespace at = abft::transformer;
using abft_emu::Ledger;

namespace {

/** A device array of n elements, filled with a fixed pattern; freed with the object. */
template <class T>
struct Dev {
  T* p = nullptr;
  size_t n;
  explicit Dev(size_t count) : n(count) {
    std::vector<T> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = T(float(int(i * 37 % 101) - 50) / 64.0f);
    EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess);
    cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  }
  ~Dev() { cudaFree(p); }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
  size_t pages() const { return abft_emu::pages_spanned(p, n * sizeof(T)); }
};

/** The ledger of f() (pages counted). */
template <class F>
Ledger ledger_of(F&& f) {
  abft_emu::ledger_begin(true);
  f();
  return abft_emu::ledger_end();
}

/** Launches from the engine's own sources (cuda/...), not the emulated libraries'. */
constexpr const char* kEngine = "/cuda/";

/** With ABFT_LEDGER_PRINT=1, one line of the ledger per measured call on stdout (the table of
 *  docs/PERFORMANCE.md, "What a call asks of the device"). */
void report(const std::string& what, const Ledger& l, size_t operand_pages = 0) {
  const char* e = std::getenv("ABFT_LEDGER_PRINT");
  if (!e || e[0] != '1') return;
  std::printf("| %s | %d | %d | %d | %d | %zu | %zu | %zu | %zu | %zu |\n", what.c_str(), l.launches_from(kEngine),
              l.blas_calls + l.fft_calls, l.host_waits, l.memsets, l.pages_read(kEngine), l.pages_written(kEngine),
              operand_pages, l.bytes_h2d, l.bytes_d2h);
}

/** Nothing that waits for the device, allocates or copies. */
void expect_quiet(const Ledger& l, const std::string& what) {
  EXPECT_EQ(l.host_waits, 0) << what;
  EXPECT_EQ(l.allocations, 0) << what;
  EXPECT_EQ(l.frees, 0) << what;
  EXPECT_EQ(l.copies, 0) << what;
  EXPECT_EQ(l.memsets, 0) << what;
}

// ------------------------------------------------------------------------------- the ledger

TEST(CostLedger, CountsPagesWaitsAndCopies) {
  Dev<float> a(8 * 1024), b(8 * 1024);  // 32 KiB each: 8 pages (9 when not page-aligned)
  float* pa = a.p;
  float* pb = b.p;
  // A launch reading a's first 4 pages and writing b's last 2: as many pages counted, however
  // many threads touch them.
  const Ledger l = ledger_of([&] {
    abft_emu::launch(abft_emu::cfg(dim3(4), dim3(64)), [&] {
      const unsigned t = blockIdx.x * 64 + threadIdx.x;  // 256 threads over 4096 floats: 16 each
      float s = 0;
      for (unsigned i = t; i < 4096; i += 256) s += pa[i];
      pb[8 * 1024 - 1 - (t % 2) * 1024] = s;
    });
  });
  ASSERT_EQ(l.launches.size(), 1u);
  EXPECT_EQ(l.launches[0].pages_read, abft_emu::pages_spanned(pa, 4096 * sizeof(float)));
  EXPECT_EQ(l.launches[0].pages_written, 2u);
  EXPECT_EQ(l.launches[0].blocks, 4u);
  EXPECT_EQ(l.launches[0].threads, 64u);
  // Copies by direction and what waits: synchronous copies, and asynchronous ones to or from
  // pageable memory; not those between the device and page-locked memory.
  std::vector<float> pageable(1024);
  float* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, 1024 * sizeof(float)), cudaSuccess);
  const Ledger c = ledger_of([&] {
    cudaMemcpy(pageable.data(), pa, 4096, cudaMemcpyDeviceToHost);           // waits
    cudaMemcpyAsync(pinned, pa, 4096, cudaMemcpyDeviceToHost, nullptr);       // does not
    cudaMemcpyAsync(pageable.data(), pa, 4096, cudaMemcpyDeviceToHost, nullptr);  // waits
    cudaMemcpyAsync(pb, pinned, 1024, cudaMemcpyHostToDevice, nullptr);       // does not
    cudaMemcpyAsync(pb, pageable.data(), 1024, cudaMemcpyDefault, nullptr);   // may wait: counted
    cudaMemcpyAsync(pb, pa, 512, cudaMemcpyDefault, nullptr);                 // device to device
    cudaMemsetAsync(pb, 0, 64, nullptr);
    cudaStreamSynchronize(nullptr);                                           // waits
  });
  EXPECT_EQ(c.copies, 6);
  EXPECT_EQ(c.host_waits, 4);
  EXPECT_EQ(c.bytes_d2h, 3u * 4096);
  EXPECT_EQ(c.bytes_h2d, 2048u);
  EXPECT_EQ(c.bytes_d2d, 512u);
  EXPECT_EQ(c.memsets, 1);
  EXPECT_TRUE(c.launches.empty());
  cudaFreeHost(pinned);
}

// ------------------------------------------------------------------------------------- GEMM

/** One protected call of each layout, transpose pair and beta (float and bfloat16), warm. */
template <class T>
void check_gemm_structure(const char* type) {
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  const int64_t m = 384, n = 256, k = 320;
  Dev<T> A(m * k), B(k * n), C(m * n);
  for (abft_layout lay : {ABFT_COL_MAJOR, ABFT_ROW_MAJOR})
    for (int t = 0; t < 4; ++t)
      for (float beta : {0.0f, 0.5f}) {
        const abft_op ta = t & 1 ? ABFT_TRANS : ABFT_NO_TRANS, tb = t & 2 ? ABFT_TRANS : ABFT_NO_TRANS;
        const bool col = lay == ABFT_COL_MAJOR;
        // Stored shapes: op(A) is m x k, op(B) k x n.
        const int64_t lda = col ? (ta == ABFT_NO_TRANS ? m : k) : (ta == ABFT_NO_TRANS ? k : m);
        const int64_t ldb = col ? (tb == ABFT_NO_TRANS ? k : n) : (tb == ABFT_NO_TRANS ? n : k);
        const int64_t ldc = col ? m : n;
        auto call = [&] {
          abft_status s;
          if constexpr (std::is_same<T, float>::value)
            s = abft_cuda_sgemm(h, nullptr, ABFT_POLICY_CORRECT, lay, ta, tb, m, n, k, 1.0f, A.p, lda, B.p, ldb,
                                beta, C.p, ldc);
          else
            s = abft_cuda_bf16gemm(h, nullptr, ABFT_POLICY_CORRECT, lay, ta, tb, m, n, k, 1.0f, A.p, lda, B.p, ldb,
                                   beta, C.p, ldc);
          ASSERT_EQ(s, ABFT_STATUS_SUCCESS);
        };
        call();  // warm: the handle's state and workspace
        const Ledger l = ledger_of(call);
        const std::string what = std::string(type) + (col ? " col" : " row") + "-major " +
                                 (ta == ABFT_TRANS ? "T" : "N") + (tb == ABFT_TRANS ? "T" : "N") +
                                 " beta " + std::to_string(beta);
        expect_quiet(l, what);
        report(what, l, A.pages() + B.pages() + C.pages());
        EXPECT_EQ(l.blas_calls, 1) << what;
        // In the column-major view the engine works in, a row-major call swaps the operands
        // and their transposes. Its launches: the encoding (the line sums of op(A)'s columns,
        // or the strided sums of A^T), which also sums C0 when beta != 0, the strided sums of
        // B^T when op(B) = B^T (weighted by the encoding: a launch after it), and one check.
        const bool bt_ = col ? tb == ABFT_TRANS : ta == ABFT_TRANS;
        const int expected = 2 + (bt_ ? 1 : 0);
        EXPECT_EQ(l.launches_from(kEngine), expected) << what;
        EXPECT_EQ(int(l.launches.size()), expected) << what;
        // Every operand read, none twice: the pages the engine's kernels read are A's, B's and
        // C's (C0's once more with beta != 0), plus its few pages of sums.
        const size_t once = A.pages() + B.pages() + C.pages(), again = beta != 0.0f ? C.pages() : 0;
        EXPECT_GE(l.pages_read(kEngine), once + again) << what;
        EXPECT_LE(l.pages_read(kEngine), once + again + 16) << what;
        // Written: the sums (with transposed operands, a tile's partial sums), the verdicts;
        // with beta != 0 C0's backup (for the repair).
        EXPECT_LE(l.pages_written(kEngine), (beta != 0.0f ? C.pages() : 0) + 32) << what;
      }
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

TEST(CostLedger, GemmReadsEachOperandOnceAndNeverWaits) {
  check_gemm_structure<float>("sgemm");
  check_gemm_structure<__nv_bfloat16>("bf16gemm");
}

TEST(CostLedger, StridedBatchLaunchesAsOneProduct) {
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  const int64_t m = 128, n = 64, k = 96, count = 12;
  Dev<float> A(m * k * count), B(k * n * count), C(m * n * count);
  auto batch = [&](int64_t items) {
    return ledger_of([&] {
      EXPECT_EQ(abft_cuda_sgemm_strided_batched(h, nullptr, ABFT_POLICY_CORRECT, ABFT_ROW_MAJOR, ABFT_NO_TRANS,
                                                ABFT_TRANS, m, n, k, 1.0f, A.p, k, m * k, B.p, k, n * k, 0.0f, C.p, n,
                                                m * n, items),
                ABFT_STATUS_SUCCESS);
    });
  };
  batch(count);  // warm
  const Ledger two = batch(2), all = batch(count);
  expect_quiet(all, "strided batch");
  report("sgemm strided batch of 12, NT", all, A.pages() + B.pages() + C.pages());
  EXPECT_EQ(all.blas_calls, 1);
  EXPECT_EQ(all.launches.size(), two.launches.size()) << "launches do not grow with the batch";
  EXPECT_LE(all.launches.size(), 4u);
  EXPECT_GE(all.pages_read(kEngine), A.pages() + B.pages() + C.pages() - 3);
  EXPECT_LE(all.pages_read(kEngine), A.pages() + B.pages() + C.pages() + 16);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

TEST(CostLedger, ReadingTheCountersWaitsOnce) {
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  Dev<float> A(64 * 64), B(64 * 64), C(64 * 64);
  ASSERT_EQ(abft_cuda_sgemm(h, nullptr, ABFT_POLICY_CORRECT, ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 64, 64, 64,
                            1.0f, A.p, 64, B.p, 64, 0.0f, C.p, 64),
            ABFT_STATUS_SUCCESS);
  abft_report r{};
  const Ledger l = ledger_of([&] { EXPECT_EQ(abft_cuda_sync(h, nullptr, &r), ABFT_STATUS_SUCCESS); });
  EXPECT_EQ(r.checks, 64u);
  report("abft_cuda_sync", l);
  EXPECT_EQ(l.host_waits, 1);
  EXPECT_EQ(l.launches.size(), 1u) << "the counters taken in one launch";
  EXPECT_EQ(l.copies, 1);
  EXPECT_EQ(l.bytes_d2h, abft_cuda_counters_bytes());
  // Counting into a snapshot is a host-side setting.
  Dev<unsigned char> snap(abft_cuda_counters_bytes());
  const Ledger s = ledger_of([&] {
    EXPECT_EQ(abft_cuda_count_into(h, snap.p), ABFT_STATUS_SUCCESS);
    EXPECT_EQ(abft_cuda_count_into(h, nullptr), ABFT_STATUS_SUCCESS);
  });
  EXPECT_TRUE(s.launches.empty());
  expect_quiet(s, "count_into");
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

// -------------------------------------------------------------------------------------- FFT

TEST(CostLedger, FftSumsRideOnTheTransformOrReadEachSideOnce) {
  const int64_t n = 1024, batch = 48;
  for (const char* sums : {"callbacks", "passes"})
    for (abft_fft_kind kind : {ABFT_FFT_C2C, ABFT_FFT_R2C}) {
      abft_test::ScopedEnv env("ABFT_CUDA_FFT_SUMS", sums);
      const std::string what = std::string(sums) + (kind == ABFT_FFT_C2C ? " c2c" : " r2c");
      const size_t in_floats = size_t(kind == ABFT_FFT_C2C ? 2 * n : n) * batch;
      const size_t out_floats = size_t(2 * (kind == ABFT_FFT_C2C ? n : n / 2 + 1)) * batch;
      Dev<float> in(in_floats), out(out_floats);
      abft_cuda_fft_plan_t p = nullptr;
      ASSERT_EQ(abft_cuda_fft_plan_1d(&p, nullptr, ABFT_PRECISION_FLOAT, kind, n, -1, batch), ABFT_STATUS_SUCCESS);
      abft_cuda_fft_sums got;
      ASSERT_EQ(abft_cuda_fft_get_sums(p, &got), ABFT_STATUS_SUCCESS);
      const bool callbacks = std::string(sums) == "callbacks";
      ASSERT_EQ(got, callbacks ? ABFT_CUDA_FFT_SUMS_CALLBACKS : ABFT_CUDA_FFT_SUMS_PASSES) << what;
      ASSERT_EQ(abft_cuda_fft_execute(p, nullptr, in.p, out.p), ABFT_STATUS_SUCCESS);  // warm
      const Ledger l = ledger_of([&] { ASSERT_EQ(abft_cuda_fft_execute(p, nullptr, in.p, out.p), ABFT_STATUS_SUCCESS); });
      EXPECT_EQ(l.host_waits, 0) << what;
      EXPECT_EQ(l.allocations + l.frees + l.copies, 0) << what;
      report("fft " + what, l, in.pages() + out.pages());
      EXPECT_EQ(l.fft_calls, 1) << what;
      const int launches = l.launches_from(kEngine);
      const size_t read = l.pages_read(kEngine);
      if (callbacks) {
        // The sums are taken by cuFFT's own kernels as they load and store: the engine's
        // launches — the verdicts, and the repair with its re-check, whose blocks return at once
        // when nothing failed (the gate, opened by the first call, stays open for calls of its
        // sign) — read its sums and verdicts, not the batch.
        EXPECT_EQ(launches, 2) << what;
        EXPECT_EQ(l.memsets, 0) << what;
        EXPECT_LT(read, (in.pages() + out.pages()) / 8) << what;
      } else {
        // The input side's and the output side's passes, the verdicts, the repair with its
        // re-check; the sums cleared first.
        EXPECT_EQ(launches, 4) << what;
        EXPECT_EQ(l.memsets, 1) << what;
        EXPECT_GE(read, in.pages() + out.pages()) << what;
        EXPECT_LE(read, in.pages() + out.pages() + 16) << what;
      }
      abft_cuda_fft_destroy(p);
    }
}

// -------------------------------------------------------------------------------- attention

TEST(CostLedger, AttentionChecksAddTheKeySumsPrepassAlone) {
  abft_handle_t h = nullptr;
  ASSERT_EQ(abft_handle_create(&h), ABFT_STATUS_SUCCESS);
  abft_attention_desc d;
  ASSERT_EQ(abft_attention_desc_init(&d, 2, 4, 2, 192, 192, 64), ABFT_STATUS_SUCCESS);  // GQA
  const size_t nq = 2 * 4 * 192 * 64, nk = 2 * 2 * 192 * 64;
  Dev<float> Q(nq), K(nk), V(nk), O(nq), lse(2 * 4 * 192);
  // The ledgers of one call under policy off and one under correct, after a warm one.
  auto off_and_on = [](auto&& call) {
    call(ABFT_POLICY_CORRECT);
    Ledger off = ledger_of([&] { call(ABFT_POLICY_OFF); });
    return std::make_pair(std::move(off), ledger_of([&] { call(ABFT_POLICY_CORRECT); }));
  };
  const auto [off, on] = off_and_on([&](abft_policy pol) {
    ASSERT_EQ(abft_cuda_attention_forward(h, nullptr, pol, &d, ABFT_CUDA_FLOAT, Q.p, K.p, V.p, nullptr, O.p, lse.p),
              ABFT_STATUS_SUCCESS);
  });
  expect_quiet(on, "attention forward");
  report("attention forward f32, policy off", off, Q.pages() + K.pages() + V.pages() + O.pages());
  report("attention forward f32, policy correct", on, Q.pages() + K.pages() + V.pages() + O.pages());
  EXPECT_EQ(on.launches.size(), off.launches.size() + 1) << "the pre-pass";
  EXPECT_LE(on.pages_read(kEngine), off.pages_read(kEngine) + K.pages() + V.pages() + 16);
  EXPECT_LE(on.pages_written(kEngine), off.pages_written(kEngine) + 16);
  // The backward likewise: its two kernels (dK/dV, dQ) and the pre-pass.
  Dev<float> dO(nq), dQ(nq), dK(nk), dV(nk);
  const auto [boff, bon] = off_and_on([&](abft_policy pol) {
    ASSERT_EQ(abft_cuda_attention_backward(h, nullptr, pol, &d, ABFT_CUDA_FLOAT, Q.p, K.p, V.p, nullptr, O.p, dO.p,
                                           lse.p, dQ.p, dK.p, dV.p),
              ABFT_STATUS_SUCCESS);
  });
  expect_quiet(bon, "attention backward");
  report("attention backward f32, policy off", boff, Q.pages() + K.pages() + V.pages() + O.pages());
  report("attention backward f32, policy correct", bon, Q.pages() + K.pages() + V.pages() + O.pages());
  EXPECT_EQ(bon.launches.size(), boff.launches.size() + 1) << "the pre-pass";
  EXPECT_LE(bon.pages_read(kEngine), boff.pages_read(kEngine) + 2 * (K.pages() + V.pages()) + 16);
  abft_cuda_release(h);
  abft_handle_destroy(h);
}

// ------------------------------------------------------------------ the runtime's resident pass

at::ModelOptions gpu_options() {
  at::ModelOptions o;
  o.engine = at::Engine::Gpu;
  return o;
}

TEST(CostLedger, ResidentTrainingStepWaitsAtItsEndAndMovesNoWeights) {
  const at::Config c = at::preset("gpt2-tiny");
  at::Model m(c, gpu_options());
  reftest::randomize(m.weights(), 5);
  const std::vector<int32_t> stream = reftest::random_tokens(4000, c.vocab, 7);
  at::TokenLoader loader(stream, 3);
  at::TrainOptions o;
  o.batch = 2;
  o.seq = 16;
  at::Trainer tr(m, loader, o);
  tr.step();  // warm
  at::StepResult r;
  const Ledger l = ledger_of([&] { r = tr.step(); });
  EXPECT_GT(r.stats.total().checks, 0u);
  report("runtime: gpt2-tiny training step (2 x 16 tokens)", l);
  // No launch moves counters: every protected call counted into its own snapshot.
  EXPECT_EQ(l.launches_from("device_state.cu"), 0);
  EXPECT_EQ(l.allocations, 0);
  EXPECT_EQ(l.frees, 0);
  // Two waits: the pass's end (ledger, flags and loss in one) and AdamW's norm before the update.
  EXPECT_EQ(l.host_waits, 2);
  // In: the tokens, positions and targets; out: no parameter-sized array (the gradient and the
  // update stay on the device) — the ledger's snapshots, the flags, the loss, the norm's sums.
  const size_t ids = 3 * size_t(o.batch * o.seq) * sizeof(int32_t);
  EXPECT_EQ(l.bytes_h2d, ids);
  EXPECT_LT(l.bytes_d2h, m.weights().size() * sizeof(float) / 4);
  EXPECT_EQ(l.bytes_d2d, 0u);
  // What the checks add to the step: the same step with policy off (the products plain cuBLAS,
  // attention without its chain; the pointwise ops' invariant checks are in their kernels).
  m.set_policy(abft::Policy::Off);
  tr.step();
  const Ledger off = ledger_of([&] { tr.step(); });
  report("runtime: the same step, policy off", off);
  EXPECT_EQ(off.blas_calls, l.blas_calls);
  EXPECT_EQ(off.host_waits, l.host_waits);
  // Per product 2 launches of checks (3 with op(B) = B^T), per attention call the key-sums
  // pre-pass: at most 3 a protected call more than the unprotected step.
  EXPECT_LE(l.launches.size(), off.launches.size() + 3 * size_t(l.blas_calls + 4));
}

TEST(CostLedger, ResidentPassAfterOneThatThrewCountsItsOwnCalls) {
  const at::Config c = at::preset("gpt2-tiny");
  at::Model m(c, gpu_options());
  reftest::randomize(m.weights(), 9);
  const int64_t B = 1, T = 8;
  const std::vector<int32_t> tok = reftest::random_tokens(B * T, c.vocab, 11);
  std::vector<int32_t> tgt = reftest::random_tokens(B * T, c.vocab, 12);
  std::vector<float> g(m.weights().size());
  const double clean = m.loss(tok.data(), tgt.data(), B, T, g.data(), 1.0f, true);
  const at::RunStats s0 = m.stats();
  // A pass that throws after it began (a target outside the vocabulary).
  std::vector<int32_t> bad = tgt;
  bad[3] = int32_t(c.vocab);
  EXPECT_THROW(m.loss(tok.data(), bad.data(), B, T, g.data(), 1.0f, true), at::Error);
  const at::RunStats s1 = m.stats();
  const double again = m.loss(tok.data(), tgt.data(), B, T, g.data(), 1.0f, true);
  EXPECT_DOUBLE_EQ(again, clean);
  const at::RunStats s2 = m.stats();
  // The second clean pass counted exactly what the first did.
  const at::OpCounters a = s0.total(), b = s2.total(), mid = s1.total();
  EXPECT_EQ(b.checks - mid.checks, a.checks);
  EXPECT_EQ(b.calls - mid.calls, a.calls);
  EXPECT_EQ(b.detected, 0u);
}

TEST(CostLedger, ResidentDecodeStepMovesIdsInAndLogitsOut) {
  const at::Config c = at::preset("gpt2-demo");  // (weights of 3 MB: their pages stand out)
  at::Model m(c, gpu_options());
  reftest::randomize(m.weights(), 13);
  at::KVCache cache(c, 2, 32);
  const std::vector<int32_t> a = reftest::random_tokens(6, c.vocab, 14), b = reftest::random_tokens(3, c.vocab, 15);
  std::vector<float> logits(2 * size_t(c.vocab));
  // A caller's decoding loop holds the weights on the device across its calls (as generate()
  // does); without a hold each call would copy them.
  const at::Model::WeightsOnDevice held = m.hold_weights_on_device();
  m.decode(cache, {{0, a.data(), 5}, {1, b.data(), 2}}, logits.data());  // prefill (warm)
  const Ledger l = ledger_of([&] { m.decode(cache, {{0, a.data() + 5, 1}, {1, b.data() + 2, 1}}, logits.data()); });
  report("runtime: gpt2-demo decode step (2 sequences)", l);
  EXPECT_EQ(l.launches_from("device_state.cu"), 0);
  EXPECT_EQ(l.allocations, 0);
  // The logits' copy back and the pass's end.
  EXPECT_LE(l.host_waits, 2);
  EXPECT_EQ(l.bytes_h2d, 2 * 2 * sizeof(int32_t));  // two tokens and their positions
  EXPECT_LE(l.bytes_d2h, logits.size() * sizeof(float) + 64 * 1024);
  // The weights' encodings were made at the prefill and kept: a step's checks launch nothing
  // for them and read no weight — the same step with policy off reads the weights once (its
  // products), and the checks add only the activations' and outputs' pages and the encodings.
  const Ledger again = ledger_of([&] { m.decode(cache, {{0, a.data(), 1}, {1, b.data(), 1}}, logits.data()); });
  m.set_policy(abft::Policy::Off);
  const Ledger off = ledger_of([&] { m.decode(cache, {{0, a.data() + 1, 1}, {1, b.data() + 1, 1}}, logits.data()); });
  report("runtime: the same decode step, policy off", off);
  EXPECT_EQ(again.blas_calls, off.blas_calls);
  const size_t weight_pages = abft_emu::pages_spanned(nullptr, m.weights().size() * sizeof(float));
  EXPECT_LE(again.pages_read(kEngine), off.pages_read(kEngine) + weight_pages / 4);
  // Per product: its check (and a C0 sum launch where it accumulates); per attention call the
  // pre-pass; nothing for the weights.
  EXPECT_LE(again.launches.size(), off.launches.size() + size_t(again.blas_calls) + 2 * size_t(c.layers));
}

}  // namespace
