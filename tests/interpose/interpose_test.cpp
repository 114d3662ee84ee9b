/** \file interpose_test.cpp
 *  \brief libabft_preload.so against stub vendor libraries, without a GPU. The binary links the
 *  stubs (stub_cublas.cpp, stub_cublaslt.cpp, stub_cufft.cpp) as a program links cuBLAS and cuFFT,
 *  and ctest runs it with LD_PRELOAD=libabft_preload.so, so its calls reach the interposer first
 *  and the interposer finds the stubs as the real libraries (dlsym(RTLD_NEXT)). Groups, one ctest
 *  entry each (tests/interpose/CMakeLists.txt sets their environment):
 *    PreloadSymbols   the exported symbol set, no link-time vendor dependency;
 *    PreloadPolicyOff ABFT_POLICY=off: every call forwarded with identical arguments, nothing else;
 *    PreloadNoGpu     default policy, no GPU: protectable calls degrade to forwarded calls
 *                     (counted), unsupported ones pass through (counted, with their reason), the
 *                     engine's own vendor calls reach the same stub, the recursion guard;
 *    PreloadOverride  ABFT_PRELOAD_CUBLAS names the library the calls go to;
 *    PreloadReport    the exit report (its text is checked by ctest); the PreloadNoGpu entries
 *                     print theirs too, after the engine was entered without a usable CUDA.
 */
#include <gtest/gtest.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cufft.h>
#include <cufftXt.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "preload_probe.hpp"
#include "stub_log.hpp"

extern "C" void stub_cublas_set_nested(int on);
extern "C" int stub_cublas_call_lt(void);

namespace {

using stub::describe;

const char* env(const char* name) {
  const char* e = std::getenv(name);
  return e && *e ? e : nullptr;
}

/** Made-up device addresses: the stubs only record them, and under policy off or without a
 *  GPU the interposer never dereferences them. */
template <class T = void>
T* fake(uintptr_t a) {
  return reinterpret_cast<T*>(a);
}

class Interpose : public ::testing::Test {
 protected:
  probe::Preload pre;
  probe::StubLog blas{RTLD_DEFAULT, "stub_cublas"}, lt{RTLD_DEFAULT, "stub_cublaslt"}, fft{RTLD_DEFAULT, "stub_cufft"};
  cublasHandle_t handle = nullptr;
  float alpha = 1.5f, beta = 0.25f;
  double dalpha = 2.0, dbeta = 0.0;

  void SetUp() override {
    ASSERT_TRUE(pre.loaded()) << "libabft_preload.so is not preloaded: run through ctest (LD_PRELOAD)";
    ASSERT_TRUE(blas.ok() && lt.ok() && fft.ok());
    ASSERT_EQ(cublasCreate_v2(&handle), CUBLAS_STATUS_SUCCESS);  // the stub's own (not intercepted)
    pre.reset();
    blas.clear(), lt.clear(), fft.clear();
  }
  void TearDown() override {
    if (handle) cublasDestroy_v2(handle);
  }
  void expect_counts(const char* entry, unsigned long long calls, unsigned long long prot,
                     unsigned long long unprot, unsigned long long failed = 0) {
    const abft_preload_counts c = pre.counts(entry);
    EXPECT_EQ(c.calls, calls) << entry;
    EXPECT_EQ(c.protected_calls, prot) << entry;
    EXPECT_EQ(c.unprotected, unprot) << entry;
    EXPECT_EQ(c.failed, failed) << entry;
  }
};

class PreloadSymbols : public Interpose {};
class PreloadPolicyOff : public Interpose {
  void SetUp() override {
    Interpose::SetUp();
    const char* p = env("ABFT_POLICY");
    ASSERT_TRUE(p && !std::strcmp(p, "off")) << "needs ABFT_POLICY=off (ctest sets it)";
  }
};
class PreloadNoGpu : public Interpose {
  void SetUp() override {
    Interpose::SetUp();
    const char* p = env("ABFT_POLICY");
    ASSERT_TRUE(!p || std::strcmp(p, "off")) << "needs a protecting policy";
    if (probe::gpu_present()) GTEST_SKIP() << "a GPU is present: scripts/gpu-check-preload.sh covers protected calls";
  }
};

const std::set<std::string> kExported = {
    "cublasSgemm_v2", "cublasDgemm_v2", "cublasHgemm", "cublasGemmEx", "cublasSgemmStridedBatched",
    "cublasDgemmStridedBatched", "cublasGemmStridedBatchedEx", "cublasGemmBatchedEx", "cublasSgemm_v2_64",
    "cublasDgemm_v2_64", "cublasHgemm_64", "cublasGemmEx_64", "cublasSgemmStridedBatched_64",
    "cublasDgemmStridedBatched_64", "cublasGemmStridedBatchedEx_64", "cublasGemmBatchedEx_64", "cublasLtMatmul",
    "cufftPlan1d", "cufftPlan2d", "cufftPlan3d", "cufftPlanMany", "cufftMakePlan1d", "cufftMakePlan2d",
    "cufftMakePlan3d", "cufftMakePlanMany", "cufftMakePlanMany64", "cufftXtMakePlanMany", "cufftSetStream",
    "cufftDestroy", "cufftExecC2C", "cufftExecZ2Z", "cufftExecR2C", "cufftExecD2Z", "cufftExecC2R",
    "cufftExecZ2D", "cufftXtExec", "cufftXtSetCallback", "cufftXtClearCallback", "cufftXtSetJITCallback",
    "abft_preload_entry_counts", "abft_preload_reason_count",
    "abft_preload_nested_calls", "abft_preload_report", "abft_preload_reset", "abft_preload_fft_stream"};

std::string run(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return *status = -1, out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  *status = pclose(p);
  return out;
}

}  // namespace

