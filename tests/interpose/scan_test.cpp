/** \file scan_test.cpp
 *  \brief The preload library's third way to the real cuBLAS: a copy opened by the program with
 *  dlopen(RTLD_LOCAL) — as PyTorch's pip packages are — is invisible to dlsym(RTLD_NEXT), and is
 *  found among the loaded libraries by its file name (libcublas.so*). This binary links no stub;
 *  it opens one named libcublas.so from a directory of its own and calls cublasSgemm_v2 through
 *  the process's global lookup (the interposer's), under ABFT_POLICY=off (forwarded alone) and
 *  under correct without a GPU (the engine's own cuBLAS calls reach the same local copy).
 */
#include <gtest/gtest.h>

#include <cublas_v2.h>
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#include "preload_probe.hpp"
#include "stub_log.hpp"

TEST(PreloadScan, FindsTheCopyTheProgramOpenedLocally) {
  probe::Preload pre;
  ASSERT_TRUE(pre.loaded()) << "run through ctest (LD_PRELOAD)";
  const char* path = std::getenv("ABFT_TEST_SCAN_CUBLAS");
  ASSERT_NE(path, nullptr);
  const char* pol = std::getenv("ABFT_POLICY");
  const bool off = pol && !std::strcmp(pol, "off");
  if (!off && probe::gpu_present()) GTEST_SKIP() << "a GPU is present: the engine would see the fake device pointers";
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  probe::StubLog log(lib, "stub_cublas");
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "stub_cublas_log_count"), nullptr) << "the stub must be local to its handle";

  using Sgemm = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float*,
                                   const float*, int, const float*, int, const float*, float*, int);
  auto sgemm = reinterpret_cast<Sgemm>(dlsym(RTLD_DEFAULT, "cublasSgemm_v2"));
  ASSERT_NE(sgemm, nullptr);
  EXPECT_NE(probe::file_of(reinterpret_cast<void*>(sgemm)).find("libabft_preload"), std::string::npos);
  // A handle of the local copy, made the way the program makes it (its own symbol).
  auto create = reinterpret_cast<cublasStatus_t (*)(cublasHandle_t*)>(dlsym(lib, "cublasCreate_v2"));
  auto destroy = reinterpret_cast<cublasStatus_t (*)(cublasHandle_t)>(dlsym(lib, "cublasDestroy_v2"));
  ASSERT_TRUE(create && destroy);
  cublasHandle_t handle = nullptr;
  ASSERT_EQ(create(&handle), CUBLAS_STATUS_SUCCESS);
  log.clear();
  pre.reset();
  const float alpha = 1, beta = 0;
  const auto A = reinterpret_cast<const float*>(0x100), B = reinterpret_cast<const float*>(0x200);
  const auto C = reinterpret_cast<float*>(0x300);
  ASSERT_EQ(sgemm(handle, CUBLAS_OP_T, CUBLAS_OP_T, 3, 3, 3, &alpha, A, 3, B, 3, &beta, C, 3), CUBLAS_STATUS_SUCCESS);
  const std::string call =
      stub::describe("cublasSgemm_v2", handle, CUBLAS_OP_T, CUBLAS_OP_T, 3, 3, 3, &alpha, A, 3, B, 3, &beta, C, 3);
  abft_preload_counts c = pre.counts("cublasSgemm_v2");
  EXPECT_EQ(c.calls, 1u);
  EXPECT_EQ(c.unprotected, 1u);
  EXPECT_EQ(pre.reason("cublasSgemm_v2", "real_missing"), 0u);
  if (off) {
    EXPECT_EQ(log.all(), std::vector<std::string>{call});
  } else {
    // Without a GPU: the engine read the caller's handle through the forwarders — in the same
    // local copy — then refused (no device), and the call ran on that copy unchanged.
    EXPECT_EQ(log.last(), call);
    EXPECT_EQ(log.calls_of("cublasSgemm_v2"), 1u);
    EXPECT_EQ(log.calls_of("cublasGetPointerMode_v2"), 1u);
    EXPECT_EQ(log.calls_of("cublasGetMathMode"), 1u);
    EXPECT_EQ(pre.reason("cublasSgemm_v2", "engine_unavailable"), 1u);
    EXPECT_EQ(pre.reason("cublasSgemm_v2", "engine_rejected"), 0u);
  }
  destroy(handle);
}
