/** \file ops_resident.hpp
 *  \brief The GPU engine's resident pass: Model::forward and Model::loss on Engine::Gpu keep the
 *  whole pass on the device — activations and gradients in device buffers (Workspace on the
 *  device), the weights in one device copy (gpu_resident_weights), the products and attention on
 *  the protected kernels with device pointers, and the pointwise ops on the runtime's own kernels
 *  (cuda/runtime_ops.cu) with the CPU engine's invariant checks. Nothing crosses to the host but
 *  the token ids and targets going in, the logits, loss and gradients coming out. The checks'
 *  outcomes stay on the device until the pass ends (flush): each protected call counts straight
 *  into a snapshot of its own in a ledger (abft_cuda_count_into: no launch per call) and the
 *  pointwise checks set flags; the ids go in and the loss comes back through page-locked
 *  staging, so the host never waits inside a pass — one wait at its end brings the ledger, the
 *  flags and the loss back together — and the per-layer statistics are the CPU engine's. (The
 *  seconds a GPU pass records per op are the host's time to enqueue it.)
 *
 *  Each op of ops.hpp calls its namesake here when its OpContext has a ResidentState; they
 *  take the same arguments. The ids (tokens, positions) of a pass are uploaded by its
 *  embed_fwd; rope and embed_bwd use them (their host pointers are not read).
 */
#pragma once
#include <memory>
#include <vector>

#include "buffer.hpp"
#include "ops.hpp"

