/** \file kernel_attention.cpp
 *  \brief Campaign adapter of the protected CPU attention (abft/attention.h): "attn-fwd"
 *  (O and lse from Q, K, V) and "attn-bwd" (dQ, dK, dV from Q, K, V, O, lse, dO), float,
 *  batch 1, grouped-query heads, causal or full, no mask, contiguous layouts.
 *
 *  The backward needs the forward's O and lse: prepare() computes them once per trial on a
 *  private handle under policy OFF with no injector, so a run is the backward call alone and
 *  a campaign's faults land only there.
 *
 *  Escape limits are the fault-matrix test's (tests/attention/attn_fault_matrix_test.cpp),
 *  from one shared copy (abft/checksum/attention_reference.hpp): per output element, twice
 *  the bound of the engine's check over the element's block, from the double reference's
 *  magnitudes, and never below the correctness tolerance.
 */
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <sstream>

#include "abft/attention.h"
#include "abft/checksum/attention_reference.hpp"
#include "campaign/attention_shape.hpp"
#include "campaign/input_gen.hpp"
#include "campaign/kernel.hpp"
#include "cpu/attention/attn_kernels.hpp"

namespace abft::campaign {
namespace {

namespace ref = abft::checksum::attn_ref;

// The limits sum over the engine's blocks: the shared header must name its blocking.
static_assert(ref::kEngineQueryBlock == abft::cpu::attention::kQueryBlock &&
                  ref::kEngineKeyBlock == abft::cpu::attention::kKeyBlock,
              "attention_reference.hpp's block sizes differ from the engine's");

/** The fault matrix's factor on the engine's bound (kEscapeTolFactor there). */
constexpr double kEscapeFactor = 2.0;

class AttnKernel final : public Kernel {
 public:
  AttnKernel(const AttnShape& s, int threads) : s_(s) {
    abft_attention_desc_init(&d_, 1, s.heads, s.kv_heads, s.q_len, s.kv_len, s.head_dim);
    d_.causal = s.causal ? 1 : 0;
    const size_t nq = size_t(s.heads * s.q_len * s.head_dim), nk = size_t(s.kv_heads * s.kv_len * s.head_dim);
    Q_.resize(nq);
    K_.resize(nk);
    V_.resize(nk);
    O_.resize(nq);
    lse_.resize(size_t(s.heads * s.q_len));
    if (s.bwd) {
      dO_.resize(nq);
      dQ_.resize(nq);
      dK_.resize(nk);
      dV_.resize(nk);
      limits_.resize(nq + 2 * nk);
      // The forward of prepare() runs on its own handle: never the driver's injector.
      if (abft_handle_create(&fwd_handle_) != ABFT_STATUS_SUCCESS) throw std::bad_alloc();
      abft_handle_set_threads(fwd_handle_, threads);
    } else {
      limits_.resize(nq + lse_.size());
    }
  }
  ~AttnKernel() override {
    if (fwd_handle_) abft_handle_destroy(fwd_handle_);
  }
  AttnKernel(const AttnKernel&) = delete;
  AttnKernel& operator=(const AttnKernel&) = delete;

  std::string describe() const override {
    std::ostringstream os;
    os << (s_.bwd ? "attention backward" : "attention forward") << " f32 q=" << s_.q_len << " kv=" << s_.kv_len
       << " d=" << s_.head_dim << " heads=" << s_.heads << " kv_heads=" << s_.kv_heads
       << (s_.causal ? " causal" : " full") << " [" << abft_attention_kernel_info() << "]";
    return os.str();
  }

  std::vector<abft_site> sites() const override {
    // Where the engine injects in each direction (abft/attention.h, core site_extent).
    if (s_.bwd)
      return {ABFT_SITE_PACKED_A, ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS, ABFT_SITE_ATTN_DP,
              ABFT_SITE_ATTN_DS,  ABFT_SITE_ATTN_DQ,     ABFT_SITE_ATTN_DK,    ABFT_SITE_ATTN_DV};
    return {ABFT_SITE_PACKED_A, ABFT_SITE_ATTN_SCORES, ABFT_SITE_ATTN_PROBS,
            ABFT_SITE_ATTN_ROWSTAT, ABFT_SITE_ATTN_ACC, ABFT_SITE_OUTPUT};
  }

