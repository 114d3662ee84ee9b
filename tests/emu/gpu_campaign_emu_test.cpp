/** \file gpu_campaign_emu_test.cpp
 *  \brief The GPU campaign adapters (src/campaign/kernel_cuda_*.cpp) on the CUDA emulator: a few
 *  dozen trials of `abft campaign --kernel cuda-fft / cuda-gemm / cuda-attn-fwd / cuda-attn-bwd /
 *  cuda-train` (the runtime's training step on the GPU engine's resident pass), run in process through
 *  TrialRunner as a worker runs them (random bit flips at every site the adapter has, a clean
 *  protected run with every trial), must give no failing outcome (SDC, bad repair, error) and no
 *  false positive or mismatch on the clean runs. On a GPU, scripts/gpu-check.sh runs 1,000
 *  trials of each; here the adapters' own logic is checked in every CI build: the input
 *  (a C2R's Hermitian-consistent draw), the plan of each rank, the limits from the engine's
 *  bound, the counters read back.
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "campaign/campaign.hpp"

namespace {

namespace cp = abft::campaign;

void run_trials(const char* kernel, const char* variant, cp::DataType type, std::vector<int64_t> sizes, int64_t trials) {
  cp::Options o;
  o.kernel.kernel = kernel;
  o.kernel.variant = variant;
  o.kernel.type = type;
  o.kernel.sizes = sizes;
  o.trials = trials;
  o.seed = 11;
  std::string error;
  const std::unique_ptr<cp::TrialRunner> r = cp::TrialRunner::create(o, &error);
  ASSERT_TRUE(r) << kernel << " " << variant << ": " << error;
  int64_t landed = 0, detected = 0;
  for (int64_t id = 0; id < trials; ++id) {
    const cp::TrialRecord rec = r->run(id);
    EXPECT_FALSE(cp::outcome_is_failure(rec.outcome))
        << kernel << " " << variant << " trial " << id << ": " << cp::outcome_name(rec.outcome) << "\n"
        << r->explain();
    EXPECT_NE(rec.clean, cp::CleanOutcome::FalsePositive) << kernel << " " << variant << " trial " << id;
    EXPECT_NE(rec.clean, cp::CleanOutcome::Mismatch) << kernel << " " << variant << " trial " << id;
    landed += rec.landed > 0;
    detected += cp::outcome_is_detected(rec.outcome);
  }
  EXPECT_GT(landed, trials / 2) << kernel << " " << variant << ": the faults must land";
  std::printf("%s %s %s: %lld trials, %lld landed, %lld detected\n", kernel, variant, cp::type_name(type),
              (long long)trials, (long long)landed, (long long)detected);
}

// 2,800 trials of the FFT adapter, float and double (16 s on 2 cores; not in CI): run with
// --gtest_also_run_disabled_tests --gtest_filter='*LongFft*'.
TEST(GpuCampaignsOnTheEmulator, DISABLED_LongFftCampaign) {
  for (auto t : {cp::DataType::F32, cp::DataType::F64}) {
    run_trials("cuda-fft", "c2r-2d", t, {12, 16, 3}, 400);
    run_trials("cuda-fft", "c2r-3d", t, {4, 6, 10, 2}, 300);
    run_trials("cuda-fft", "c2r", t, {1000, 3}, 300);
    run_trials("cuda-fft", "r2c-2d", t, {10, 14, 2}, 200);
    run_trials("cuda-fft", "c2c-3d", t, {4, 6, 5, 2}, 200);
  }
}

TEST(GpuCampaignsOnTheEmulator, FftAdapterEveryRankAndKind) {
  run_trials("cuda-fft", "c2r-2d", cp::DataType::F32, {8, 12, 3}, 40);
  run_trials("cuda-fft", "c2r-3d", cp::DataType::F64, {4, 6, 10, 2}, 30);
  run_trials("cuda-fft", "r2c-2d", cp::DataType::F32, {6, 10, 2}, 24);
  run_trials("cuda-fft", "c2c-bwd-3d", cp::DataType::F64, {4, 4, 6, 2}, 24);
  run_trials("cuda-fft", "c2r", cp::DataType::F64, {256, 3}, 24);
  run_trials("cuda-fft", "c2c", cp::DataType::F32, {512, 3}, 24);
}

TEST(GpuCampaignsOnTheEmulator, AttentionForwardAdapter) {
  run_trials("cuda-attn-fwd", "causal", cp::DataType::F32, {40, 56, 64, 2, 1}, 24);
  run_trials("cuda-attn-fwd", "full", cp::DataType::F32, {33, 33, 64, 2, 2}, 16);
}

TEST(GpuCampaignsOnTheEmulator, AttentionBackwardAdapter) {
  run_trials("cuda-attn-bwd", "causal", cp::DataType::F32, {40, 56, 64, 2, 1}, 32);
  run_trials("cuda-attn-bwd", "full", cp::DataType::F32, {33, 45, 32, 2, 2}, 24);
}

// 1,200 trials of the attention backward adapter (not in CI): run with
// --gtest_also_run_disabled_tests --gtest_filter='*LongAttention*'.
TEST(GpuCampaignsOnTheEmulator, DISABLED_LongAttentionBackwardCampaign) {
  run_trials("cuda-attn-bwd", "causal", cp::DataType::F32, {72, 128, 64, 2, 1}, 400);
  run_trials("cuda-attn-bwd", "full", cp::DataType::F32, {40, 96, 128, 4, 2}, 400);
  run_trials("cuda-attn-bwd", "causal", cp::DataType::F32, {33, 33, 32, 2, 2}, 400);
}

TEST(GpuCampaignsOnTheEmulator, TrainStepOnTheResidentPass) {
  run_trials("cuda-train", "gpt2-tiny", cp::DataType::F32, {1, 6}, 10);
  run_trials("cuda-train", "llama-tiny", cp::DataType::F32, {1, 6}, 6);
}

// 600 trials of the training step on the resident pass (about 6 minutes on 2 cores; not in CI):
// run with --gtest_also_run_disabled_tests --gtest_filter='*LongTrain*'.
TEST(GpuCampaignsOnTheEmulator, DISABLED_LongTrainCampaign) {
  run_trials("cuda-train", "gpt2-tiny", cp::DataType::F32, {2, 16}, 300);
  run_trials("cuda-train", "llama-tiny", cp::DataType::F32, {2, 16}, 300);
}

TEST(GpuCampaignsOnTheEmulator, GemmAdapter) {
  run_trials("cuda-gemm", "", cp::DataType::F32, {48, 40, 32}, 30);
  run_trials("cuda-gemm", "tn", cp::DataType::F64, {40, 24, 56}, 24);
}

}  // namespace
