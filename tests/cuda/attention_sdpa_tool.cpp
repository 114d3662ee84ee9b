/** \file attention_sdpa_tool.cpp
 *  \brief Runs the protected GPU attention forward on inputs written by
 *  scripts/gpu_attention_sdpa_check.py, which compares the output with PyTorch's
 *  scaled_dot_product_attention and a float64 reference on the device machine (issue 11's check
 *  against SDPA; PyTorch is not a build dependency, so the comparison lives in the script).
 *
 *  Usage: attention_sdpa_tool DIR
 *  DIR/meta.txt: "B H HK Lq Lk D causal dtype" (dtype: f32, f16 or bf16); DIR/q.bin, k.bin, v.bin:
 *  float32, contiguous [B, H|HK, L, D], values already representable in dtype. Writes DIR/o.bin
 *  (float32 [B, H, Lq, D], the stored output widened) and DIR/lse.bin (float32 [B, H, Lq]); prints
 *  the call's report. Exit status: 0, 1 on a failed call or a detection, 2 on bad input.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "abft/abft.h"
#include "abft/abft_cuda.h"

namespace {

bool read_floats(const std::string& path, std::vector<float>& out, size_t n) {
  std::ifstream in(path, std::ios::binary);
  out.resize(n);
  return in && in.read(reinterpret_cast<char*>(out.data()), std::streamsize(n * 4)) && in.gcount() == std::streamsize(n * 4);
}

bool write_floats(const std::string& path, const std::vector<float>& v) {
  std::ofstream out(path, std::ios::binary);
  return out && out.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * 4));
}

/** Host floats to device storage of dtype t (2 or 4 bytes an element). */
void* upload(const std::vector<float>& h, abft_cuda_dtype t) {
  const size_t es = t == ABFT_CUDA_FLOAT ? 4 : 2;
  std::vector<unsigned char> b(h.size() * es);
  for (size_t i = 0; i < h.size(); ++i) {
    if (t == ABFT_CUDA_FLOAT) {
      std::memcpy(&b[i * 4], &h[i], 4);
    } else if (t == ABFT_CUDA_HALF) {
      const __half x = __float2half_rn(h[i]);
      std::memcpy(&b[i * 2], &x, 2);
    } else {
      const __nv_bfloat16 x = __float2bfloat16_rn(h[i]);
      std::memcpy(&b[i * 2], &x, 2);
    }
  }
  void* p = nullptr;
  if (cudaMalloc(&p, std::max<size_t>(b.size(), 1)) != cudaSuccess) return nullptr;
  cudaMemcpy(p, b.data(), b.size(), cudaMemcpyHostToDevice);
  return p;
}

std::vector<float> download(const void* p, size_t n, abft_cuda_dtype t) {
  const size_t es = t == ABFT_CUDA_FLOAT ? 4 : 2;
  std::vector<unsigned char> b(n * es);
  cudaMemcpy(b.data(), p, b.size(), cudaMemcpyDeviceToHost);
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) {
    if (t == ABFT_CUDA_FLOAT) {
      std::memcpy(&h[i], &b[i * 4], 4);
    } else if (t == ABFT_CUDA_HALF) {
      __half x;
      std::memcpy(&x, &b[i * 2], 2);
      h[i] = __half2float(x);
    } else {
      __nv_bfloat16 x;
      std::memcpy(&x, &b[i * 2], 2);
      h[i] = __bfloat162float(x);
    }
  }
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: attention_sdpa_tool DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  long long B = 0, H = 0, HK = 0, Lq = 0, Lk = 0, D = 0;
  int causal = 0;
  char dt[16] = {};
  FILE* f = std::fopen((dir + "/meta.txt").c_str(), "r");
  if (!f || std::fscanf(f, "%lld %lld %lld %lld %lld %lld %d %15s", &B, &H, &HK, &Lq, &Lk, &D, &causal, dt) != 8) {
    std::fprintf(stderr, "attention_sdpa_tool: cannot read %s/meta.txt\n", dir.c_str());
    if (f) std::fclose(f);
    return 2;
  }
  std::fclose(f);
  const std::string ds = dt;
  const abft_cuda_dtype t = ds == "f32" ? ABFT_CUDA_FLOAT : ds == "f16" ? ABFT_CUDA_HALF : ABFT_CUDA_BFLOAT16;
  if (ds != "f32" && ds != "f16" && ds != "bf16") {
    std::fprintf(stderr, "attention_sdpa_tool: dtype '%s' is not f32, f16 or bf16\n", dt);
    return 2;
  }
  const size_t nq = size_t(B * H * Lq * D), nk = size_t(B * HK * Lk * D);
  std::vector<float> q, k, v;
  if (!read_floats(dir + "/q.bin", q, nq) || !read_floats(dir + "/k.bin", k, nk) || !read_floats(dir + "/v.bin", v, nk)) {
    std::fprintf(stderr, "attention_sdpa_tool: q.bin, k.bin or v.bin is missing or short\n");
    return 2;
  }
  abft_attention_desc d{};
  abft_attention_desc_init(&d, B, H, HK, Lq, Lk, D);
  d.causal = causal;
  void *dq = upload(q, t), *dk = upload(k, t), *dv = upload(v, t), *dout = nullptr;
  float* dl = nullptr;
  cudaMalloc(&dout, std::max<size_t>(nq, 1) * (t == ABFT_CUDA_FLOAT ? 4 : 2));
  cudaMalloc(&dl, size_t(std::max<long long>(B * H * Lq, 1)) * 4);
  abft_handle_t h = nullptr;
  abft_handle_create(&h);
  const abft_status s = abft_cuda_attention_forward(h, nullptr, ABFT_POLICY_CORRECT, &d, t, dq, dk, dv, nullptr, dout, dl);
  abft_report r{};
  const abft_status ss = abft_cuda_sync(h, nullptr, &r);
  std::printf("call %s, sync %s: checks %llu detected %llu corrected %llu skipped %llu\n", abft_status_string(s),
              abft_status_string(ss), (unsigned long long)r.checks, (unsigned long long)r.detected,
              (unsigned long long)r.corrected, (unsigned long long)r.skipped);
  const std::vector<float> o = download(dout, nq, t);
  std::vector<float> lse(size_t(B * H * Lq));
  cudaMemcpy(lse.data(), dl, lse.size() * 4, cudaMemcpyDeviceToHost);
  const bool wrote = write_floats(dir + "/o.bin", o) && write_floats(dir + "/lse.bin", lse);
  cudaFree(dq), cudaFree(dk), cudaFree(dv), cudaFree(dout), cudaFree(dl);
  abft_cuda_release(h);
  abft_handle_destroy(h);
  return (s == ABFT_STATUS_SUCCESS && ss == ABFT_STATUS_SUCCESS && r.detected == 0 && wrote) ? 0 : 1;
}
