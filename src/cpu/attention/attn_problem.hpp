/** \file attn_problem.hpp
 *  \brief The normalized attention problem the drivers run on (shapes, strided views,
 *  policy, planned faults) and the per-KV-head packs with their checksum summaries.
 */
#pragma once
#include <atomic>
#include <cstdint>
#include <new>
#include <vector>

#include "abft/attention.h"
#include "abft/checksum/fault_models.hpp"
#include "core/report.hpp"
#include "cpu/attention/attn_kernels.hpp"

namespace abft::cpu::attention {

/** A planned fault in engine coordinates: head instance bh = b*heads + h, row index r
 *  (query i, or key j for dK/dV), column c (key j or head_dim column), reduction point kpos. */
struct AttnFault {
  abft_fault* f = nullptr;
  int64_t bh = 0, r = 0, c = 0, kpos = 0;
};

/** Land a planned fault on a float (the shared fault models), recording what it did. */
inline float land(AttnFault& a, float v) {
  const float x = checksum::apply_fault<float>(v, a.f->model, a.f->bit, a.f->value);
  a.f->original = v;
  a.f->corrupted = x;
  a.f->applied = 1;
  return x;
}

/** A fault on a value as computed, before the kernel summed it into an observed
 *  checksum: the corrupted value is stored and its change added to that sum (obs may be
 *  null when nothing is checked). */
inline void land_computed(AttnFault& a, float& v, double* obs) {
  const float x = land(a, v);
  if (obs) *obs += double(x) - double(v);
  v = x;
}

/** Run one unit of repair (a forward query block, a backward task: anything with
 *  `bool run()` and an `abft_report rep`). A failed check counts a detection; under
 *  CORRECT the unit runs once more from its inputs (a landed fault does not land again)
 *  and is corrected, or uncorrectable when the re-run fails too. */
template <class Unit>
abft_status run_repaired(Unit& u, bool correct) {
  if (u.run()) return ABFT_STATUS_SUCCESS;
  u.rep.detected += 1;
  if (!correct) return ABFT_STATUS_FAULT_DETECTED;
  u.rep.recomputed += 1;
  if (u.run()) {
    u.rep.corrected += 1;
    return ABFT_STATUS_SUCCESS;
  }
  u.rep.uncorrectable += 1;
  return ABFT_STATUS_FAULT_UNCORRECTABLE;
}

/** A 4-D strided view [batch, heads, seq, head_dim]. */
template <class P>
struct View {
  P* data = nullptr;
  int64_t s[4] = {0, 0, 0, 0};
  P* row(int64_t b, int64_t h, int64_t i) const { return data + b * s[0] + h * s[1] + i * s[2]; }
};

struct Problem {
  int64_t B = 0, H = 0, HK = 0, G = 1, Lq = 0, Lk = 0, D = 0, Dp = 0;
  int64_t Dv = 0;  ///< row stride of the V pack: head_dim + the two checksum columns, padded
  float scale = 1.0f;
  bool causal = false;
  int64_t off = 0;  ///< Lk - Lq
  View<const float> q, k, v, mask, o_in, dO;
  View<float> o, dq, dk, dv;
  const float* lse_in = nullptr;  ///< [B, H, Lq] contiguous
  float* lse = nullptr;
  bool has_mask = false;
  bool check = true;    ///< policy != OFF
  bool correct = true;  ///< policy == CORRECT
  int threads = 1;
  std::vector<AttnFault> faults;
  const AttnKernels* kern = nullptr;

  int64_t nqb() const { return (Lq + kQueryBlock - 1) / kQueryBlock; }
  int64_t nkb() const { return (Lk + kKeyBlock - 1) / kKeyBlock; }
};

/** K and V of one KV head, packed contiguous (K rows padded to Dp, V rows to Dv, zeros),
 *  and the checksum summaries formed while packing (GUIDE rule 6):
 *    per key block t: ksum_t = e^T K_t and kabs_t = e^T |K_t| (head_dim each, summed in
 *    double, rounded to float), the same for V (vsumb, vabsb: the backward's dP check);
 *    per key j, in V's row after its head_dim values: sum_c V_jc and sum_c |V_jc| (the
 *    checksum columns the forward's P*V product carries through its rescaling);
 *    finite[t]: the block's K and V rows are all finite. */
struct KvPack {
  std::vector<float> kp, vp, ksum, kabs, vsumb, vabsb;
  std::vector<unsigned char> finite;
};

/** Packs of every (batch, kv head), built in parallel. */
std::vector<KvPack> pack_kv(const Problem& P);

/** The geometry of the score tile of keys [j0, j0 + nk) x the `br` lanes of the query
 *  block at i0 (nq real queries) for head (b, h); with a mask, its transposed tile is
 *  copied into maskT (nk x br, padded lanes 0). Returns false when the mask tile holds
 *  +inf or NaN (data the checks must skip; -inf is ordinary masking). */
bool score_tile(const Problem& P, int64_t b, int64_t h, int64_t i0, int64_t nq, int64_t br,
                int64_t j0, int64_t nk, float* maskT, TileGeom& g);

/** Packed per-thread scratch (64-byte aligned floats). */
struct Scratch {
  std::vector<float> buf;
  float* take(size_t& at, size_t n) {
    float* p = buf.data() + at;
    at += (n + 15) & ~size_t(15);
    return p;
  }
};

/** Exceptions must not leave an OpenMP region (the runtime would terminate the caller's
 *  process). Code in a region runs under guarded(), which records any exception (only an
 *  allocation can throw here) in `failed`; after the region the caller throws
 *  std::bad_alloc, which the entry point returns as ABFT_STATUS_ALLOC_FAILED. */
template <class Fn>
void guarded(std::atomic<bool>& failed, Fn&& fn) {
  try {
    fn();
  } catch (...) {
    failed = true;
  }
}

/** The parallel loop both directions run: `n` units over P.threads OpenMP threads
 *  (dynamic schedule), each thread with a scratch of `scratch` floats and a report of its
 *  own; body(t, scratch, report) runs unit t and returns its status. The reports add up
 *  into rep and the worst status is returned. */
template <class Body>
abft_status run_units(const Problem& P, int64_t n, size_t scratch, abft_report& rep, Body&& body) {
  abft_status status = ABFT_STATUS_SUCCESS;
  std::atomic<bool> failed{false};
#pragma omp parallel num_threads(P.threads) if (n > 1)
  {
    Scratch sc;
    guarded(failed, [&] { sc.buf.assign(scratch, 0.0f); });
    abft_report mine{};
    abft_status st_mine = ABFT_STATUS_SUCCESS;
#pragma omp for schedule(dynamic, 1)
    for (int64_t t = 0; t < n; ++t) {
      if (failed) continue;  // nothing more is computed once an allocation failed
      guarded(failed, [&] { st_mine = core::worse_status(st_mine, body(t, sc, mine)); });
    }
#pragma omp critical(abft_attention_units)
    {
      core::add_report(rep, mine);
      status = core::worse_status(status, st_mine);
    }
  }
  if (failed) throw std::bad_alloc();
  return status;
}

abft_status run_forward(Problem& P, abft_report& rep);
abft_status run_backward(Problem& P, abft_report& rep);

}  // namespace abft::cpu::attention
