/** \file stats.hpp
 *  \brief Error statistics of the transformer runtime, per layer and per op: what the protected
 *  kernels reported for each matrix product and attention call, and what the invariant checks
 *  of the other ops found. Printable as a table, as JSON, and as a one-line summary.
 */
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "abft/abft.h"

namespace abft::transformer {

/** The ops of a decoder pass. The first seven run on protected kernels (ABFT); the others are
 *  covered by invariant checks only (docs/RELIABILITY.md lists which). */
enum class OpKind : int {
  QKV = 0,       ///< GPT-2 c_attn; Llama q_proj, k_proj, v_proj
  Attention,     ///< fused attention (forward; backward in Pass::Backward)
  OutProj,       ///< GPT-2 attn.c_proj; Llama o_proj
  MlpUp,         ///< GPT-2 mlp.c_fc; Llama up_proj
  MlpGate,       ///< Llama gate_proj
  MlpDown,       ///< GPT-2 mlp.c_proj; Llama down_proj
  LmHead,        ///< logits from the final norm (tied: the token embedding)
  Embedding,     ///< token (+ position) lookup
  Norm,          ///< LayerNorm / RMSNorm
  Activation,    ///< GELU / SwiGLU
  Rope,          ///< rotary position embedding
  Loss,          ///< softmax cross-entropy
  Count_
};
const char* op_name(OpKind k);  ///< "qkv", "attention", "out_proj", "mlp_up", ...
bool op_is_abft(OpKind k);      ///< true for the products and attention

/** Forward; Backward is the data gradient (dX of a product, dQ/dK/dV of attention, the
 *  backward of a pointwise op); Weight is the weight gradient (dW += X^T dY) of a product. */
enum class Pass : int { Forward = 0, Backward, Weight, Count_ };
const char* pass_name(Pass p);  ///< "fwd", "bwd", "dW"

struct OpCounters {
  uint64_t calls = 0;          ///< kernel calls (or pointwise op applications)
  uint64_t checks = 0;         ///< checksum verifications / invariant checks
  uint64_t detected = 0;       ///< checks that failed
  uint64_t corrected = 0;      ///< faults repaired (elements, units or ops recomputed that re-verified)
  uint64_t recomputed = 0;     ///< recomputations (rows, blocks, whole ops)
  uint64_t uncorrectable = 0;  ///< repairs that did not re-verify
  uint64_t skipped = 0;        ///< checks skipped (non-finite input)
  uint64_t injected = 0;       ///< faults the injector landed in these calls
  double seconds = 0.0;        ///< wall time of the calls, checks included
  /** Time spent checking, estimated from sampled shadow runs (the same call repeated with
   *  policy off and timed); 0 unless ModelOptions::check_timing is on. */
  double check_seconds = 0.0;
  uint64_t timing_samples = 0;  ///< shadow runs behind check_seconds

  void add(const OpCounters& o);
  void add_report(const abft_report& r);
};

class RunStats {
 public:
  explicit RunStats(int layers = 0);
  void resize(int layers);  ///< also resets
  int layers() const { return layers_; }
  /** layer -1: the model-level ops (embedding, final norm, LM head, loss). */
  OpCounters& at(int layer, OpKind op, Pass pass);
  const OpCounters& at(int layer, OpKind op, Pass pass) const;
  OpCounters total() const;
  OpCounters total(OpKind op, Pass pass) const;  ///< summed over layers
  void reset();
  void add(const RunStats& other);  ///< same layer count

  /** A table: one row per (op, pass) summed over layers, or per (layer, op, pass) with
   *  per_layer; rows that saw no call are left out. Ends with a total row. */
  std::string table(bool per_layer = false) const;
  /** {"layers": N, "total": {...}, "ops": [{"layer": l, "op": "qkv", "pass": "fwd", "abft": true,
   *  "calls": .., ...}, ...]} with every row that saw a call. */
  std::string json() const;
  /** "checks 1536 detected 2 corrected 2 recomputed 0 uncorrectable 0 injected 2" */
  std::string summary_line() const;

 private:
  int layers_ = 0;
  std::vector<OpCounters> rows_;  // (layers_ + 1) x OpKind x Pass; index 0 = layer -1
};

}  // namespace abft::transformer
