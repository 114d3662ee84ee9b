/** \file fft_callback_link_test.cpp
 *  \brief The FFT's cuFFT callbacks as the library embeds them (cuda/fft_callbacks.cu: two
 *  LTO-IR images, the loads and the stores) link together and compile for sm_90 — on the host, through nvJitLink, the library cuFFT itself links
 *  them with at plan time — against a kernel that calls every one of them by the names the
 *  plan gives cuFFT (tests/cuda/fft_callback_driver.cu). No GPU needed: this runs in every CUDA
 *  build, so a callback that no longer links, or a renamed one, fails here and not first on a
 *  device. ptxas's resource report (registers, spills) is printed for the record.
 *
 *  And each callback links into the wrapper cuFFT itself puts around it: at planning, cuFFT 12
 *  (CUDA 13) compiles with NVRTC, as C++, a device function of its own per callback that
 *  declares the named symbol with the callback's signature and calls it (the source template is
 *  in libcufft.so.12's strings; rebuilt here with the same names, types and NVRTC options), and
 *  links that with the caller's image through nvJitLink. Until 2026-12-08 the callbacks were
 *  extern "C": the driver above, declaring them extern "C" too, linked, but cuFFT's wrapper
 *  references their C++ names and would have failed every callback plan on a GPU.
 */
#include <gtest/gtest.h>
#include <nvJitLink.h>
#include <nvrtc.h>

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

/** One callback as cuFFT's planner wraps it: the wrapper's source (cuFFT's typedefs, an extern
 *  declaration of `symbol` with the callback's signature, a wrapper function of cuFFT's name
 *  calling it) plus a kernel that calls the wrapper, so that the link must resolve the symbol. */
std::string cufft_wrapper_source(const char* symbol, const char* type, const char* wrapper, bool load) {
  std::string s =
      "typedef float cufftReal;\ntypedef double cufftDoubleReal;\ntypedef float2 cufftComplex;\n"
      "typedef double2 cufftDoubleComplex;\n";
  const std::string T = type, S = symbol, W = wrapper;
  if (load) {
    s += "extern __device__ " + T + " " + S + "(void *a, unsigned long long index, void *cb_info, void *sharedmem);\n";
    s += "__device__ " + T + " " + W + "(void *a, unsigned long long index, void *cb_info, void *sharedmem)\n";
    s += "{ return " + S + "(a, index, cb_info, sharedmem); }\n";
    s += "extern \"C\" __global__ void drive(" + T + "* a, void* info) { a[threadIdx.x + 1] = " + W +
         "(a, threadIdx.x, info, 0); }\n";
  } else {
    s += "extern __device__ void " + S + "(void *a, unsigned long long index, " + T +
         " element, void *cb_info, void *sharedmem);\n";
    s += "__device__ void " + W + "(void *a, unsigned long long index, " + T +
         " element, void *cb_info, void *sharedmem)\n";
    s += "{ return " + S + "(a, index, element, cb_info, sharedmem); }\n";
    s += "extern \"C\" __global__ void drive(" + T + "* a, void* info) { " + W + "(a, threadIdx.x, a[0], info, 0); }\n";
  }
  return s;
}

/** NVRTC's LTO-IR of `src` for compute_90 (empty, with the log in *err, on failure). */
std::vector<char> nvrtc_lto_ir(const std::string& src, std::string* err) {
  nvrtcProgram p = nullptr;
  if (nvrtcCreateProgram(&p, src.c_str(), "wrapper_code.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    *err = "nvrtcCreateProgram failed";
    return {};
  }
  const char* opts[] = {"-dlto", "--relocatable-device-code=true", "-arch=compute_90"};
  std::vector<char> ir;
  if (nvrtcCompileProgram(p, 3, opts) != NVRTC_SUCCESS) {
    size_t n = 0;
    nvrtcGetProgramLogSize(p, &n);
    std::string log(n + 1, '\0');
    nvrtcGetProgramLog(p, log.data());
    *err = log.c_str();
  } else {
    size_t n = 0;
    nvrtcGetLTOIRSize(p, &n);
    ir.resize(n);
    nvrtcGetLTOIR(p, ir.data());
  }
  nvrtcDestroyProgram(&p);
  return ir;
}

TEST(FftCallbackLink, EveryCallbackLinksIntoCufftsWrapper) {
  // In cufftXtCallbackType's order (kFftCallbackSymbols' order): the element type and the name
  // of cuFFT's wrapper function.
  const struct {
    const char* type;
    const char* wrapper;
  } kinds[8] = {{"cufftComplex", "cufftJITCallbackLoadComplex"},
                {"cufftDoubleComplex", "cufftJITCallbackLoadDoubleComplex"},
                {"cufftReal", "cufftJITCallbackLoadReal"},
                {"cufftDoubleReal", "cufftJITCallbackLoadDoubleReal"},
                {"cufftComplex", "cufftJITCallbackStoreComplex"},
                {"cufftDoubleComplex", "cufftJITCallbackStoreDoubleComplex"},
                {"cufftReal", "cufftJITCallbackStoreReal"},
                {"cufftDoubleReal", "cufftJITCallbackStoreDoubleReal"}};
  for (int i = 0; i < 8; ++i) {
    const bool load = i < 4;
    const char* sym = abft::cuda::kFftCallbackSymbols[i];
    SCOPED_TRACE(sym);
    std::string err;
    const std::vector<char> ir = nvrtc_lto_ir(cufft_wrapper_source(sym, kinds[i].type, kinds[i].wrapper, load), &err);
    ASSERT_FALSE(ir.empty()) << "NVRTC: " << err;
    nvJitLinkHandle h = nullptr;
    const char* opts[] = {"-arch=sm_90", "-lto"};
    ASSERT_EQ(nvJitLinkCreate(&h, 2, opts), NVJITLINK_SUCCESS);
    EXPECT_EQ(nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir.data(), ir.size(), "cufft_wrapper"), NVJITLINK_SUCCESS);
    // The plan's image of this callback's role.
    EXPECT_EQ(load ? nvJitLinkAddData(h, NVJITLINK_INPUT_FATBIN, abft::cuda::kFftLoadsImage,
                                      abft::cuda::kFftLoadsImage_size, "fft_callbacks_loads")
                   : nvJitLinkAddData(h, NVJITLINK_INPUT_FATBIN, abft::cuda::kFftStoresImage,
                                      abft::cuda::kFftStoresImage_size, "fft_callbacks_stores"),
              NVJITLINK_SUCCESS);
    EXPECT_EQ(nvJitLinkComplete(h), NVJITLINK_SUCCESS) << info_log(h, true);
    nvJitLinkDestroy(&h);
  }
}

}  // namespace
