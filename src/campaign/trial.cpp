/** \file trial.cpp
 *  \brief One trial of a campaign, run in this process (campaign.hpp: the six steps), and
 *  its classification.
 */
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>

#include "campaign/campaign.hpp"
#include "campaign/faults.hpp"

namespace abft::campaign {

namespace {

/** How far `out` moved from `ref`: the largest |diff| / limit, and |diff| / max |ref|.
 *  Equal bits (NaN included) count as no change; a value that is or becomes non-finite
 *  while the other is not is an infinite change. */
struct Deviation {
  double ratio = 0, rel = 0;
  int64_t where = -1;
};

Deviation deviation(const std::vector<double>& out, const std::vector<double>& ref,
                    const std::vector<double>& lim) {
  Deviation d;
  if (out.size() != ref.size() || lim.size() != ref.size()) {
    d.ratio = d.rel = INFINITY;
    return d;
  }
  double max_ref = 0, max_diff = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double a = out[i], c = ref[i];
    if (std::isfinite(c)) max_ref = std::max(max_ref, std::fabs(c));
    if (std::memcmp(&a, &c, sizeof a) == 0 || (std::isnan(a) && std::isnan(c))) continue;
    double r, diff;
    if (!std::isfinite(a) || !std::isfinite(c)) {
      r = diff = INFINITY;
    } else {
      diff = std::fabs(a - c);
      r = lim[i] > 0 ? diff / lim[i] : (diff > 0 ? INFINITY : 0.0);
    }
    max_diff = std::max(max_diff, diff);
    if (r > d.ratio || d.where < 0) {
      d.ratio = std::max(d.ratio, r);
      d.where = int64_t(i);
    }
  }
  d.rel = max_ref > 0 ? max_diff / max_ref : (max_diff > 0 ? INFINITY : 0.0);
  return d;
}

std::string fault_text(const abft_fault& f) {
  std::ostringstream os;
  os.precision(9);
  os << site_label(f.site) << " " << model_label(f.model);
  if (f.model == ABFT_FAULT_BITFLIP || f.model == ABFT_FAULT_BITFLIP2) os << " bit " << f.bit;
  os << " row " << f.row << " col " << f.col << " kpos " << f.kpos;
  if (f.applied)
    os << ": " << f.original << " -> " << f.corrupted;
  else
    os << ": did not land";
  return os.str();
}

std::string report_text(const char* what, const RunResult& r) {
  std::ostringstream os;
  os << "  " << what << ": status " << abft_status_string(r.status) << ", calls " << r.calls
     << ", checks " << r.report.checks << ", detected " << r.report.detected << ", corrected "
     << r.report.corrected << ", recomputed " << r.report.recomputed << ", uncorrectable "
     << r.report.uncorrectable << ", skipped " << r.report.skipped << "\n";
  return os.str();
}

}  // namespace

struct TrialRunner::Impl {
  Options o;
  abft_handle_t h = nullptr;
  Planner planner;
  std::string explain;
};

std::unique_ptr<TrialRunner> TrialRunner::create(const Options& o, std::string* error) {
  std::unique_ptr<TrialRunner> t(new TrialRunner());
  t->kernel_ = make_kernel(o.kernel, error);
  if (!t->kernel_) return nullptr;
  const std::vector<abft_site> has = t->kernel_->sites();
  if (o.sites.empty()) {
    t->sites_ = has;
  } else {
    for (abft_site s : o.sites) {
      bool ok = false;
      for (abft_site k : has) ok = ok || k == s;
      if (!ok) {
        std::string list;
        for (abft_site k : has) list += std::string(list.empty() ? "" : ", ") + site_label(k);
        *error = std::string("--site ") + site_label(s) + ": kernel '" + o.kernel.kernel +
                 "' has no such site (it has " + list + ")";
        return nullptr;
      }
      t->sites_.push_back(s);
    }
  }
  t->impl_ = new Impl();
  t->impl_->o = o;
  if (abft_handle_create(&t->impl_->h) != ABFT_STATUS_SUCCESS) {
    *error = "could not create a handle";
    return nullptr;
  }
  abft_handle_set_threads(t->impl_->h, o.kernel.threads);
  return t;
}

TrialRunner::~TrialRunner() {
  if (impl_) {
    abft_handle_destroy(impl_->h);
    delete impl_;
  }
}

std::string TrialRunner::explain() const { return impl_ ? impl_->explain : std::string(); }