  void prepare(uint64_t trial, uint64_t seed) override {
    draw_attention_inputs(trial, seed, Q_, K_, V_, &dO_);
    prep_status_ = ABFT_STATUS_SUCCESS;
    if (!s_.bwd) {
      const ref::Forward rf = ref::forward(d_, Q_.data(), K_.data(), V_.data(), static_cast<const float*>(nullptr));
      flatten(ref::forward_escape_limits(d_, rf, kEscapeFactor));
      return;
    }
    // The backward's O and lse: the forward, unprotected and without faults.
    prep_status_ = abft_attention_forward(fwd_handle_, ABFT_POLICY_OFF, &d_, Q_.data(), K_.data(), V_.data(),
                                          nullptr, O_.data(), lse_.data(), nullptr);
    std::vector<double> O(O_.begin(), O_.end()), L(lse_.begin(), lse_.end());
    const ref::Backward rb = ref::backward(d_, Q_.data(), K_.data(), V_.data(), static_cast<const float*>(nullptr),
                                           O.data(), L.data(), dO_.data());
    flatten(ref::backward_escape_limits(d_, rb, ref::max_abs(L), kEscapeFactor));
  }

  RunResult run(abft_handle_t h, abft_policy policy) override {
    RunResult r;
    if (prep_status_ != ABFT_STATUS_SUCCESS) {
      r.status = prep_status_;  // the forward prepare() needed failed: no call
      return r;
    }
    try {
      // An output the call fails to write shows as NaN, not as the previous run's value.
      const float nan = std::numeric_limits<float>::quiet_NaN();
      if (!s_.bwd) {
        std::fill(O_.begin(), O_.end(), nan);
        std::fill(lse_.begin(), lse_.end(), nan);
        r.status = abft_attention_forward(h, policy, &d_, Q_.data(), K_.data(), V_.data(), nullptr, O_.data(),
                                          lse_.data(), &r.report);
        r.out.reserve(O_.size() + lse_.size());
        r.out.assign(O_.begin(), O_.end());
        r.out.insert(r.out.end(), lse_.begin(), lse_.end());
      } else {
        std::fill(dQ_.begin(), dQ_.end(), nan);
        std::fill(dK_.begin(), dK_.end(), nan);
        std::fill(dV_.begin(), dV_.end(), nan);
        r.status = abft_attention_backward(h, policy, &d_, Q_.data(), K_.data(), V_.data(), nullptr, O_.data(),
                                           dO_.data(), lse_.data(), dQ_.data(), dK_.data(), dV_.data(),
                                           &r.report);
        r.out.reserve(dQ_.size() + dK_.size() + dV_.size());
        r.out.assign(dQ_.begin(), dQ_.end());
        r.out.insert(r.out.end(), dK_.begin(), dK_.end());
        r.out.insert(r.out.end(), dV_.begin(), dV_.end());
      }
      r.calls = 1;
    } catch (const std::bad_alloc&) {
      r.status = ABFT_STATUS_ALLOC_FAILED;
    } catch (...) {
      r.status = ABFT_STATUS_INTERNAL_ERROR;
    }
    return r;
  }

  const std::vector<double>& limits() const override { return limits_; }

 private:
  /** The limits of every output tensor, in run()'s order (O, lse / dQ, dK, dV). */
  void flatten(const ref::EscapeLimits& e) {
    size_t at = 0;
    for (const auto& t : e.t) {
      std::copy(t.begin(), t.end(), limits_.begin() + long(at));
      at += t.size();
    }
  }