namespace abft::transformer::ops {

/** What a resident pass keeps on the device besides its activations. */
struct ResidentState {
  /** One pending invariant check: the op call, its two device flags (runtime_ops.hpp's
   *  CheckFlags at flags[2 i]), the host time of its launch. */
  struct Pending {
    int layer;
    OpKind op;
    Pass pass;
    double sec;
  };
  std::vector<Pending> pending;
  Buf<uint32_t> flags{true};
  /** One protected call (product, attention) whose counters wait in the ledger: snapshot i at
   *  ledger + i * abft_cuda_counters_bytes(), the one the handle counted into for that call
   *  (the next call's is set as each call is recorded). The ledger and the flags are zero where
   *  no call or check of the pass has counted yet (cleared after each flush). */
  struct Call {
    int layer;
    OpKind op;
    Pass pass;
  };
  std::vector<Call> calls;
  Buf<unsigned char> ledger{true};
  Buf<int32_t> tok{true}, pos{true}, tgt{true};
  int64_t ids = 0;  ///< rows of the ids uploaded by the pass's embed_fwd
  bool open = false;  ///< a pass has begun and not ended (it threw, when the next one begins)
  Buf<float> cos_t{true}, sin_t{true};  ///< the rotary tables (Llama), copied by the Workspace
  Buf<double> scratch{true};          ///< column sums
  Buf<double> loss{true};             ///< per-row losses and their total
  PinnedBytes up;                     ///< the pass's ids on their way in (tokens, positions, targets)
  size_t up_used = 0;                 ///< bytes of `up` the pass has filled
  PinnedBytes down;                   ///< the ledger, flags and loss on their way back (flush)
  /** The held weights' device copy the pass reads (Model::view_for), and the checks' encodings
   *  of the weights the products read (gpu_sgemm_encode: a weight's per shape it is used in),
   *  made at first use and kept while the copy's version (gpu_weights_version) stays, so that a
   *  product reads its weight once (for the product), not twice: decoding reads each weight once
   *  a token instead of twice. Made again (into the same device buffers: no allocation, which
   *  may wait) when the version changes — a training step's update — and after a pass whose
   *  calls found an uncorrectable column (a fault in an encoding would otherwise fail every
   *  later call). */
  const float* weights = nullptr;
  size_t weights_n = 0;
  struct Encoding {
    const float* w;
    abft_op ta, tb;
    int64_t n, k, ld;
    Buf<double> pairs{true};
    bool stale = false;  ///< to be made again at its next use (into the same device buffer)
  };
  std::vector<std::unique_ptr<Encoding>> encodings;
  uint64_t encodings_version = 0;
  bool loss_pending = false;          ///< a cross-entropy ran: its total comes with the next flush
  int64_t loss_count = 0;             ///< its targets that count
  double loss_total = 0.0;            ///< its sum of row losses, once flushed
};

namespace resident {

/** A pass starts. After a pass that threw (begun, never ended) its leftovers are dropped first. */
void begin(OpContext& cx);
/** Wait for the device once and move the pending checks' outcomes, the protected calls' reports
 *  and the loss into the statistics (the only wait of a pass but its outputs' copies; also
 *  mid-pass when the pending lists are full). */
void flush(OpContext& cx);
/** A pass ends: flush; the handle counts into its own counters again. */
void end(OpContext& cx);
/** After a protected call of (layer, op, pass) launched with status s: the call recorded now
 *  (OpContext::record: calls, time, injected faults; an argument error thrown), its snapshot in
 *  the ledger kept (the handle counts the next call into the next one), its report added at
 *  flush. */
void record_call(OpContext& cx, int layer, OpKind op, Pass pass, abft_status s, double sec, const char* what);
/** The checks' encoding for a row-major product whose B lies in the pass's held weights (made at
 *  its first use: gpu_sgemm_encode, queued, no wait), or null: B is not a weight, or policy off. */
const double* weight_encoding(OpContext& cx, abft_op ta, abft_op tb, int64_t m, int64_t n, int64_t k, const float* A,
                              int64_t lda, const float* B, int64_t ldb);
/** The mean loss of the pass's cross-entropy (its total over its counted targets, 0 when none),
 *  once the pass has ended. */
double pass_loss(const OpContext& cx);
/** Copies between the host and the device (wait for the device); throw Error on failure. */
void upload(void* dev, const void* host, size_t bytes);
void download(void* host, const void* dev, size_t bytes);
/** p[0, n) = 0. */
void zero(float* p, int64_t n);
/** bytes from src to dst, both on the device (stream-ordered, no wait). */
void copy(void* dst, const void* src, size_t bytes);
/** The KV cache's append of `count` rows of the QKV buffer (runtime_ops.hpp's kv_append). */
void kv_append(int64_t count, int64_t kv_heads, int64_t hd, const float* qkv, int64_t ld, int64_t koff,
               int64_t voff, float* kc, float* vc, int64_t cap, int64_t len);

/** AdamW's pieces on the device (runtime_ops.hpp's sum_squares_blocks, adamw_update). */
void sum_squares_blocks(int64_t n, const float* g, int64_t block, double* partial);
void adamw_update(int64_t n, float* w, float* g, float* m, float* v, const uint8_t* decay, float clip_scale, double b1,
                  double b2, double step_size, double inv_sqrt_bc2, double shrink, double eps);

void norm_fwd(OpContext& cx, int layer, int64_t N, int64_t d, const float* x, const float* w, const float* b,
              double eps, float* y, float* mean, float* rstd);
void norm_bwd(OpContext& cx, int layer, int64_t N, int64_t d, const float* x, const float* w, bool layernorm,
              const float* mean, const float* rstd, const float* dy, float* dx, float* dw, float* db);
/** db[j] += sum_i dY[i, j]. */
void column_sums_add(OpContext& cx, int64_t N, int64_t n, const float* dY, int64_t ldy, float* db);
void add_bias(int64_t N, int64_t n, float* Y, int64_t ldy, const float* b);
void residual_add(int64_t N, int64_t d, float* y, const float* r, const float* b);
void bias_gelu_fwd(OpContext& cx, int layer, int64_t N, int64_t f, float* u, const float* b, float* a);
void gelu_bwd(OpContext& cx, int layer, int64_t N, int64_t f, const float* u, const float* da, float* du);
void swiglu_fwd(OpContext& cx, int layer, int64_t N, int64_t f, const float* g, const float* u, float* a);
void swiglu_bwd(OpContext& cx, int layer, int64_t N, int64_t f, const float* g, const float* u, const float* da,
                float* dg, float* du);
/** The rotation by the pass's positions and the state's tables. */
void rope(OpContext& cx, int layer, Pass pass, int64_t N, int64_t heads, int64_t hd, float* x, int64_t ld,
          bool inverse);
/** tok and pos: host ids, already checked; uploaded for the pass. */
void embed_fwd(OpContext& cx, int64_t N, int64_t d, const int32_t* tok, const int32_t* pos, const float* wte,
               const float* wpe, float* x);
void embed_bwd(OpContext& cx, int64_t N, int64_t d, const float* dx, float* dwte, float* dwpe);
/** targets: host, already checked; count of those >= 0. The loss arrives with the pass's end
 *  (pass_loss): no wait here. */
void cross_entropy(OpContext& cx, int64_t N, int64_t V, float* logits, const int32_t* targets, float* dlogits,
                   float g, int64_t count);

}  // namespace resident
}  // namespace abft::transformer::ops