TrialRecord TrialRunner::run(int64_t id) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& I = *impl_;
  const Options& o = I.o;
  Kernel& K = *kernel_;
  TrialRecord rec;
  rec.id = id;
  std::ostringstream ex;
  ex << "trial " << id << " of " << K.describe() << "\n";
  abft_handle_t hk = K.own_handle() ? K.own_handle() : I.h;
  auto finish = [&](Outcome oc) {
    rec.outcome = oc;
    rec.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ex << "  outcome: " << outcome_name(oc);
    if (rec.clean != CleanOutcome::None) ex << "; clean trial: " << clean_outcome_name(rec.clean);
    ex << "\n";
    I.explain = ex.str();
    return rec;
  };

  // 1-2. Inputs, and the reference: a clean run under OFF (its calls are recorded).
  K.prepare(uint64_t(id), trial_seed(o.seed, id, 1));
  I.planner.record();
  I.planner.attach(hk);
  const RunResult clean = K.run(I.h, ABFT_POLICY_OFF);
  ex << report_text("clean OFF", clean);
  if (clean.status < 0) {
    rec.status = clean.status;
    return finish(Outcome::Error);
  }
  std::vector<abft_call_info> calls = I.planner.calls();
  K.set_clean_output(clean.out);
  const std::vector<double>& lim = K.limits();

  // 3. The false-positive trial: a clean run under the policy.
  if (o.clean_every > 0 && id % o.clean_every == 0) {
    I.planner.record();
    I.planner.attach(hk);
    const RunResult cp = K.run(I.h, o.policy);
    ex << report_text("clean protected", cp);
    const Deviation d = deviation(cp.out, clean.out, lim);
    rec.clean_ratio = d.ratio;
    if (cp.status != ABFT_STATUS_SUCCESS || cp.report.detected || cp.report.corrected ||
        cp.report.recomputed || cp.report.uncorrectable)
      rec.clean = CleanOutcome::FalsePositive;
    else if (d.ratio > 1.0)
      rec.clean = CleanOutcome::Mismatch;
    else
      rec.clean = CleanOutcome::Ok;
    // The faults go into the protected run: draw them from its own list of calls (a policy may
    // change the calls a routine makes, e.g. checked TRSM blocks); the planner matches each
    // call's description, so the OFF run of step 5 gets them only where its call is the same.
    calls = I.planner.calls();
  }

  // 4. The trial's faults.
  const TrialFaults tf = draw_faults(o, sites_, type_bits(o.kernel.type), calls, trial_seed(o.seed, id, 2));
  rec.site = tf.site;
  rec.model = tf.model;
  rec.calls = int64_t(calls.size());
  rec.call = tf.call;
  rec.faults = int32_t(tf.faults.size());
  if (!tf.faults.empty()) {
    rec.bit = tf.faults[0].bit;
    rec.row = tf.faults[0].row;
    rec.col = tf.faults[0].col;
    rec.kpos = tf.faults[0].kpos;
  }
  if (tf.call < 0 || tf.faults.empty()) {
    ex << "  no call of this run has site " << site_label(tf.site) << "\n";
    return finish(Outcome::NotLanded);
  }
  const abft_call_info& target = calls[size_t(tf.call)];
  ex << "  faults into call " << tf.call << " of " << calls.size() << " (" << abft_kernel_name(target.kernel)
     << " m=" << target.m << " n=" << target.n << " k=" << target.k << " batch=" << target.batch << ")\n";
  std::vector<abft_fault> landed(tf.faults.size());
  auto run_injected = [&](abft_policy p, int* nlanded) {
    I.planner.inject(tf.call, target, tf.faults);
    I.planner.attach(hk);
    RunResult r = K.run(I.h, p);
    int count = 0;
    abft_handle_last_injected(hk, landed.data(), int(landed.size()), &count);
    if (!I.planner.delivered()) count = 0;
    *nlanded = 0;
    for (int i = 0; i < count && i < int(landed.size()); ++i) *nlanded += landed[size_t(i)].applied ? 1 : 0;
    return r;
  };

  // 5. The fault alone (OFF): its effect on the output.
  int landed_off = 0;
  const RunResult off = run_injected(ABFT_POLICY_OFF, &landed_off);
  ex << report_text("injected OFF", off);
  rec.effect = landed_off ? deviation(off.out, clean.out, lim).ratio : NAN;

  // 6. The same faults under the policy.
  int nl = 0;
  const RunResult pr = run_injected(o.policy, &nl);
  ex << report_text("injected protected", pr);
  for (size_t i = 0; i < landed.size(); ++i) ex << "  fault " << i << ": " << fault_text(landed[i]) << "\n";
  rec.landed = nl;
  for (const abft_fault& f : landed)
    if (f.applied) {
      rec.original = f.original;
      rec.corrupted = f.corrupted;
      rec.bit = f.bit;
      rec.row = f.row;
      rec.col = f.col;
      rec.kpos = f.kpos;
      break;
    }
  rec.status = pr.status;
  rec.checks = pr.report.checks;
  rec.detected = pr.report.detected;
  rec.corrected = pr.report.corrected;
  rec.recomputed = pr.report.recomputed;
  rec.uncorrectable = pr.report.uncorrectable;
  const Deviation d = deviation(pr.out, clean.out, lim);
  rec.change = d.ratio;
  rec.rel_change = d.rel;
  ex << "  effect of the fault alone: " << rec.effect << " x limit; protected output moved "
     << rec.change << " x limit (relative " << rec.rel_change << ")";
  if (d.where >= 0) ex << ", largest at output scalar " << d.where;
  ex << "\n";

  if (pr.status < 0) return finish(Outcome::Error);
  if (nl == 0) return finish(Outcome::NotLanded);
  if (pr.status == ABFT_STATUS_FAULT_UNCORRECTABLE) return finish(Outcome::Uncorrectable);
  if (pr.status == ABFT_STATUS_FAULT_DETECTED) return finish(Outcome::Detected);
  if (pr.report.detected > 0 || pr.report.uncorrectable > 0) {
    if (d.ratio > 1.0) return finish(Outcome::BadRepair);
    return finish(pr.report.corrected > 0 ? Outcome::Corrected : Outcome::Recomputed);
  }
  return finish(d.ratio > 1.0 ? Outcome::Sdc : Outcome::Masked);
}

}  // namespace abft::campaign