  AttnShape s_;
  abft_attention_desc d_{};
  std::vector<float> Q_, K_, V_, dO_;  ///< inputs (dO: backward only)
  std::vector<float> O_, lse_;         ///< forward outputs; backward inputs (from prepare)
  std::vector<float> dQ_, dK_, dV_;    ///< backward outputs
  std::vector<double> limits_;         ///< per output scalar, run()'s order
  abft_handle_t fwd_handle_ = nullptr;  ///< backward: the handle of prepare()'s forward
  abft_status prep_status_ = ABFT_STATUS_SUCCESS;
};

}  // namespace

void draw_attention_inputs(uint64_t trial, uint64_t seed, std::vector<float>& Q, std::vector<float>& K,
                           std::vector<float>& V, std::vector<float>* dO) {
  InputRng rng(seed);
  const InputDist dist = input_dist_of(trial);
  for (float& x : Q) x = float(rng.draw(dist, -3.0, 1.0));
  for (float& x : K) x = float(rng.draw(dist, -3.0, 1.0));
  for (float& x : V) x = float(rng.draw(dist));
  if (dO)
    for (float& x : *dO) x = float(rng.draw(dist));
}

bool attention_shape_of(const KernelOptions& o, const std::string& k, AttnShape& s, std::string* error) {
  if (o.type != DataType::F32) {
    *error = k + ": --type " + type_name(o.type) + " is not available (attention computes in float: f32)";
    return false;
  }
  if (o.variant.empty() || o.variant == "causal") s.causal = true;
  else if (o.variant == "full") s.causal = false;
  else {
    *error = k + ": --variant '" + o.variant + "' is not one of causal (default), full";
    return false;
  }
  if (!o.sizes.empty()) {
    if (o.sizes.size() < 4 || o.sizes.size() > 5) {
      *error = k + ": --sizes takes q,kv,d,heads[,kv_heads] (kv_heads defaults to heads)";
      return false;
    }
    s.q_len = o.sizes[0], s.kv_len = o.sizes[1], s.head_dim = o.sizes[2], s.heads = o.sizes[3];
    s.kv_heads = o.sizes.size() == 5 ? o.sizes[4] : s.heads;
  }
  if (s.q_len < 1 || s.kv_len < 1 || s.heads < 1 || s.kv_heads < 1) {
    *error = k + ": --sizes q,kv,d,heads[,kv_heads] must all be >= 1";
    return false;
  }
  if (s.head_dim < 1 || s.head_dim > ABFT_ATTENTION_MAX_HEAD_DIM) {
    *error = k + ": --sizes head_dim d must be in 1.." + std::to_string(ABFT_ATTENTION_MAX_HEAD_DIM);
    return false;
  }
  if (s.heads % s.kv_heads != 0) {
    *error = k + ": --sizes heads must be a multiple of kv_heads";
    return false;
  }
  // Memory guard: the tensors and the double reference's q x kv work stay small.
  const double elems = double(s.heads) * double(std::max(s.q_len, s.kv_len)) * double(s.head_dim);
  if (elems > double(int64_t(1) << 24) || double(s.q_len) * double(s.kv_len) > double(int64_t(1) << 26)) {
    *error = k + ": --sizes is too large for a campaign (at most 2^24 elements a tensor, 2^26 q x kv)";
    return false;
  }
  return true;
}

std::unique_ptr<Kernel> make_attention_kernel(const KernelOptions& o, std::string* error) {
  AttnShape s;
  const std::string& k = o.kernel;
  if (k == "attn-fwd") s.bwd = false;
  else if (k == "attn-bwd") s.bwd = true;
  else {
    *error = "attention: unknown kernel '" + k + "' (attn-fwd or attn-bwd)";
    return nullptr;
  }
  if (!attention_shape_of(o, k, s, error)) return nullptr;
  try {
    return std::make_unique<AttnKernel>(s, o.threads);
  } catch (const std::bad_alloc&) {
    *error = k + ": cannot allocate the tensors of --sizes";
    return nullptr;
  }
}

}  // namespace abft::campaign
