/** \file fft_plan.cpp
 *  \brief Plan building (lines and passes) and execution: every line of every
 *  pass is a checked unit — check-in, transform, check-out, and on failure
 *  table refresh, recomputation from the kept input and re-verification.
 */
#include "cpu/fft/fft_plan.hpp"

#include <omp.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <shared_mutex>
#include <sstream>

#include "abft/checksum/fault_models.hpp"
#include "core/cpu_features.hpp"
#include "core/report.hpp"

namespace abft::cpu::fft {
namespace {

/** The plan's per-thread buffers (input copy, output copy, line work): slots
 *  5..7 of the engine's thread-local buffers (0..4 belong to the kernels and
 *  four-step lines a line runs). */
template <class T>
T* scratch(size_t scalars, int slot) {
  return fft_tls_buffer<T>(scalars, 5 + slot);
}

/** Offsets of line `idx` of a pass: mixed-radix decomposition over its loops. */
inline void line_offsets(const std::vector<LoopDim>& loops, int64_t idx, int64_t& in_off, int64_t& out_off) {
  in_off = out_off = 0;
  for (size_t d = loops.size(); d-- > 0;) {
    const int64_t i = idx % loops[d].n;
    idx /= loops[d].n;
    in_off += i * loops[d].is;
    out_off += i * loops[d].os;
  }
}

}  // namespace

/** Per-call state: the resolved policy and the injected faults. */
struct ExecContext {
  abft_policy policy = ABFT_POLICY_CORRECT;
  core::InjectionPlan inj;
  std::unique_ptr<std::atomic<int>[]> applied;  // per fault
  bool has_faults() const { return !inj.faults.empty(); }
};

namespace {

template <class T>
struct UnitHook final : StageHook<T> {
  ExecContext* cx;
  int64_t unit, kernel_n;
  void after_stage(int stage, T* buf, int64_t n, int64_t offset, int64_t stride, int64_t bstride) override {
    for (size_t i = 0; i < cx->inj.faults.size(); ++i) {
      abft_fault& f = cx->inj.faults[i];
      if (f.site != ABFT_SITE_FFT_STAGE || f.row != unit || f.kpos != stage) continue;
      const int64_t te = (f.col / 2) % kernel_n;
      if (te < offset || (te - offset) % stride != 0) continue;
      const int64_t idx = (te - offset) / stride;
      if (idx >= n) continue;
      if (cx->applied[i].exchange(1)) continue;
      T& v = buf[2 * idx * bstride + (f.col & 1)];
      f.original = double(v);
      v = checksum::apply_fault<T>(v, f.model, f.bit, f.value);
      f.corrupted = double(v);
      f.applied = 1;
    }
  }
  void at_output(T* buf, int64_t n, int64_t offset, int64_t stride, bool real) override {
    for (size_t i = 0; i < cx->inj.faults.size(); ++i) {
      abft_fault& f = cx->inj.faults[i];
      if (f.site != ABFT_SITE_OUTPUT || f.row != unit) continue;
      T* v;
      if (real) {
        v = buf + f.col % n;  // whole real line: n scalars, offset 0, stride 1
      } else {
        const int64_t te = (f.col / 2) % kernel_n;
        if (te < offset || (te - offset) % stride != 0) continue;
        const int64_t idx = (te - offset) / stride;
        if (idx >= n) continue;
        v = buf + 2 * idx + (f.col & 1);
      }
      if (cx->applied[i].exchange(1)) continue;
      f.original = double(*v);
      *v = checksum::apply_fault<T>(*v, f.model, f.bit, f.value);
      f.corrupted = double(*v);
      f.applied = 1;
    }
  }
};

}  // namespace

template <class T>
LinePlan<T>* FftPlan<T>::line_for(abft_fft_kind k, int64_t n, int sg) {
  for (auto& l : lines_)
    if (l->kind() == k && l->n() == n && l->sign() == sg) return l.get();
  const int nt = threads > 0 ? threads : core::resolve_threads(h);
  lines_.push_back(std::make_unique<LinePlan<T>>(k, n, sg, fft_kernels<T>(abft::cpu::active_isa()), nt));
  return lines_.back().get();
}

template <class T>
abft_status FftPlan<T>::build() {
  const int R = int(dims.size());
  const bool cin = kind != ABFT_FFT_R2C, cout = kind != ABFT_FFT_C2R;
  const int64_t ci = cin ? 2 : 1, co = cout ? 2 : 1;  // scalars per element
  const int64_t nlast = dims[size_t(R - 1)].n, h1 = nlast / 2 + 1;
  int64_t batch = 1;
  for (const auto& l : loops) batch *= l.n;
  int64_t total = 1;
  for (const auto& d : dims) total *= d.n;
  const double lg = total > 1 ? std::log2(double(total)) : 0.0;
  flops = double(batch) * (kind == ABFT_FFT_C2C ? 5.0 : 2.5) * double(total) * lg;

  auto add_pass = [&](Pass<T> p) {
    p.nlines = 1;
    for (const auto& l : p.loops) p.nlines *= l.n;
    p.unit_base = lines_total_;
    lines_total_ += p.nlines;
    units += p.nlines * p.line->units();
    passes_.push_back(std::move(p));
  };
  auto howmany_loops = [&](int64_t fi, int64_t fo) {
    std::vector<LoopDim> v;
    for (const auto& l : loops) v.push_back({l.n, fi * l.is, fo * l.os});
    return v;
  };

  if (kind == ABFT_FFT_C2C) {
    for (int d = R - 1; d >= 0; --d) {
      Pass<T> p;
      const bool first = (d == R - 1);
      p.line = line_for(ABFT_FFT_C2C, dims[size_t(d)].n, sign);
      p.src = first ? 0 : 1;
      p.dst = 1;
      p.line_is = 2 * (first ? dims[size_t(d)].is : dims[size_t(d)].os);
      p.line_os = 2 * dims[size_t(d)].os;
      p.loops = howmany_loops(first ? 2 : 2, 2);
      if (!first)
        for (auto& l : p.loops) l.is = l.os;
      for (int e = 0; e < R; ++e)
        if (e != d) p.loops.push_back({dims[size_t(e)].n, 2 * (first ? dims[size_t(e)].is : dims[size_t(e)].os), 2 * dims[size_t(e)].os});
      add_pass(std::move(p));
    }
  } else if (kind == ABFT_FFT_R2C) {
    Pass<T> p;
    p.line = line_for(ABFT_FFT_R2C, nlast, -1);
    p.src = 0;
    p.dst = 1;
    p.line_is = dims[size_t(R - 1)].is;
    p.line_os = 2 * dims[size_t(R - 1)].os;
    p.loops = howmany_loops(1, 2);
    for (int e = 0; e < R - 1; ++e) p.loops.push_back({dims[size_t(e)].n, dims[size_t(e)].is, 2 * dims[size_t(e)].os});
    add_pass(std::move(p));
    for (int d = R - 2; d >= 0; --d) {
      Pass<T> q;
      q.line = line_for(ABFT_FFT_C2C, dims[size_t(d)].n, -1);
      q.src = 1;
      q.dst = 1;
      q.line_is = q.line_os = 2 * dims[size_t(d)].os;
      q.loops = howmany_loops(2, 2);
      for (auto& l : q.loops) l.is = l.os;
      for (int e = 0; e < R; ++e) {
        if (e == d) continue;
        const int64_t ne = (e == R - 1) ? h1 : dims[size_t(e)].n;
        q.loops.push_back({ne, 2 * dims[size_t(e)].os, 2 * dims[size_t(e)].os});
      }
      add_pass(std::move(q));
    }
  } else {  // C2R
    // Rank >= 2: copy the input into a contiguous temporary (loops outermost,
    // then dims, last dim h1 complex), c2c passes there, then c2r into out.
    std::vector<int64_t> tstr(static_cast<size_t>(R));  // temp strides, complex elements
    int64_t tsz = 1;
    for (int d = R - 1; d >= 0; --d) {
      tstr[size_t(d)] = tsz;
      tsz *= (d == R - 1) ? h1 : dims[size_t(d)].n;
    }
    std::vector<int64_t> lstr(loops.size());
    for (size_t i = loops.size(); i-- > 0;) {
      lstr[i] = tsz;
      tsz *= loops[i].n;
    }
    const bool use_temp = R >= 2;
    if (use_temp) {
      temp_scalars_ = 2 * tsz;
      for (size_t i = 0; i < loops.size(); ++i) temp_copy_.push_back({loops[i].n, 2 * loops[i].is, 2 * lstr[i]});
      for (int d = 0; d < R; ++d)
        temp_copy_.push_back({d == R - 1 ? h1 : dims[size_t(d)].n, 2 * dims[size_t(d)].is, 2 * tstr[size_t(d)]});
      for (int d = 0; d <= R - 2; ++d) {
        Pass<T> q;
        q.line = line_for(ABFT_FFT_C2C, dims[size_t(d)].n, +1);
        q.src = 2;
        q.dst = 2;
        q.line_is = q.line_os = 2 * tstr[size_t(d)];
        for (size_t i = 0; i < loops.size(); ++i) q.loops.push_back({loops[i].n, 2 * lstr[i], 2 * lstr[i]});
        for (int e = 0; e < R; ++e) {
          if (e == d) continue;
          const int64_t ne = (e == R - 1) ? h1 : dims[size_t(e)].n;
          q.loops.push_back({ne, 2 * tstr[size_t(e)], 2 * tstr[size_t(e)]});
        }
        add_pass(std::move(q));
      }
    }
    Pass<T> p;
    p.line = line_for(ABFT_FFT_C2R, nlast, +1);
    p.src = use_temp ? 2 : 0;
    p.dst = 1;
    p.line_is = use_temp ? 2 * tstr[size_t(R - 1)] : 2 * dims[size_t(R - 1)].is;
    p.line_os = dims[size_t(R - 1)].os;
    for (size_t i = 0; i < loops.size(); ++i)
      p.loops.push_back({loops[i].n, use_temp ? 2 * lstr[i] : 2 * loops[i].is, loops[i].os});
    for (int e = 0; e < R - 1; ++e)
      p.loops.push_back({dims[size_t(e)].n, use_temp ? 2 * tstr[size_t(e)] : 2 * dims[size_t(e)].is, dims[size_t(e)].os});
    add_pass(std::move(p));
  }

  // Extents of the user arrays in scalars, relative to the pointer: [lo, hi).
  auto extent = [&](bool input, int64_t& lo, int64_t& hi) {
    const int64_t per = input ? ci : co;
    lo = hi = 0;
    auto add = [&](int64_t n, int64_t st) {
      const int64_t d = (n - 1) * st * per;
      if (d < 0) lo += d; else hi += d;
    };
    for (const auto& l : loops) add(l.n, input ? l.is : l.os);
    for (int d = 0; d < R; ++d) {
      const bool complex_side = input ? cin : cout;
      const int64_t nd = (d == R - 1 && kind != ABFT_FFT_C2C && complex_side) ? h1 : dims[size_t(d)].n;
      add(nd, input ? dims[size_t(d)].is : dims[size_t(d)].os);
    }
    hi += per;
  };
  extent(true, in_lo_, in_hi_);
  extent(false, out_lo_, out_hi_);
  in_span = in_hi_;
  out_span = out_hi_;

  std::ostringstream o;
  o << (kind == ABFT_FFT_C2C ? "c2c" : kind == ABFT_FFT_R2C ? "r2c" : "c2r") << ' '
    << (sizeof(T) == 4 ? "float" : "double") << " n=[";
  for (int d = 0; d < R; ++d) o << (d ? "," : "") << dims[size_t(d)].n;
  o << "] batch=" << batch;
  for (size_t i = 0; i < lines_.size(); ++i)
    o << " line" << i << "(" << lines_[i]->n() << "): " << lines_[i]->describe();
  o << " isa=" << fft_kernels<T>(abft::cpu::active_isa()).isa;
  desc = o.str();
  return ABFT_STATUS_SUCCESS;
}

template <class T>
abft_status FftPlan<T>::check_in_place() const {
  // In place, each line must read and write the same region, which holds
  // when every loop dimension maps input and output to the same address.
  const int64_t ci = kind == ABFT_FFT_R2C ? 1 : 2, co = kind == ABFT_FFT_C2R ? 1 : 2;
  for (const auto& l : loops)
    if (l.n > 1 && l.is * ci != l.os * co) return ABFT_STATUS_INVALID_LD;
  for (size_t d = 0; d + 1 < dims.size(); ++d)
    if (dims[d].n > 1 && dims[d].is * ci != dims[d].os * co) return ABFT_STATUS_INVALID_LD;
  if (kind == ABFT_FFT_C2C && dims.back().is != dims.back().os) return ABFT_STATUS_INVALID_LD;
  return ABFT_STATUS_SUCCESS;
}

template <class T>
abft_status FftPlan<T>::execute(const void* in_v, void* out_v, abft_report* report) {
  if (report) *report = abft_report{};
  int64_t batch = 1;
  for (const auto& l : loops) batch *= l.n;
  if (batch == 0) return ABFT_STATUS_SUCCESS;
  if (!in_v || !out_v) return ABFT_STATUS_NULL_POINTER;
  const bool in_place = (in_v == out_v);
  if (in_place) {
    const abft_status s = check_in_place();
    if (s != ABFT_STATUS_SUCCESS) return s;
  } else {
    // Out of place the arrays must not overlap (nothing is written otherwise).
    const uintptr_t a0 = uintptr_t(in_v) + uintptr_t(in_lo_ * int64_t(sizeof(T)));
    const uintptr_t a1 = uintptr_t(in_v) + uintptr_t(in_hi_ * int64_t(sizeof(T)));
    const uintptr_t b0 = uintptr_t(out_v) + uintptr_t(out_lo_ * int64_t(sizeof(T)));
    const uintptr_t b1 = uintptr_t(out_v) + uintptr_t(out_hi_ * int64_t(sizeof(T)));
    if (a0 < b1 && b0 < a1) return ABFT_STATUS_INVALID_VALUE;
  }
  const T* in = static_cast<const T*>(in_v);
  T* out = static_cast<T*>(out_v);

  ExecContext cx;
  cx.policy = core::resolve_policy(h, policy);
  const abft_kernel kid = sizeof(T) == 4 ? ABFT_KERNEL_SFFT : ABFT_KERNEL_DFFT;
  if (h && (h->injector || h->hook)) {  // the call's shape, for the injector only
    abft_call_info ci{};
    ci.kernel = kid;
    ci.m = lines_total_;
    int64_t mx = 1, mk = 1;
    for (const auto& l : lines_) {
      mx = std::max({mx, l->in_scalars(), l->out_scalars(), 2 * l->kernel_n()});
      mk = std::max<int64_t>(mk, l->stages());
    }
    ci.n = mx;
    ci.k = mk;
    cx.inj = core::plan_injection(h, ci);
  }
  const size_t nf = cx.inj.faults.size();
  if (nf) {
    cx.applied.reset(new std::atomic<int>[nf]);
    for (size_t i = 0; i < nf; ++i) cx.applied[i] = 0;
  }

  // Twiddle faults: corrupt a table entry for the duration of this call. The tables are
  // the plan's, shared by every execution of it; so that the fault stays this call's
  // (as abft/fft.h defines it), a call that corrupts one runs alone, and while a handle
  // injects, every execution of the plan takes the lock shared. Without injection no
  // lock is taken.
  bool tw_fault = false;
  size_t nf_hook = 0;  // faults the stage hook applies (stage and output sites)
  for (size_t i = 0; i < nf; ++i) {
    tw_fault = tw_fault || cx.inj.faults[i].site == ABFT_SITE_FFT_TWIDDLE;
    nf_hook += cx.inj.faults[i].site != ABFT_SITE_FFT_TWIDDLE;
  }
  std::unique_lock<std::shared_mutex> tw_alone;
  std::shared_lock<std::shared_mutex> tw_shared;
  if (tw_fault) tw_alone = std::unique_lock<std::shared_mutex>(tables_mu_);
  else if (h && (h->injector || h->hook)) tw_shared = std::shared_lock<std::shared_mutex>(tables_mu_);
  struct TwSave { Table<T>* t; size_t idx; T orig, bad; };
  std::vector<TwSave> tw_saves;
  for (size_t i = 0; i < nf; ++i) {
    abft_fault& f = cx.inj.faults[i];
    if (f.site != ABFT_SITE_FFT_TWIDDLE) continue;
    const Pass<T>* ps = nullptr;
    for (const auto& p : passes_)
      if (f.row >= p.unit_base && f.row < p.unit_base + p.nlines) ps = &p;
    if (!ps) continue;
    std::vector<Table<T>*> tabs;
    ps->line->kernel_tables(tabs);
    if (tabs.empty()) continue;
    Table<T>* t = tabs[size_t(f.kpos) % tabs.size()];
    const size_t idx = size_t(f.col) % t->data.size();
    const T orig = t->data[idx];
    const T bad = checksum::apply_fault<T>(orig, f.model, f.bit, f.value);
    t->data[idx] = bad;
    f.original = double(orig);
    f.corrupted = double(bad);
    f.applied = 1;
    cx.applied[i] = 1;
    tw_saves.push_back({t, idx, orig, bad});
  }

  // C2R rank >= 2: contiguous copy of the input.
  std::vector<T> temp;
  if (temp_scalars_ > 0) {
    temp.assign(size_t(temp_scalars_), T(0));
    int64_t nlin = 1;
    for (const auto& l : temp_copy_) nlin *= l.n;
    for (int64_t i = 0; i < nlin; ++i) {
      int64_t a, b;
      line_offsets(temp_copy_, i, a, b);
      temp[size_t(b)] = in[a];
      temp[size_t(b + 1)] = in[a + 1];
    }
  }

  const int nt = threads > 0 ? threads : core::resolve_threads(h);
  for (auto& l : lines_) l->set_threads(nt);
  abft_report total{};
  abft_status status = ABFT_STATUS_SUCCESS;
  const abft_policy pol = cx.policy;
  std::mutex merge_mu;

  for (const Pass<T>& P : passes_) {
    const T* srcA = P.src == 0 ? in : P.src == 1 ? out : temp.data();
    T* dstA = P.dst == 1 ? out : temp.data();
    const bool same = (static_cast<const void*>(srcA) == static_cast<const void*>(dstA));
    LinePlan<T>& L = *P.line;
    const bool cin = L.kind() != ABFT_FFT_R2C, cout = L.kind() != ABFT_FFT_C2R;
    const int64_t ein = L.in_elems(), eout = L.out_elems();
    const int64_t nsi = L.in_scalars(), nso = L.out_scalars();
    const bool contig_in = P.line_is == (cin ? 2 : 1);
    const bool contig_out = P.line_os == (cout ? 2 : 1);
    // Lines [l0, l1) on the calling thread; the report and status are merged by the caller.
    auto run_lines = [&](int64_t l0, int64_t l1, abft_report& rep, abft_status& st) {
      // the copies only where a line is strided (or the transform in place)
      T* xin = (!contig_in || same) ? scratch<T>(size_t(nsi), 0) : nullptr;
      T* yout = contig_out ? nullptr : scratch<T>(size_t(nso), 1);
      T* work = scratch<T>(size_t(L.work_scalars()), 2);
      for (int64_t li = l0; li < l1; ++li) {
        int64_t io, oo;
        line_offsets(P.loops, li, io, oo);
        const T* sb = srcA + io;
        T* db = dstA + oo;
        const T* src = sb;
        if (!contig_in || same) {
          if (cin)
            for (int64_t e = 0; e < ein; ++e) {
              xin[2 * e] = sb[e * P.line_is];
              xin[2 * e + 1] = sb[e * P.line_is + 1];
            }
          else
            for (int64_t e = 0; e < ein; ++e) xin[e] = sb[e * P.line_is];
          src = xin;
        }
        T* dst = contig_out ? db : yout;
        const int64_t unit = P.unit_base + li;
        UnitHook<T> hook;
        StageHook<T>* hp = nullptr;
        if (nf_hook) {  // twiddle faults are in the tables already: no hook, the folded checks
          hook.cx = &cx;
          hook.unit = unit;
          hook.kernel_n = L.kernel_n();
          hp = &hook;
        }
        if (L.is_fourstep()) L.run_fourstep(src, dst, work, pol, hp, rep, st, repair_mu_);
        else L.run_unit(src, dst, work, pol, hp, rep, st, repair_mu_);
        if (!contig_out) {
          if (cout)
            for (int64_t e = 0; e < eout; ++e) {
              db[e * P.line_os] = dst[2 * e];
              db[e * P.line_os + 1] = dst[2 * e + 1];
            }
          else
            for (int64_t e = 0; e < eout; ++e) db[e * P.line_os] = dst[e];
        }
      }
    };
    const int ntp = int(std::min<int64_t>(nt, P.nlines));
    if (ntp <= 1) {
      abft_report rep{};
      abft_status st = ABFT_STATUS_SUCCESS;
      run_lines(0, P.nlines, rep, st);
      core::add_report(total, rep);
      status = core::worse_status(status, st);
      continue;
    }
#pragma omp parallel num_threads(ntp)
    {
      abft_report rep{};
      abft_status st = ABFT_STATUS_SUCCESS;
      const int64_t t = omp_get_thread_num(), T_ = omp_get_num_threads();
      const int64_t l0 = P.nlines * t / T_, l1 = P.nlines * (t + 1) / T_;
      run_lines(l0, l1, rep, st);
      std::lock_guard<std::mutex> g(merge_mu);
      core::add_report(total, rep);
      status = core::worse_status(status, st);
    }
  }

  // Undo the table faults last first: two faults on one entry saved the first one's value as
  // the second one's original, so restoring in order would leave the table corrupt for every
  // later execution of the plan (found by `abft campaign --kernel fft --faults 3 --pattern col
  // --site fft_twiddle`).
  for (auto it = tw_saves.rbegin(); it != tw_saves.rend(); ++it)
    if (it->t->data[it->idx] == it->bad || std::isnan(double(it->t->data[it->idx])))
      it->t->data[it->idx] = it->orig;
  if (nf) core::finish_injection(cx.inj);
  core::record_call(h, kid, total);
  if (report) *report = total;
  return status;
}

template class FftPlan<float>;
template class FftPlan<double>;

}  // namespace abft::cpu::fft