TEST_F(PreloadSymbols, ExportsExactlyTheInterceptedEntryPointsAndItsCounters) {
  int st = 0;
  const std::string out = run(std::string("nm -D --defined-only '") + ABFT_PRELOAD_PATH + "' 2>/dev/null", &st);
  if (st != 0 || out.empty()) GTEST_SKIP() << "nm not available";
  std::set<std::string> functions;
  size_t pos = 0;
  while (pos < out.size()) {
    const size_t end = out.find('\n', pos);
    const std::string line = out.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? out.size() : end + 1;
    char type = 0;
    char name[256] = {0};
    if (std::sscanf(line.c_str(), "%*s %c %255s", &type, name) == 2 && (type == 'T' || type == 'W' || type == 'i'))
      functions.insert(name);
  }
  EXPECT_EQ(functions, kExported);
}

TEST_F(PreloadSymbols, EveryEntryPointBindsToThePreloadLibrary) {
  for (const std::string& name : kExported) {
    const std::string file = probe::file_of(dlsym(RTLD_DEFAULT, name.c_str()));
    EXPECT_NE(file.find("libabft_preload"), std::string::npos) << name << " resolves to " << file;
  }
  // Not intercepted: the program's own copy (the stub).
  EXPECT_NE(probe::file_of(dlsym(RTLD_DEFAULT, "cublasCreate_v2")).find("stub"), std::string::npos);
  EXPECT_NE(probe::file_of(dlsym(RTLD_DEFAULT, "cufftCreate")).find("stub"), std::string::npos);
}

TEST_F(PreloadSymbols, VersionedReferencesAreInterceptedToo) {
  // The stubs carry the real libraries' version nodes (stub_*.map), so this binary's references
  // are versioned as a program's against the real cuBLAS / cuFFT are; the unversioned
  // definitions of the preloaded library must still win.
  char self[4096] = {0};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  int st = 0;
  const std::string out = run(std::string("nm -D --undefined-only '") + self + "' 2>/dev/null", &st);
  if (st != 0 || out.empty()) GTEST_SKIP() << "nm not available";
  for (const char* ref : {"cublasSgemm_v2@libcublas.so.13", "cublasLtMatmul@libcublasLt.so.13",
                          "cufftExecC2C@libcufft.so.12", "cublasCreate_v2@libcublas.so.13"})
    EXPECT_NE(out.find(ref), std::string::npos) << "expected a versioned reference " << ref;
  ASSERT_EQ(cublasSgemm_v2(handle, CUBLAS_OP_N, CUBLAS_OP_N, 0, 0, 0, &alpha, nullptr, 1, nullptr, 1, &beta, nullptr,
                           1),
            CUBLAS_STATUS_SUCCESS);
  expect_counts("cublasSgemm_v2", 1, 0, 1);  // reached the interposer (empty: cuBLAS's own answer)
  EXPECT_EQ(pre.reason("cublasSgemm_v2", "arguments"), 1u);
  EXPECT_EQ(blas.calls_of("cublasSgemm_v2"), 1u);  // and the real (stub) library after it
  cufftHandle p = 0;
  ASSERT_EQ(cufftPlan1d(&p, 8, CUFFT_C2C, 1), CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecC2C(p, nullptr, nullptr, CUFFT_FORWARD), CUFFT_SUCCESS);
  EXPECT_EQ(pre.counts("cufftExecC2C").calls, 1u);
  ASSERT_EQ(cufftDestroy(p), CUFFT_SUCCESS);
}

TEST_F(PreloadSymbols, NoLinkTimeDependencyOnTheVendorLibraries) {
  int st = 0;
  const std::string out = run(std::string("readelf -d '") + ABFT_PRELOAD_PATH + "' 2>/dev/null", &st);
  if (st != 0 || out.empty()) GTEST_SKIP() << "readelf not available";
  EXPECT_NE(out.find("NEEDED"), std::string::npos);
  for (const char* lib : {"libcublas", "libcufft", "libcudart", "libcuda.so"})
    EXPECT_EQ(out.find(lib), std::string::npos) << "libabft_preload.so needs " << lib;
}

