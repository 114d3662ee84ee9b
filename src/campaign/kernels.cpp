/** \file kernels.cpp
 *  \brief The campaign's kernel table: names, types, sizes, and the adapter each maps to.
 */
#include "campaign/kernel.hpp"

namespace abft::campaign {

const char* type_name(DataType t) {
  switch (t) {
    case DataType::F32: return "f32";
    case DataType::F64: return "f64";
    case DataType::C32: return "c32";
    default: return "c64";
  }
}

int type_bits(DataType t) { return (t == DataType::F32 || t == DataType::C32) ? 32 : 64; }

const std::vector<KernelInfo>& kernel_list() {
  static const std::vector<KernelInfo> list = {
      {"gemm", "f32,f64,c32,c64", "m,n,k (96,96,96)",
       "protected GEMM; --variant <ta><tb>[-row|-col], ta/tb in n,t,c (nn-row; complex: -col)"},
      {"symm", "f32,f64,c32,c64", "m,n (96,96)",
       "BLAS ?SYMM through the shim's Level-3 core; --variant side,uplo (L,U)"},
      {"hemm", "c32,c64", "m,n (96,96)", "BLAS ?HEMM; --variant side,uplo (L,U)"},
      {"syrk", "f32,f64,c32,c64", "n,k (160,64)",
       "BLAS ?SYRK; --variant uplo,trans (U,N); trans N/T/C real, N/T complex"},
      {"herk", "c32,c64", "n,k (160,64)", "BLAS ?HERK; --variant uplo,trans (U,N); trans N/C"},
      {"syr2k", "f32,f64,c32,c64", "n,k (160,64)", "BLAS ?SYR2K; --variant uplo,trans (U,N)"},
      {"her2k", "c32,c64", "n,k (160,64)", "BLAS ?HER2K; --variant uplo,trans (U,N); trans N/C"},
      {"trmm", "f32,f64,c32,c64", "m,n (160,64)", "BLAS ?TRMM; --variant side,uplo,transa,diag (L,U,N,N)"},
      {"trsm", "f32,f64,c32,c64", "m,n (96,96)",
       "BLAS ?TRSM: checked diagonal blocks + GEMM updates; --variant side,uplo,transa,diag (L,L,N,N)"},
      {"fft", "f32,f64", "n,batch (1024,4)", "protected FFT; --variant c2c (forward), c2c-bwd, r2c, c2r"},
      {"attn-fwd", "f32", "q,kv,d,heads[,kv_heads] (72,128,64,2,1)",
       "protected attention forward (O, lse); --variant causal|full"},
      {"attn-bwd", "f32", "q,kv,d,heads[,kv_heads] (72,128,64,2,1)",
       "protected attention backward (dQ, dK, dV); --variant causal|full"},
      {"cuda-gemm", "f32,f64", "m,n,k (512,512,512)",
       "protected GPU GEMM (cuBLAS product, abft checks; needs a device); --variant <ta><tb>, n or t"},
      {"cuda-fft", "f32,f64", "n,batch (4096,8); 2D / 3D: n0,n1[,n2],batch (64,64,8 / 16,16,16,8)",
       "protected GPU FFT (cuFFT transform, abft checks; needs a device); --variant c2c, c2c-bwd, r2c, c2r, each "
       "also with -2d or -3d"},
      {"cuda-attn-fwd", "f32", "q,kv,d,heads[,kv_heads] (72,128,64,2,1)",
       "protected GPU attention forward (fused kernel; needs a device); --variant causal|full"},
      {"cuda-attn-bwd", "f32", "q,kv,d,heads[,kv_heads] (72,128,64,2,1)",
       "protected GPU attention backward (dQ, dK, dV; fused kernels; needs a device); --variant causal|full"},
      {"train", "f32", "batch,seq (2,16)",
       "one training step (forward, loss, backward; output: loss + gradient); "
       "--variant gpt2-tiny|llama-tiny|gpt2-demo|llama-demo"},
      {"cuda-train", "f32", "batch,seq (2,16)",
       "one training step on the GPU engine's resident pass (needs a device); "
       "--variant gpt2-tiny|llama-tiny|gpt2-demo|llama-demo"},
  };
  return list;
}

std::unique_ptr<Kernel> make_kernel(const KernelOptions& o, std::string* error) {
  const std::string& k = o.kernel;
  for (const KernelInfo& ki : kernel_list())
    if (k == ki.name) {
      const std::string types = std::string(",") + ki.types + ",";
      if (types.find(std::string(",") + type_name(o.type) + ",") == std::string::npos) {
        *error = "kernel '" + k + "' has no type " + type_name(o.type) + " (it has " + ki.types + ")";
        return nullptr;
      }
    }
  if (k == "gemm") return make_gemm_kernel(o, error);
  if (k == "fft") return make_fft_kernel(o, error);
  if (k == "attn-fwd" || k == "attn-bwd") return make_attention_kernel(o, error);
  if (k == "train" || k == "cuda-train") return make_train_kernel(o, error);
  if (k == "selftest") return make_selftest_kernel(o, error);
  if (k == "cuda-gemm") return make_cuda_gemm_kernel(o, error);
  if (k == "cuda-fft") return make_cuda_fft_kernel(o, error);
  if (k == "cuda-attn-fwd" || k == "cuda-attn-bwd") return make_cuda_attention_kernel(o, error);
  for (const char* r : {"symm", "hemm", "syrk", "herk", "syr2k", "her2k", "trmm", "trsm"})
    if (k == r) return make_blas3_kernel(o, error);
  *error = "unknown kernel '" + k + "' (abft campaign --list shows them)";
  return nullptr;
}

}  // namespace abft::campaign
