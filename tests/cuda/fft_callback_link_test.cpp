/** \file fft_callback_link_test.cpp
 *  \brief The FFT's cuFFT callbacks as the library embeds them (cuda/fft_callbacks.cu: two
 *  LTO-IR images, the loads and the stores) link together and compile for sm_90 — on the host, through nvJitLink, the library cuFFT itself links
 *  them with at plan time — against a kernel that calls every one of them by the names the
 *  plan gives cuFFT (tests/cuda/fft_callback_driver.cu). No GPU needed: this runs in every CUDA
 *  build, so a callback that no longer links, or a renamed one, fails here and not first on a
 *  device. ptxas's resource report (registers, spills) is printed for the record.
 */
#include <gtest/gtest.h>
#include <nvJitLink.h>

#include <cstdio>
#include <string>
#include <vector>

#include "fft_callback_args.hpp"

namespace abft::cuda {
extern const unsigned char kFftCallbackDriverImage[];
extern const size_t kFftCallbackDriverImage_size;
}  // namespace abft::cuda

namespace {

std::string info_log(nvJitLinkHandle h, bool error) {
  size_t n = 0;
  if ((error ? nvJitLinkGetErrorLogSize(h, &n) : nvJitLinkGetInfoLogSize(h, &n)) != NVJITLINK_SUCCESS) return {};
  std::string s(n + 1, '\0');
  if (error)
    nvJitLinkGetErrorLog(h, s.data());
  else
    nvJitLinkGetInfoLog(h, s.data());
  return s.c_str();
}

TEST(FftCallbackLink, EveryCallbackLinksForSm90) {
  ASSERT_GT(abft::cuda::kFftLoadsImage_size, 0u);
  ASSERT_GT(abft::cuda::kFftStoresImage_size, 0u);
  nvJitLinkHandle h = nullptr;
  const char* opts[] = {"-arch=sm_90", "-lto", "-O3", "-Xptxas=-v"};
  ASSERT_EQ(nvJitLinkCreate(&h, 4, opts), NVJITLINK_SUCCESS);
  // Both images in one link, as a plan hands cuFFT one of each: no symbol defined twice.
  EXPECT_EQ(nvJitLinkAddData(h, NVJITLINK_INPUT_FATBIN, abft::cuda::kFftLoadsImage, abft::cuda::kFftLoadsImage_size,
                             "fft_callbacks_loads"),
            NVJITLINK_SUCCESS);
  EXPECT_EQ(nvJitLinkAddData(h, NVJITLINK_INPUT_FATBIN, abft::cuda::kFftStoresImage, abft::cuda::kFftStoresImage_size,
                             "fft_callbacks_stores"),
            NVJITLINK_SUCCESS);
  EXPECT_EQ(nvJitLinkAddData(h, NVJITLINK_INPUT_FATBIN, abft::cuda::kFftCallbackDriverImage,
                             abft::cuda::kFftCallbackDriverImage_size, "fft_callback_driver"),
            NVJITLINK_SUCCESS);
  const nvJitLinkResult r = nvJitLinkComplete(h);
  EXPECT_EQ(r, NVJITLINK_SUCCESS) << info_log(h, true);
  size_t cubin = 0;
  if (r == NVJITLINK_SUCCESS) EXPECT_EQ(nvJitLinkGetLinkedCubinSize(h, &cubin), NVJITLINK_SUCCESS);
  EXPECT_GT(cubin, 0u);
  const std::string info = info_log(h, false);
  std::printf("%s\n", info.c_str());
  nvJitLinkDestroy(&h);
}

}  // namespace