TEST_F(PreloadPolicyOff, CublasCallsAreForwardedWithIdenticalArguments) {
  ASSERT_EQ(cublasSgemm_v2(handle, CUBLAS_OP_T, CUBLAS_OP_N, 3, 4, 5, &alpha, fake<float>(0x1000), 7,
                           fake<float>(0x2000), 5, &beta, fake<float>(0x3000), 3),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(blas.all(), std::vector<std::string>{describe("cublasSgemm_v2", handle, CUBLAS_OP_T, CUBLAS_OP_N, 3, 4, 5,
                                                          &alpha, fake<float>(0x1000), 7, fake<float>(0x2000), 5,
                                                          &beta, fake<float>(0x3000), 3)});
  ASSERT_EQ(cublasDgemm_v2(handle, CUBLAS_OP_N, CUBLAS_OP_C, 2, 2, 2, &dalpha, fake<double>(0x10), 2,
                           fake<double>(0x20), 2, &dbeta, fake<double>(0x30), 2),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(blas.last(), describe("cublasDgemm_v2", handle, CUBLAS_OP_N, CUBLAS_OP_C, 2, 2, 2, &dalpha,
                                  fake<double>(0x10), 2, fake<double>(0x20), 2, &dbeta, fake<double>(0x30), 2));
  ASSERT_EQ(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 9, 10, &alpha, fake(0x100), CUDA_R_16BF, 8, fake(0x200),
                         CUDA_R_16BF, 10, &beta, fake(0x300), CUDA_R_16BF, 8, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(blas.last(), describe("cublasGemmEx", handle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 9, 10, &alpha, fake(0x100),
                                  CUDA_R_16BF, 8, fake(0x200), CUDA_R_16BF, 10, &beta, fake(0x300), CUDA_R_16BF, 8,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  ASSERT_EQ(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, 4, 4, 4, &alpha, fake(0x100), CUDA_R_16F, 4,
                                       16, fake(0x200), CUDA_R_16F, 4, 16, &beta, fake(0x300), CUDA_R_16F, 4, 16, 9,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(blas.last(), describe("cublasGemmStridedBatchedEx", handle, CUBLAS_OP_T, CUBLAS_OP_N, 4, 4, 4, &alpha,
                                  fake(0x100), CUDA_R_16F, 4, 16LL, fake(0x200), CUDA_R_16F, 4, 16LL, &beta,
                                  fake(0x300), CUDA_R_16F, 4, 16LL, 9, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT_TENSOR_OP));
  // Nothing else was called: not even the handle's stream was read.
  EXPECT_EQ(blas.count(), 4u);
  for (const char* e : {"cublasSgemm_v2", "cublasDgemm_v2", "cublasGemmEx", "cublasGemmStridedBatchedEx"}) {
    expect_counts(e, 1, 0, 1);
    EXPECT_EQ(pre.reason(e, "policy_off"), 1u) << e;
  }
}

TEST_F(PreloadPolicyOff, LtAndCufftCallsAreForwardedWithIdenticalArguments) {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr;
  ASSERT_EQ(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, 8, 8, 8), CUBLAS_STATUS_SUCCESS);
  const auto lh = fake<cublasLtContext>(0x77);
  ASSERT_EQ(cublasLtMatmul(lh, desc, &alpha, fake(0x1), la, fake(0x2), la, &beta, fake(0x3), la, fake(0x3), la,
                           nullptr, fake(0x4), 1024, fake<CUstream_st>(0x5)),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(lt.all(), std::vector<std::string>{describe("cublasLtMatmul", lh, desc, &alpha, fake(0x1), la, fake(0x2),
                                                        la, &beta, fake(0x3), la, fake(0x3), la,
                                                        static_cast<void*>(nullptr), fake(0x4), size_t(1024),
                                                        fake<CUstream_st>(0x5))});
  expect_counts("cublasLtMatmul", 1, 0, 1);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatmulDescDestroy(desc);

  cufftHandle p = 0;
  ASSERT_EQ(cufftPlan1d(&p, 64, CUFFT_C2C, 3), CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecC2C(p, fake<cufftComplex>(0x40), fake<cufftComplex>(0x80), CUFFT_INVERSE), CUFFT_SUCCESS);
  ASSERT_EQ(cufftXtExec(p, fake(0x40), fake(0x40), CUFFT_FORWARD), CUFFT_SUCCESS);
  ASSERT_EQ(cufftDestroy(p), CUFFT_SUCCESS);
  EXPECT_EQ(fft.all(),
            (std::vector<std::string>{describe("cufftPlan1d", p, 64, CUFFT_C2C, 3),
                                      describe("cufftExecC2C", p, fake<cufftComplex>(0x40), fake<cufftComplex>(0x80),
                                               CUFFT_INVERSE),
                                      describe("cufftXtExec", p, fake(0x40), fake(0x40), CUFFT_FORWARD),
                                      describe("cufftDestroy", p)}));
  expect_counts("cufftExecC2C", 1, 0, 1);
  expect_counts("cufftXtExec", 1, 0, 1);
  EXPECT_EQ(pre.reason("cufftXtExec", "policy_off"), 1u);
}

TEST_F(PreloadNoGpu, ProtectableCallDegradesToTheForwardedCall) {
  ASSERT_EQ(cublasSgemm_v2(handle, CUBLAS_OP_N, CUBLAS_OP_T, 6, 5, 4, &alpha, fake<float>(0x1000), 6,
                           fake<float>(0x2000), 5, &beta, fake<float>(0x3000), 6),
            CUBLAS_STATUS_SUCCESS);
  // The last call the stub saw is the program's, unchanged.
  EXPECT_EQ(blas.last(), describe("cublasSgemm_v2", handle, CUBLAS_OP_N, CUBLAS_OP_T, 6, 5, 4, &alpha,
                                  fake<float>(0x1000), 6, fake<float>(0x2000), 5, &beta, fake<float>(0x3000), 6));
  EXPECT_EQ(blas.calls_of("cublasSgemm_v2"), 1u);
  // Before it, the engine read the caller's handle (pointer mode, math mode) — through the
  // preload library's forwarders, in the same copy of "cuBLAS" the program uses.
  EXPECT_EQ(blas.calls_of("cublasGetPointerMode_v2"), 1u);
  EXPECT_EQ(blas.calls_of("cublasGetMathMode"), 1u);
  EXPECT_GE(blas.calls_of("cublasGetStream_v2"), 1u);
  expect_counts("cublasSgemm_v2", 1, 0, 1);
  EXPECT_EQ(pre.reason("cublasSgemm_v2", "engine_unavailable"), 1u);
  EXPECT_EQ(pre.reason("cublasSgemm_v2", "engine_rejected"), 0u) << "a valid call the engine refused: translation bug";
}

TEST_F(PreloadNoGpu, BatchedCallsAreForwardedWholeFromTheFirstItem) {
  ASSERT_EQ(cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, fake<float>(0x1000), 4, 16,
                                      fake<float>(0x2000), 4, 16, &beta, fake<float>(0x3000), 4, 16, 5),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(blas.last(), describe("cublasSgemmStridedBatched", handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha,
                                  fake<float>(0x1000), 4, 16LL, fake<float>(0x2000), 4, 16LL, &beta,
                                  fake<float>(0x3000), 4, 16LL, 5));
  void* const* arrays = fake<void* const>(0x9000);
  ASSERT_EQ(cublasGemmBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, fake<const void* const>(0x8000),
                                CUDA_R_32F, 4, fake<const void* const>(0x8800), CUDA_R_32F, 4, &beta, arrays,
                                CUDA_R_32F, 4, 3, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(blas.last(), describe("cublasGemmBatchedEx", handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha,
                                  fake<const void* const>(0x8000), CUDA_R_32F, 4, fake<const void* const>(0x8800),
                                  CUDA_R_32F, 4, &beta, arrays, CUDA_R_32F, 4, 3, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
  expect_counts("cublasSgemmStridedBatched", 1, 0, 1);
  expect_counts("cublasGemmBatchedEx", 1, 0, 1);
  EXPECT_EQ(pre.reason("cublasGemmBatchedEx", "engine_unavailable"), 1u);
  EXPECT_EQ(pre.reason("cublasSgemmStridedBatched", "engine_unavailable"), 1u);
  for (const char* e : {"cublasSgemmStridedBatched", "cublasGemmBatchedEx"})
    EXPECT_EQ(pre.reason(e, "engine_rejected"), 0u) << e;
}

// The ILP64 entry points: intercepted, translated like their 32-bit twins (here, without a GPU,
// the engine is unavailable: forwarded unchanged, 64-bit arguments intact), half accumulation
// passed through, and sizes beyond 32 bits left to cuBLAS (`arguments`).
TEST_F(PreloadNoGpu, Ilp64EntriesAreInterceptedAndForwardedUnchanged) {
  const int64_t n = 6;
  ASSERT_EQ(cublasSgemm_v2_64(handle, CUBLAS_OP_N, CUBLAS_OP_T, n, 5, 4, &alpha, fake<float>(0x1000), n,
                              fake<float>(0x2000), 5, &beta, fake<float>(0x3000), n),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(blas.last(), describe("cublasSgemm_v2_64", handle, CUBLAS_OP_N, CUBLAS_OP_T, n, 5, 4, &alpha,
                                  fake<float>(0x1000), n, fake<float>(0x2000), 5, &beta, fake<float>(0x3000), n));
  ASSERT_EQ(cublasDgemm_v2_64(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &dalpha, fake<double>(0x10), 4,
                              fake<double>(0x20), 4, &dbeta, fake<double>(0x30), 4),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasGemmEx_64(handle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, fake(0x100), CUDA_R_32F, 8,
                            fake(0x200), CUDA_R_32F, 8, &beta, fake(0x300), CUDA_R_32F, 8, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasSgemmStridedBatched_64(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, fake<float>(0x1000), 4,
                                         16, fake<float>(0x2000), 4, 16, &beta, fake<float>(0x3000), 4, 16, 5),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(blas.last(), describe("cublasSgemmStridedBatched_64", handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha,
                                  fake<float>(0x1000), 4, 16LL, fake<float>(0x2000), 4, 16LL, &beta,
                                  fake<float>(0x3000), 4, 16LL, 5));
  ASSERT_EQ(cublasDgemmStridedBatched_64(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &dalpha, fake<double>(0x10), 4,
                                         16, fake<double>(0x20), 4, 16, &dbeta, fake<double>(0x30), 4, 16, 2),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasGemmStridedBatchedEx_64(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, fake(0x100), CUDA_R_32F,
                                          4, 16, fake(0x200), CUDA_R_32F, 4, 16, &beta, fake(0x300), CUDA_R_32F, 4,
                                          16, 3, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  void* const* arrays = fake<void* const>(0x9000);
  ASSERT_EQ(cublasGemmBatchedEx_64(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha,
                                   fake<const void* const>(0x8000), CUDA_R_32F, 4, fake<const void* const>(0x8800),
                                   CUDA_R_32F, 4, &beta, arrays, CUDA_R_32F, 4, 3, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(blas.last(), describe("cublasGemmBatchedEx_64", handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha,
                                  fake<const void* const>(0x8000), CUDA_R_32F, 4, fake<const void* const>(0x8800),
                                  CUDA_R_32F, 4, &beta, arrays, CUDA_R_32F, 4, 3, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
  for (const char* e : {"cublasSgemm_v2_64", "cublasDgemm_v2_64", "cublasGemmEx_64", "cublasSgemmStridedBatched_64",
                        "cublasDgemmStridedBatched_64", "cublasGemmStridedBatchedEx_64", "cublasGemmBatchedEx_64"}) {
    expect_counts(e, 1, 0, 1);
    EXPECT_EQ(pre.reason(e, "engine_unavailable"), 1u) << e;
    EXPECT_EQ(blas.calls_of(e), 1u) << e;
  }
  // Half accumulation: passed through as cublasHgemm.
  const __half h1 = __float2half(1.0f), h0 = __float2half(0.0f);
  ASSERT_EQ(cublasHgemm_64(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &h1, fake<__half>(0x10), 4, fake<__half>(0x20), 4,
                           &h0, fake<__half>(0x30), 4),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(pre.reason("cublasHgemm_64", "compute_type"), 1u);
  // Sizes past 32 bits: cuBLAS's own (the call reaches it with every 64-bit argument intact).
  const int64_t big = int64_t(1) << 31;
  ASSERT_EQ(cublasSgemm_v2_64(handle, CUBLAS_OP_N, CUBLAS_OP_N, big, 1, 1, &alpha, fake<float>(0x1000), big,
                              fake<float>(0x2000), 1, &beta, fake<float>(0x3000), big),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(blas.last(), describe("cublasSgemm_v2_64", handle, CUBLAS_OP_N, CUBLAS_OP_N, big, 1, 1, &alpha,
                                  fake<float>(0x1000), big, fake<float>(0x2000), 1, &beta, fake<float>(0x3000), big));
  EXPECT_EQ(pre.reason("cublasSgemm_v2_64", "arguments"), 1u);
  expect_counts("cublasSgemm_v2_64", 2, 0, 2);
}

TEST_F(PreloadNoGpu, UnsupportedTypesAndModesPassThroughCountedWithTheirReason) {
  // bf16 inputs, float output: mixed types.
  ASSERT_EQ(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, fake(0x100), CUDA_R_16BF, 8, fake(0x200),
                         CUDA_R_16BF, 8, &beta, fake(0x300), CUDA_R_32F, 8, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(blas.all(), std::vector<std::string>{describe(
                            "cublasGemmEx", handle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, fake(0x100),
                            CUDA_R_16BF, 8, fake(0x200), CUDA_R_16BF, 8, &beta, fake(0x300), CUDA_R_32F, 8,
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)});
  EXPECT_EQ(pre.reason("cublasGemmEx", "data_types"), 1u);
  // Half accumulation.
  const __half h1 = __float2half(1.0f), h0 = __float2half(0.0f);
  ASSERT_EQ(cublasHgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &h1, fake<__half>(0x10), 4, fake<__half>(0x20), 4,
                        &h0, fake<__half>(0x30), 4),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(blas.last(), describe("cublasHgemm", handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &h1, fake<__half>(0x10), 4,
                                  fake<__half>(0x20), 4, &h0, fake<__half>(0x30), 4));
  EXPECT_EQ(pre.reason("cublasHgemm", "compute_type"), 1u);
  // A leading dimension cuBLAS rejects: its own answer, not ours.
  ASSERT_EQ(cublasDgemm_v2(handle, CUBLAS_OP_N, CUBLAS_OP_N, 8, 2, 2, &dalpha, fake<double>(0x10), 4,
                           fake<double>(0x20), 2, &dbeta, fake<double>(0x30), 8),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(pre.reason("cublasDgemm_v2", "arguments"), 1u);
  expect_counts("cublasGemmEx", 1, 0, 1);
  expect_counts("cublasHgemm", 1, 0, 1);
  expect_counts("cublasDgemm_v2", 1, 0, 1);
  // None of these three reached the engine: no handle state was read.
  EXPECT_EQ(blas.calls_of("cublasGetPointerMode_v2"), 0u);
}

TEST_F(PreloadNoGpu, LtPlainMatmulDegradesAndEpiloguesPassThrough) {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr;
  ASSERT_EQ(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, 16, 16, 16), CUBLAS_STATUS_SUCCESS);
  const auto lh = fake<cublasLtContext>(0x77);
  const cublasLtMatmulAlgo_t* algo = nullptr;
  const auto call = [&] {
    return cublasLtMatmul(lh, desc, &alpha, fake(0x1), la, fake(0x2), la, &beta, fake(0x3), la, fake(0x3), la, algo,
                          fake(0x4), 64, nullptr);
  };
  const auto expect_forwarded = [&] {
    EXPECT_EQ(lt.last(), describe("cublasLtMatmul", lh, desc, &alpha, fake(0x1), la, fake(0x2), la, &beta, fake(0x3),
                                  la, fake(0x3), la, static_cast<const void*>(algo), fake(0x4), size_t(64),
                                  static_cast<void*>(nullptr)));
  };
  ASSERT_EQ(call(), CUBLAS_STATUS_SUCCESS);
  expect_forwarded();
  EXPECT_EQ(pre.reason("cublasLtMatmul", "engine_unavailable"), 1u);
  EXPECT_EQ(pre.reason("cublasLtMatmul", "engine_rejected"), 0u) << "a valid call the engine refused: translation bug";
  EXPECT_EQ(pre.reason("cublasLtMatmul", "lt_attributes"), 0u) << "every attribute must have been read";
  // The bias epilogue reaches the engine (no GPU here: unavailable, forwarded) when it names a
  // bias of D's type; without a bias pointer, or with another type, it passes through.
  const uint32_t bias = CUBLASLT_EPILOGUE_BIAS;
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &bias, sizeof bias),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(call(), CUBLAS_STATUS_SUCCESS);
  expect_forwarded();
  EXPECT_EQ(pre.reason("cublasLtMatmul", "lt_attributes"), 1u);  // no bias pointer
  // With a bias: the program's own call is the product, so its algorithm must round a 16-bit
  // output once — named, and not reducing split-K partials in 16 bits (lt_algo_rounds_once).
  const void* bias_ptr = fake(0x5);
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_ptr, sizeof bias_ptr),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(call(), CUBLAS_STATUS_SUCCESS);  // no algorithm named: cuBLASLt may pick any reduction
  expect_forwarded();
  EXPECT_EQ(pre.reason("cublasLtMatmul", "lt_attributes"), 2u);
  cublasLtMatmulAlgo_t split{};
  split.data[CUBLASLT_ALGO_CONFIG_SPLITK_NUM] = 4;
  split.data[CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME] = CUBLASLT_REDUCTION_SCHEME_INPLACE;
  algo = &split;
  ASSERT_EQ(call(), CUBLAS_STATUS_SUCCESS);  // split-K reduced in the output's 16 bits
  expect_forwarded();
  EXPECT_EQ(pre.reason("cublasLtMatmul", "lt_attributes"), 3u);
  split.data[CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME] = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  ASSERT_EQ(call(), CUBLAS_STATUS_SUCCESS);  // reduced in float: the engine's (unavailable here)
  expect_forwarded();
  EXPECT_EQ(pre.reason("cublasLtMatmul", "lt_attributes"), 3u);
  EXPECT_EQ(pre.reason("cublasLtMatmul", "engine_unavailable"), 2u);
  // No algorithm named but beta = 0: the engine adds the bias to its own product (unavailable here).
  algo = nullptr;
  const float zero = 0.0f;
  ASSERT_EQ(cublasLtMatmul(lh, desc, &alpha, fake(0x1), la, fake(0x2), la, &zero, fake(0x3), la, fake(0x3), la, algo,
                           fake(0x4), 64, nullptr),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(pre.reason("cublasLtMatmul", "lt_attributes"), 3u);
  EXPECT_EQ(pre.reason("cublasLtMatmul", "engine_unavailable"), 3u);
  algo = &split;
  const int32_t f32 = CUDA_R_32F;  // a float bias on a bfloat16 output
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &f32, sizeof f32),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(call(), CUBLAS_STATUS_SUCCESS);
  expect_forwarded();
  EXPECT_EQ(pre.reason("cublasLtMatmul", "lt_attributes"), 4u);
  algo = nullptr;
  const uint32_t plain = CUBLASLT_EPILOGUE_DEFAULT;
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &plain, sizeof plain),
            CUBLAS_STATUS_SUCCESS);
  // A triangular output (fill mode other than FULL): passed through.
  const int32_t lower = CUBLAS_FILL_MODE_LOWER, full = CUBLAS_FILL_MODE_FULL;
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FILL_MODE, &lower, sizeof lower),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(call(), CUBLAS_STATUS_SUCCESS);
  expect_forwarded();
  EXPECT_EQ(pre.reason("cublasLtMatmul", "lt_attributes"), 5u);
  ASSERT_EQ(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FILL_MODE, &full, sizeof full),
            CUBLAS_STATUS_SUCCESS);
  // Pointer-array batches (CUDA 13's CUBLASLT_MATRIX_LAYOUT_BATCH_MODE): passed through.
  const uint32_t arrays = CUBLASLT_BATCH_MODE_POINTER_ARRAY;
  ASSERT_EQ(cublasLtMatrixLayoutSetAttribute(la, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, &arrays, sizeof arrays),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(call(), CUBLAS_STATUS_SUCCESS);
  expect_forwarded();
  EXPECT_EQ(pre.reason("cublasLtMatmul", "lt_attributes"), 6u);
  EXPECT_EQ(lt.count(), 9u);
  expect_counts("cublasLtMatmul", 9, 0, 9);
  EXPECT_EQ(pre.reason("cublasLtMatmul", "engine_rejected"), 0u);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatmulDescDestroy(desc);
}

TEST_F(PreloadNoGpu, CufftPlansAreRecordedAndExecutionsForwarded) {
  cufftHandle p = 0;
  ASSERT_EQ(cufftPlan1d(&p, 256, CUFFT_R2C, 4), CUFFT_SUCCESS);
  ASSERT_EQ(cufftSetStream(p, fake<CUstream_st>(0x55)), CUFFT_SUCCESS);
  for (int rep = 0; rep < 2; ++rep)
    ASSERT_EQ(cufftExecR2C(p, fake<cufftReal>(0x100), fake<cufftComplex>(0x900)), CUFFT_SUCCESS);
  EXPECT_EQ(fft.last(), describe("cufftExecR2C", p, fake<cufftReal>(0x100), fake<cufftComplex>(0x900)));
  EXPECT_EQ(fft.calls_of("cufftExecR2C"), 2u);
  EXPECT_EQ(fft.calls_of("cufftCreate"), 0u);  // without a GPU no shadow plan is ever made
  expect_counts("cufftExecR2C", 2, 0, 2);
  EXPECT_EQ(pre.reason("cufftExecR2C", "engine_unavailable"), 2u);
  EXPECT_EQ(pre.reason("cufftExecR2C", "engine_rejected"), 0u) << "a valid plan the engine refused: translation bug";
  // The wrong exec function for the plan: cuFFT's to answer.
  ASSERT_EQ(cufftExecC2C(p, fake<cufftComplex>(0x100), fake<cufftComplex>(0x100), CUFFT_FORWARD), CUFFT_SUCCESS);
  EXPECT_EQ(pre.reason("cufftExecC2C", "arguments"), 1u);
  ASSERT_EQ(cufftDestroy(p), CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecR2C(p, fake<cufftReal>(0x100), fake<cufftComplex>(0x900)), CUFFT_SUCCESS);
  EXPECT_EQ(pre.reason("cufftExecR2C", "fft_plan_unknown"), 1u);

  // A plan made before the interposer could see it (here: through the stub directly).
  cufftHandle q = 0;
  ASSERT_EQ(cufftCreate(&q), CUFFT_SUCCESS);
  ASSERT_EQ(cufftXtExec(q, fake(0x1), fake(0x2), CUFFT_INVERSE), CUFFT_SUCCESS);
  EXPECT_EQ(fft.last(), describe("cufftXtExec", q, fake(0x1), fake(0x2), CUFFT_INVERSE));
  EXPECT_EQ(pre.reason("cufftXtExec", "fft_plan_unknown"), 1u);
  // Half precision (PyTorch's cufftXtMakePlanMany): not protected. A C2R of rank 2 is a shape
  // the engine protects (docs/ABFT.md §12.1): here, without a device, the engine is unavailable.
  long long n[1] = {128};
  size_t ws = 0;
  ASSERT_EQ(cufftXtMakePlanMany(q, 1, n, nullptr, 1, 0, CUDA_C_16F, nullptr, 1, 0, CUDA_C_16F, 2, &ws, CUDA_C_16F),
            CUFFT_SUCCESS);
  ASSERT_EQ(cufftXtExec(q, fake(0x1), fake(0x2), CUFFT_FORWARD), CUFFT_SUCCESS);
  EXPECT_EQ(pre.reason("cufftXtExec", "fft_shape"), 1u);
  cufftHandle r = 0;
  ASSERT_EQ(cufftPlan2d(&r, 16, 16, CUFFT_C2R), CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecC2R(r, fake<cufftComplex>(0x1), fake<cufftReal>(0x2)), CUFFT_SUCCESS);
  EXPECT_EQ(pre.reason("cufftExecC2R", "fft_shape"), 0u);
  EXPECT_EQ(pre.reason("cufftExecC2R", "engine_unavailable"), 1u);
  // PyTorch's float path: cufftXtMakePlanMany in float, then cufftXtExec.
  cufftHandle s = 0;
  ASSERT_EQ(cufftCreate(&s), CUFFT_SUCCESS);
  long long inembed[1] = {128}, onembed[1] = {65};
  ASSERT_EQ(cufftXtMakePlanMany(s, 1, n, inembed, 1, 128, CUDA_R_32F, onembed, 1, 65, CUDA_C_32F, 8, &ws, CUDA_C_32F),
            CUFFT_SUCCESS);
  ASSERT_EQ(cufftXtExec(s, fake(0x10), fake(0x20), CUFFT_FORWARD), CUFFT_SUCCESS);
  EXPECT_EQ(fft.last(), describe("cufftXtExec", s, fake(0x10), fake(0x20), CUFFT_FORWARD));
  EXPECT_EQ(pre.reason("cufftXtExec", "engine_unavailable"), 1u);
  EXPECT_EQ(pre.reason("cufftXtExec", "engine_rejected"), 0u);
  expect_counts("cufftXtExec", 3, 0, 3);
}

TEST_F(PreloadNoGpu, PlansWithTheProgramsOwnCallbacksPassThrough) {
  // A legacy callback set on a made plan: its executions go to the program's plan, callbacks and
  // all (the engine's shadow plan would run without them); cleared, the plan is the engine's again.
  cufftHandle p = 0;
  ASSERT_EQ(cufftPlan1d(&p, 256, CUFFT_C2C, 4), CUFFT_SUCCESS);
  void* routine[1] = {fake(0x77)};
  ASSERT_EQ(cufftXtSetCallback(p, routine, CUFFT_CB_LD_COMPLEX, nullptr), CUFFT_SUCCESS);
  EXPECT_EQ(fft.calls_of("cufftXtSetCallback"), 1u) << "forwarded to the real cuFFT";
  ASSERT_EQ(cufftExecC2C(p, fake<cufftComplex>(0x100), fake<cufftComplex>(0x200), CUFFT_FORWARD), CUFFT_SUCCESS);
  EXPECT_EQ(fft.last(), describe("cufftExecC2C", p, fake<cufftComplex>(0x100), fake<cufftComplex>(0x200), CUFFT_FORWARD));
  EXPECT_EQ(pre.reason("cufftExecC2C", "fft_callbacks"), 1u);
  ASSERT_EQ(cufftXtClearCallback(p, CUFFT_CB_LD_COMPLEX), CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecC2C(p, fake<cufftComplex>(0x100), fake<cufftComplex>(0x200), CUFFT_FORWARD), CUFFT_SUCCESS);
  EXPECT_EQ(pre.reason("cufftExecC2C", "fft_callbacks"), 1u);
  EXPECT_EQ(pre.reason("cufftExecC2C", "engine_unavailable"), 1u) << "no callbacks left: the engine's (no GPU here)";
  // An LTO callback set on a created handle before its plan is made (CUDA 13's order) outlives
  // the planning.
  cufftHandle q = 0;
  ASSERT_EQ(cufftCreate(&q), CUFFT_SUCCESS);
  ASSERT_EQ(cufftXtSetJITCallback(q, "cb", fake(0x1), 16, CUFFT_CB_ST_COMPLEX, nullptr), CUFFT_SUCCESS);
  EXPECT_EQ(fft.calls_of("cufftXtSetJITCallback"), 1u);
  size_t ws = 0;
  int n[1] = {64};
  ASSERT_EQ(cufftMakePlanMany(q, 1, n, nullptr, 1, 64, nullptr, 1, 64, CUFFT_C2C, 2, &ws), CUFFT_SUCCESS);
  ASSERT_EQ(cufftXtExec(q, fake(0x1), fake(0x2), CUFFT_INVERSE), CUFFT_SUCCESS);
  EXPECT_EQ(pre.reason("cufftXtExec", "fft_callbacks"), 1u);
  cufftDestroy(p);
  cufftDestroy(q);
}

TEST_F(PreloadNoGpu, AStreamSetBeforeThePlanIsMadeIsKept) {
  auto fft_stream = reinterpret_cast<int (*)(int, void**)>(dlsym(RTLD_DEFAULT, "abft_preload_fft_stream"));
  ASSERT_NE(fft_stream, nullptr);
  // cufftCreate -> cufftSetStream -> cufftMakePlan*: the order PyTorch and many programs use.
  cufftHandle p = 0;
  ASSERT_EQ(cufftCreate(&p), CUFFT_SUCCESS);
  ASSERT_EQ(cufftSetStream(p, fake<CUstream_st>(0x55)), CUFFT_SUCCESS);
  void* s = nullptr;
  ASSERT_EQ(fft_stream(p, &s), 0) << "the stream of a handle without a plan yet must be kept";
  EXPECT_EQ(s, fake(0x55));
  size_t ws = 0;
  ASSERT_EQ(cufftMakePlan1d(p, 64, CUFFT_C2C, 2, &ws), CUFFT_SUCCESS);
  s = nullptr;
  ASSERT_EQ(fft_stream(p, &s), 0);
  EXPECT_EQ(s, fake(0x55)) << "making the plan must not lose the stream";
  ASSERT_EQ(cufftExecC2C(p, fake<cufftComplex>(0x10), fake<cufftComplex>(0x10), CUFFT_FORWARD), CUFFT_SUCCESS);
  EXPECT_EQ(pre.reason("cufftExecC2C", "engine_unavailable"), 1u) << "a made plan, not an unknown one";
  EXPECT_EQ(pre.reason("cufftExecC2C", "fft_plan_unknown"), 0u);
  // Changed after the plan: followed too.
  ASSERT_EQ(cufftSetStream(p, fake<CUstream_st>(0x66)), CUFFT_SUCCESS);
  ASSERT_EQ(fft_stream(p, &s), 0);
  EXPECT_EQ(s, fake(0x66));
  // A handle with only a stream is not a plan the library saw made.
  cufftHandle q = 0;
  ASSERT_EQ(cufftCreate(&q), CUFFT_SUCCESS);
  ASSERT_EQ(cufftSetStream(q, fake<CUstream_st>(0x77)), CUFFT_SUCCESS);
  ASSERT_EQ(cufftExecC2C(q, fake<cufftComplex>(0x10), fake<cufftComplex>(0x10), CUFFT_FORWARD), CUFFT_SUCCESS);
  EXPECT_EQ(pre.reason("cufftExecC2C", "fft_plan_unknown"), 1u);
  // Destroyed: forgotten; cufftPlan* on a reused value starts with the default stream.
  ASSERT_EQ(cufftDestroy(p), CUFFT_SUCCESS);
  ASSERT_EQ(cufftDestroy(q), CUFFT_SUCCESS);
  EXPECT_EQ(fft_stream(p, &s), -1);
  EXPECT_EQ(fft_stream(q, &s), -1);
  EXPECT_EQ(pre.reason("cufftExecC2C", "engine_rejected"), 0u);
}

TEST_F(PreloadNoGpu, NestedCallsGoStraightToTheRealLibraryUncounted) {
  // The stub's cublasSgemm_v2 calls the process's cublasGemmEx (the interposer's) while the
  // interposer is forwarding to it: the guard must forward that call unchanged and not count it.
  stub_cublas_set_nested(1);
  const cublasStatus_t st = cublasSgemm_v2(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, fake<float>(0x1000), 4,
                                           fake<float>(0x2000), 4, &beta, fake<float>(0x3000), 4);
  stub_cublas_set_nested(0);
  ASSERT_EQ(st, CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(pre.nested(), 1u);
  expect_counts("cublasGemmEx", 0, 0, 0);
  expect_counts("cublasSgemm_v2", 1, 0, 1);
  EXPECT_EQ(blas.last(), describe("cublasGemmEx", handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4,
                                  static_cast<const void*>(&alpha), fake(0x1000), CUDA_R_32F, 4, fake(0x2000),
                                  CUDA_R_32F, 4, static_cast<const void*>(&beta), fake(0x3000), CUDA_R_32F, 4,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  // The same call made by the program itself is counted.
  ASSERT_EQ(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, fake(0x1000), CUDA_R_32F, 4, fake(0x2000),
                         CUDA_R_32F, 4, &beta, fake(0x3000), CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  expect_counts("cublasGemmEx", 1, 0, 1);
  EXPECT_EQ(pre.nested(), 1u);
}

TEST_F(PreloadNoGpu, CublasOwnCallsIntoCublasLtAreNestedNotTheProgramsCalls) {
  // cuBLAS's entry points that the library does not intercept run their products through
  // cublasLtMatmul: a call whose return address is inside the program's cuBLAS is cuBLAS's own,
  // forwarded unchanged and counted as nested, never as a program call.
  ASSERT_EQ(stub_cublas_call_lt(), int(CUBLAS_STATUS_SUCCESS));
  EXPECT_EQ(lt.calls_of("cublasLtMatmul"), 1u);
  expect_counts("cublasLtMatmul", 0, 0, 0);
  EXPECT_EQ(pre.nested(), 1u);
}

TEST_F(PreloadNoGpu, ReportListsEntryPointsAndReasons) {
  cublasSgemm_v2(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, fake<float>(0x1000), 4, fake<float>(0x2000), 4,
                 &beta, fake<float>(0x3000), 4);
  const std::string r = pre.report();
  EXPECT_NE(r.find("abft-preload report"), std::string::npos) << r;
  EXPECT_NE(r.find("cublasSgemm_v2"), std::string::npos) << r;
  EXPECT_NE(r.find("engine unavailable"), std::string::npos) << r;
  EXPECT_EQ(r.find("cublasDgemm_v2"), std::string::npos) << "entry points never called are not listed\n" << r;
}

TEST(PreloadOverride, CallsReachTheLibraryNamedByTheEnvironment) {
  const char* alt = env("ABFT_PRELOAD_CUBLAS");
  if (!alt) GTEST_SKIP() << "needs ABFT_PRELOAD_CUBLAS (its own ctest entry)";
  probe::Preload pre;
  ASSERT_TRUE(pre.loaded());
  probe::StubLog main_log(RTLD_DEFAULT, "stub_cublas");
  void* h = dlopen(alt, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  probe::StubLog alt_log(h, "stub_cublas");
  ASSERT_TRUE(main_log.ok() && alt_log.ok());
  auto identity = reinterpret_cast<const char* (*)(void)>(dlsym(h, "stub_cublas_identity"));
  ASSERT_NE(identity, nullptr);
  ASSERT_STREQ(identity(), "alt");
  cublasHandle_t handle = nullptr;
  ASSERT_EQ(cublasCreate_v2(&handle), CUBLAS_STATUS_SUCCESS);  // the linked stub's handle (same layout)
  main_log.clear(), alt_log.clear();
  float alpha = 1, beta = 0;
  ASSERT_EQ(cublasSgemm_v2(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, fake<float>(0x10), 2, fake<float>(0x20),
                           2, &beta, fake<float>(0x30), 2),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(alt_log.last(), describe("cublasSgemm_v2", handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha,
                                     fake<float>(0x10), 2, fake<float>(0x20), 2, &beta, fake<float>(0x30), 2));
  EXPECT_EQ(main_log.calls_of("cublasSgemm_v2"), 0u);
  cublasDestroy_v2(handle);
}

TEST(PreloadReport, PassedThroughCallsAreListedAtExit) {
  // ctest checks the report this process prints at exit (ABFT_PRELOAD_REPORT=stderr). Both calls
  // pass through on any machine (half accumulation, mixed types): the engine is never entered.
  probe::Preload pre;
  ASSERT_TRUE(pre.loaded());
  pre.reset();
  cublasHandle_t handle = nullptr;
  ASSERT_EQ(cublasCreate_v2(&handle), CUBLAS_STATUS_SUCCESS);
  float alpha = 1, beta = 0;
  const __half h1 = __float2half(1.0f), h0 = __float2half(0.0f);
  EXPECT_EQ(cublasHgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &h1, fake<__half>(0x10), 2, fake<__half>(0x20), 2,
                        &h0, fake<__half>(0x30), 2),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, fake(0x10), CUDA_R_16F, 2, fake(0x20),
                         CUDA_R_16F, 2, &beta, fake(0x30), CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  cublasDestroy_v2(handle);
}
