/** \file fft_correctness_test.cpp
 *  \brief FFT results against a direct long-double DFT (lines up to 4200) or
 *  FFTW (larger; skipped with a message when libfftw3-dev is missing): c2c
 *  forward/backward, r2c, c2r, float and double; 1D sizes from 1 to 2^20
 *  (powers of 2, 3^a 5^b 7^c, small and large primes), 2D/3D/4D, batches with
 *  strides, distances and embeds (plan_many and guru), in-place (padded real
 *  layout for r2c/c2r), input preservation, round trips, re-execution on new
 *  arrays, policies and thread counts.
 */
#include <gtest/gtest.h>

#include <iostream>

#include "fft_test_util.hpp"

using namespace abft_fft_test;

namespace {

enum class Entry { OneD, Dft, Many, Guru };

/** What a test asks for: the plan's layout, how to create it, options. */
struct Spec {
  Geometry g;
  Entry entry = Entry::OneD;
  ManyArgs many;  // Entry::Many
  unsigned flags = 0;
  bool inplace = false;
  abft_policy policy = ABFT_POLICY_CORRECT;
  int threads = 0;
  uint64_t seed = 1;
};

Spec one_d(abft_fft_kind kind, int sign, int64_t n) {
  Spec s;
  s.g = contiguous(kind, sign, {n});
  s.entry = Entry::OneD;
  return s;
}
Spec nd(abft_fft_kind kind, int sign, const std::vector<int64_t>& n) {
  Spec s;
  s.g = contiguous(kind, sign, n);
  s.entry = Entry::Dft;
  return s;
}
Spec many(const ManyArgs& m) {
  Spec s;
  s.many = m;
  s.g = m.geometry();
  s.entry = Entry::Many;
  s.flags = m.flags;
  return s;
}
Spec guru(const Geometry& g) {
  Spec s;
  s.g = g;
  s.entry = Entry::Guru;
  return s;
}

template <class T>
abft_status make_plan(const Spec& s, abft_handle_t h, Plan* p) {
  const abft_precision prec = precision_of<T>();
  switch (s.entry) {
    case Entry::OneD:
      return abft_fft_plan_1d(p->out(), h, prec, s.g.kind, s.g.dims[0].n, s.g.sign, s.flags);
    case Entry::Dft: {
      const std::vector<int64_t> n = s.g.n();
      return abft_fft_plan_dft(p->out(), h, prec, s.g.kind, int(n.size()), n.data(), s.g.sign,
                               s.flags);
    }
    case Entry::Many: return s.many.plan(p->out(), h, prec);
    case Entry::Guru: return plan_guru(p->out(), h, prec, s.g, s.flags);
  }
  return ABFT_STATUS_INTERNAL_ERROR;
}

bool needs_oracle(const Geometry& g) {
  for (int64_t v : g.n())
    if (v > kDirectDftMax) return true;
  return false;
}

/** Out-of-place plans keep their input unless the kind/flags allow otherwise. */
bool input_must_survive(const Spec& s) {
  if (s.inplace || (s.flags & ABFT_FFT_DESTROY_INPUT)) return false;
  if (s.g.kind == ABFT_FFT_C2R && s.g.rank() >= 2 && !(s.flags & ABFT_FFT_PRESERVE_INPUT))
    return false;
  return true;
}

/** Plan, fill, execute, compare every signal with the reference. */
template <class T>
void check_spec(const Spec& s) {
  SCOPED_TRACE(s.g.describe() + " " + type_tag<T>() + (s.inplace ? " in-place" : "") +
               " flags=" + std::to_string(s.flags));
  if (needs_oracle(s.g) && !have_fftw()) GTEST_SKIP() << no_oracle_message(s.g.n());
  abft::Handle h;
  h.set_policy(static_cast<abft::Policy>(s.policy));
  if (s.threads) h.set_threads(s.threads);
  Plan plan;
  const abft_status ps = make_plan<T>(s, h.get(), &plan);
  ASSERT_EQ(ps, ABFT_STATUS_SUCCESS) << abft_status_string(ps);
  ASSERT_TRUE(plan);

  Transform<T> t;
  t.g = s.g;
  t.inplace = s.inplace;
  t.allocate();
  t.fill_random(s.seed);
  std::vector<std::vector<cld>> inputs;
  for (int64_t b = 0; b < t.g.batch(); ++b) inputs.push_back(t.input(b));
  const std::vector<T> in_copy = t.in.data;

  // The plan's own account of the arrays it spans (largest index + 1 from
  // the pointer; with negative strides the header leaves the meaning open).
  int64_t in_sc = -1, out_sc = -1;
  ASSERT_EQ(abft_fft_array_sizes(plan.get(), &in_sc, &out_sc), ABFT_STATUS_SUCCESS);
  if (t.g.extent(true).first == 0 && t.g.extent(false).first == 0) {
    EXPECT_EQ(in_sc, (t.g.extent(true).second + 1) * (t.g.in_complex() ? 2 : 1));
    EXPECT_EQ(out_sc, (t.g.extent(false).second + 1) * (t.g.out_complex() ? 2 : 1));
  }

  const Run<T> r = t.execute(plan.get());
  ASSERT_EQ(r.status, ABFT_STATUS_SUCCESS) << abft_status_string(r.status);
  EXPECT_EQ(r.report.detected, 0u) << "false positive on random data";
  EXPECT_EQ(r.report.uncorrectable, 0u);
  std::string skip;
  EXPECT_TRUE(matches_reference(t, inputs, &skip));
  if (!s.inplace) {
    EXPECT_EQ(padding_written(t), 0) << "output storage outside the transforms written";
  }
  if (input_must_survive(s)) {
    EXPECT_TRUE(bytes_equal(t.in.data, in_copy)) << "out-of-place transform modified its input";
  }
  if (!skip.empty()) GTEST_SKIP() << skip;
}

template <class T>
std::string tname(const std::string& prefix, const std::string& rest) {
  return prefix + "_" + type_tag<T>() + "_" + rest;
}

// ---------------------------------------------------------------- 1D sizes
const int64_t k1dSizes[] = {1,   2,   3,   4,    5,    7,    8,    16,   64,    1000,
                            1024, 945, 2187, 3125, 13,  17,   31,   97,   101,   1009,
                            4099, 65536, 65537, 131072, 262144, 524288, 1048576};

template <class T>
void register_1d() {
  for (int64_t n : k1dSizes) {
    const std::string nn = "n" + std::to_string(n);
    register_test("FftC2C", tname<T>("Forward", nn), [n] {
      Spec s = one_d(ABFT_FFT_C2C, ABFT_FFT_FORWARD, n);
      s.seed = uint64_t(n) * 3 + 1;
      check_spec<T>(s);
    });
    register_test("FftC2C", tname<T>("Backward", nn), [n] {
      Spec s = one_d(ABFT_FFT_C2C, ABFT_FFT_BACKWARD, n);
      s.seed = uint64_t(n) * 3 + 2;
      check_spec<T>(s);
    });
    register_test("FftR2C", tname<T>("Forward", nn), [n] {
      Spec s = one_d(ABFT_FFT_R2C, ABFT_FFT_FORWARD, n);
      s.seed = uint64_t(n) * 5 + 3;
      check_spec<T>(s);
    });
    register_test("FftC2R", tname<T>("Backward", nn), [n] {
      Spec s = one_d(ABFT_FFT_C2R, ABFT_FFT_BACKWARD, n);
      s.seed = uint64_t(n) * 5 + 4;
      check_spec<T>(s);
    });
  }
  // FFTW's C2R ignores the imaginary parts of the DC and Nyquist bins (they
  // are zero in a Hermitian spectrum); the reference takes the real part of
  // the Hermitian extension, which does the same.
  for (int64_t n : {16, 15, 1000}) {
    register_test("FftC2R", tname<T>("IgnoresImagOfDcAndNyquist", "n" + std::to_string(n)), [n] {
      abft::Handle h;
      Plan plan;
      ASSERT_EQ(abft_fft_plan_1d(plan.out(), h.get(), precision_of<T>(), ABFT_FFT_C2R, n,
                                 ABFT_FFT_BACKWARD, 0),
                ABFT_STATUS_SUCCESS);
      Transform<T> t;
      t.g = contiguous(ABFT_FFT_C2R, +1, {n});
      t.allocate();
      const auto r = random_complex<T>(n / 2 + 1, 99 + uint64_t(n));
      std::vector<cld> v;
      for (const auto& z : r) v.push_back(cld(z.real(), z.imag()));
      t.set_input(0, v);
      const Run<T> run = t.execute(plan.get());
      ASSERT_EQ(run.status, ABFT_STATUS_SUCCESS) << abft_status_string(run.status);
      EXPECT_EQ(run.report.detected, 0u)
          << "false positive: a non-Hermitian DC/Nyquist imaginary part is not an error";
      EXPECT_TRUE(matches_reference(t, {v}));
    });
  }
}

// ---------------------------------------------------------------- nD
const std::vector<std::vector<int64_t>> kNdShapes = {
    {8, 12}, {17, 16}, {5, 6, 7}, {64, 64, 4}, {1, 16}, {16, 1}, {9, 1, 10}, {3, 1000}};

template <class T>
void register_nd() {
  for (const auto& shape : kNdShapes)
    for (const KindDir& k : kKinds)
      register_test("FftNd", tname<T>(k.tag, shape_tag(shape)), [shape, k] {
        Spec s = nd(k.kind, k.sign, shape);
        s.seed = uint64_t(product(shape)) + 11;
        s.flags = ABFT_FFT_PRESERVE_INPUT;  // so the input check applies to C2R too
        check_spec<T>(s);
      });
  // Rank 4 through the guru interface (contiguous layout).
  for (const KindDir& k : kKinds)
    register_test("FftNd", tname<T>(k.tag, "2x3x4x5_guru"), [k] {
      Spec s = guru(contiguous(k.kind, k.sign, {2, 3, 4, 5}));
      s.flags = ABFT_FFT_PRESERVE_INPUT;
      check_spec<T>(s);
    });
}

// ---------------------------------------------------------------- plan_many
/** Batched layouts through abft_fft_plan_many, for each kind. */
struct ManyCase {
  const char* name;
  ManyArgs (*make)(abft_fft_kind, int);
};
int64_t in_elems(abft_fft_kind k, const std::vector<int64_t>& n) {
  return product(k == ABFT_FFT_C2R ? half_shape(n) : n);
}
int64_t out_elems(abft_fft_kind k, const std::vector<int64_t>& n) {
  return product(k == ABFT_FFT_R2C ? half_shape(n) : n);
}
const ManyCase kManyCases[] = {
    {"Contiguous_n100_b5",
     [](abft_fft_kind k, int s) {
       ManyArgs m;
       m.kind = k, m.sign = s, m.n = {100}, m.howmany = 5;
       m.idist = in_elems(k, m.n), m.odist = out_elems(k, m.n);
       return m;
     }},
    {"Interleaved_n64_b3",  // istride = howmany, idist = 1 (FFTW's interleaved batches)
     [](abft_fft_kind k, int s) {
       ManyArgs m;
       m.kind = k, m.sign = s, m.n = {64}, m.howmany = 3;
       m.istride = 3, m.idist = 1, m.ostride = 3, m.odist = 1;
       return m;
     }},
    {"InterleavedInContiguousOut_n60_b4",
     [](abft_fft_kind k, int s) {
       ManyArgs m;
       m.kind = k, m.sign = s, m.n = {60}, m.howmany = 4;
       m.istride = 4, m.idist = 1, m.ostride = 1, m.odist = out_elems(k, m.n);
       return m;
     }},
    {"TransposedOut_n32_b32",
     [](abft_fft_kind k, int s) {
       ManyArgs m;
       m.kind = k, m.sign = s, m.n = {32}, m.howmany = 32;
       m.istride = 1, m.idist = in_elems(k, m.n), m.ostride = 32, m.odist = 1;
       return m;
     }},
    {"PaddedEmbed_6x10_b3",
     [](abft_fft_kind k, int s) {
       ManyArgs m;
       m.kind = k, m.sign = s, m.n = {6, 10}, m.howmany = 3;
       m.inembed = {8, 13}, m.onembed = {7, 11};
       m.istride = 2, m.idist = 8 * 13 * 2 + 5, m.ostride = 1, m.odist = 7 * 11 + 3;
       m.flags = ABFT_FFT_PRESERVE_INPUT;
       return m;
     }},
    {"PaddedEmbed_4x5x6_b2",
     [](abft_fft_kind k, int s) {
       ManyArgs m;
       m.kind = k, m.sign = s, m.n = {4, 5, 6}, m.howmany = 2;
       m.inembed = {4, 7, 9}, m.onembed = {5, 6, 8};
       m.istride = 1, m.idist = 4 * 7 * 9, m.ostride = 1, m.odist = 5 * 6 * 8 + 1;
       m.flags = ABFT_FFT_PRESERVE_INPUT;
       return m;
     }},
    {"Bluestein_n1009_b3",
     [](abft_fft_kind k, int s) {
       ManyArgs m;
       m.kind = k, m.sign = s, m.n = {1009}, m.howmany = 3;
       m.idist = in_elems(k, m.n) + 7, m.odist = out_elems(k, m.n) + 3;
       return m;
     }},
    {"Batch64_n256",
     [](abft_fft_kind k, int s) {
       ManyArgs m;
       m.kind = k, m.sign = s, m.n = {256}, m.howmany = 64;
       m.idist = in_elems(k, m.n), m.odist = out_elems(k, m.n);
       return m;
     }},
};

template <class T>
void register_many() {
  for (const ManyCase& c : kManyCases)
    for (const KindDir& k : kKinds)
      register_test("FftMany", std::string(c.name) + "_" + k.tag + "_" + type_tag<T>(), [c, k] {
        Spec s = many(c.make(k.kind, k.sign));
        s.seed = 21;
        s.threads = 2;
        check_spec<T>(s);
      });
}

// ---------------------------------------------------------------- guru
struct GuruCase {
  const char* name;
  Geometry (*make)(abft_fft_kind, int);
};
const GuruCase kGuruCases[] = {
    {"HowmanyRank2_n24_3x4",
     [](abft_fft_kind k, int s) {
       Geometry g;
       g.kind = k, g.sign = s;
       g.dims = {{24, 1, 1}};
       g.loops = {{3, 4 * 26, 4 * 30}, {4, 26, 30}};
       return g;
     }},
    {"Rank2TransposedOut_5x9_b2",
     [](abft_fft_kind k, int s) {
       Geometry g;
       g.kind = k, g.sign = s;
       g.dims = {{5, 18, 1}, {9, 2, 5}};
       g.loops = {{2, 91, 45}};
       return g;
     }},
    {"HowmanyRank0_n48_stride2",
     [](abft_fft_kind k, int s) {
       Geometry g;
       g.kind = k, g.sign = s;
       g.dims = {{48, 2, 3}};
       return g;
     }},
    {"HowmanyRank3_n10_2x3x2",  // input padded batches, output batches interleaved
     [](abft_fft_kind k, int s) {
       Geometry g;
       g.kind = k, g.sign = s;
       g.dims = {{10, 1, 12}};
       g.loops = {{2, 66, 1}, {3, 22, 2}, {2, 11, 6}};
       return g;
     }},
    {"NegativeInputStride_n32_b2",
     [](abft_fft_kind k, int s) {
       Geometry g;
       g.kind = k, g.sign = s;
       const int64_t il = k == ABFT_FFT_C2R ? 17 : 32, ol = k == ABFT_FFT_R2C ? 17 : 32;
       g.dims = {{32, -1, 1}};
       g.loops = {{2, il, ol}};
       return g;
     }},
};

template <class T>
void register_guru() {
  for (const GuruCase& c : kGuruCases)
    for (const KindDir& k : kKinds)
      register_test("FftGuru", std::string(c.name) + "_" + k.tag + "_" + type_tag<T>(), [c, k] {
        Spec s = guru(c.make(k.kind, k.sign));
        s.flags = ABFT_FFT_PRESERVE_INPUT;
        s.seed = 33;
        check_spec<T>(s);
      });
}

// ---------------------------------------------------------------- in-place
/** In-place layouts FFTW accepts: C2C with equal strides; R2C/C2R with the
 *  real side padded to 2*(n/2+1) along the last dimension. */
ManyArgs inplace_many(abft_fft_kind k, int s, const std::vector<int64_t>& n, int64_t howmany) {
  ManyArgs m;
  m.kind = k, m.sign = s, m.n = n, m.howmany = howmany;
  if (k == ABFT_FFT_C2C) {
    m.idist = m.odist = product(n);
    return m;
  }
  std::vector<int64_t> real_e = n, cplx_e = half_shape(n);
  real_e.back() = 2 * (n.back() / 2 + 1);
  m.inembed = k == ABFT_FFT_R2C ? real_e : cplx_e;
  m.onembed = k == ABFT_FFT_R2C ? cplx_e : real_e;
  m.idist = product(m.inembed);
  m.odist = product(m.onembed);
  return m;
}

template <class T>
void register_inplace() {
  for (int64_t n : {1, 16, 1000, 1009, 4096, 131072})
    for (const KindDir& k : kKinds)
      register_test("FftInPlace", tname<T>(std::string(k.tag), "n" + std::to_string(n)), [n, k] {
        Spec s = one_d(k.kind, k.sign, n);
        if (k.kind != ABFT_FFT_C2C) s = many(inplace_many(k.kind, k.sign, {n}, 1));
        s.inplace = true;
        s.seed = uint64_t(n) + 5;
        check_spec<T>(s);
      });
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> shapes = {
      {{100}, 3}, {{8, 12}, 1}, {{5, 6, 7}, 2}, {{17, 15}, 2}};
  for (const auto& sh : shapes)
    for (const KindDir& k : kKinds)
      register_test("FftInPlace",
                    tname<T>(std::string(k.tag), shape_tag(sh.first) + "_b" +
                                                     std::to_string(sh.second) + "_many"),
                    [sh, k] {
                      Spec s = many(inplace_many(k.kind, k.sign, sh.first, sh.second));
                      s.inplace = true;
                      s.seed = 77;
                      check_spec<T>(s);
                    });
}

// ---------------------------------------------------------------- input preservation
template <class T>
void register_input_rules() {
  // C2R of rank >= 2 with PRESERVE_INPUT never writes its input (checked by
  // check_spec); without it the result is still right.
  for (const auto& shape : std::vector<std::vector<int64_t>>{{8, 12}, {5, 6, 7}, {64, 30}}) {
    register_test("FftInput", tname<T>("C2RPreserveInput", shape_tag(shape)), [shape] {
      Spec s = nd(ABFT_FFT_C2R, ABFT_FFT_BACKWARD, shape);
      s.flags = ABFT_FFT_PRESERVE_INPUT;
      check_spec<T>(s);
    });
    register_test("FftInput", tname<T>("C2RMayDestroyInput", shape_tag(shape)), [shape] {
      Spec s = nd(ABFT_FFT_C2R, ABFT_FFT_BACKWARD, shape);
      check_spec<T>(s);
    });
  }
  for (const KindDir& k : kKinds)
    register_test("FftInput", tname<T>(std::string("DestroyInputFlag_") + k.tag, "n1000"), [k] {
      Spec s = one_d(k.kind, k.sign, 1000);
      s.flags = ABFT_FFT_DESTROY_INPUT | ABFT_FFT_UNALIGNED;
      check_spec<T>(s);
    });
  // Unaligned arrays (one scalar off the allocation's alignment).
  for (const KindDir& k : kKinds)
    register_test("FftInput", tname<T>(std::string("Unaligned_") + k.tag, "n256"), [k] {
      abft::Handle h;
      Plan plan;
      ASSERT_EQ(abft_fft_plan_1d(plan.out(), h.get(), precision_of<T>(), k.kind, 256, k.sign,
                                 ABFT_FFT_UNALIGNED),
                ABFT_STATUS_SUCCESS);
      Transform<T> t;
      t.g = contiguous(k.kind, k.sign, {256});
      t.allocate();
      t.fill_random(5);
      // Shift both arrays by one scalar inside larger buffers.
      std::vector<T> ib(t.in.data.size() + 1), ob(t.out.data.size() + 1);
      std::memcpy(ib.data() + 1, t.in.data.data(), t.in.data.size() * sizeof(T));
      const Run<T> r0 = t.execute(plan.get());
      ASSERT_EQ(r0.status, ABFT_STATUS_SUCCESS);
      abft_report rep{};
      ASSERT_EQ(abft_fft_execute(plan.get(), ib.data() + 1, ob.data() + 1, &rep),
                ABFT_STATUS_SUCCESS);
      EXPECT_EQ(rep.detected, 0u);
      for (size_t i = 0; i < t.out.data.size(); ++i)
        ASSERT_TRUE(same_bits(ob[i + 1], t.out.data[i]))
            << "unaligned execution differs at scalar " << i;
    });
}

// ---------------------------------------------------------------- round trips
/** backward(forward(x)) == N x (unnormalized), no oracle needed. */
template <class T>
void round_trip(const std::vector<int64_t>& n, bool real) {
  SCOPED_TRACE(shape_tag(n) + (real ? " r2c/c2r" : " c2c") + " " + type_tag<T>());
  abft::Handle h;
  Plan fwd, bwd;
  const abft_precision prec = precision_of<T>();
  const int rank = int(n.size());
  ASSERT_EQ(abft_fft_plan_dft(fwd.out(), h.get(), prec, real ? ABFT_FFT_R2C : ABFT_FFT_C2C, rank,
                              n.data(), ABFT_FFT_FORWARD, 0),
            ABFT_STATUS_SUCCESS);
  ASSERT_EQ(abft_fft_plan_dft(bwd.out(), h.get(), prec, real ? ABFT_FFT_C2R : ABFT_FFT_C2C, rank,
                              n.data(), ABFT_FFT_BACKWARD, 0),
            ABFT_STATUS_SUCCESS);
  Transform<T> a, b;
  a.g = contiguous(real ? ABFT_FFT_R2C : ABFT_FFT_C2C, -1, n);
  b.g = contiguous(real ? ABFT_FFT_C2R : ABFT_FFT_C2C, +1, n);
  a.allocate();
  b.allocate();
  a.fill_random(1234 + uint64_t(product(n)));
  const std::vector<cld> x = a.input(0);
  const Run<T> r1 = a.execute(fwd.get());
  ASSERT_EQ(r1.status, ABFT_STATUS_SUCCESS);
  b.in.data = a.out.data;  // same layout: the forward output is the backward input
  const Run<T> r2 = b.execute(bwd.get());
  ASSERT_EQ(r2.status, ABFT_STATUS_SUCCESS);
  EXPECT_EQ(r1.report.detected + r2.report.detected, 0u);
  const std::vector<cld> z = b.output(0);
  std::vector<cld> want(x.size());
  const long double N = product(n);
  for (size_t i = 0; i < x.size(); ++i) want[i] = x[i] * N;
  const ErrStats s = compare(z, want);
  EXPECT_TRUE(within(s, 2.0 * tolerance<T>(product(n)), tolerance_floor<T>(product(n)), z, want));
}

template <class T>
void register_round_trips() {
  for (const auto& n : std::vector<std::vector<int64_t>>{
           {1}, {7}, {1000}, {1009}, {4096}, {65537}, {131072}, {17, 16}, {5, 6, 7}})
    for (bool real : {false, true})
      register_test("FftRoundTrip", tname<T>(real ? "R2C_C2R" : "C2C", shape_tag(n)),
                    [n, real] { round_trip<T>(n, real); });
}

// ---------------------------------------------------------------- execution
template <class T>
void register_execution() {
  // One plan, several array pairs (execute on new arrays), repeated calls
  // bitwise identical.
  register_test("FftExecute", tname<T>("NewArraysAndRepeat", "n1000_b2"), [] {
    abft::Handle h;
    ManyArgs m;
    m.n = {1000}, m.howmany = 2, m.idist = 1000, m.odist = 1000;
    Plan plan;
    ASSERT_EQ(m.plan(plan.out(), h.get(), precision_of<T>()), ABFT_STATUS_SUCCESS);
    for (uint64_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE("arrays " + std::to_string(seed));
      Transform<T> t;
      t.g = m.geometry();
      t.allocate();
      t.fill_random(seed);
      std::vector<std::vector<cld>> in = {t.input(0), t.input(1)};
      ASSERT_EQ(t.execute(plan.get()).status, ABFT_STATUS_SUCCESS);
      EXPECT_TRUE(matches_reference(t, in));
      const std::vector<T> first = t.out.data;
      ASSERT_EQ(t.execute(plan.get()).status, ABFT_STATUS_SUCCESS);
      EXPECT_EQ(first_difference(first, t.out.data), -1) << "second execution differs";
    }
  });
  // Every policy gives a correct result; checks run unless OFF.
  for (int64_t n : {64, 1009, 65536})
    register_test("FftExecute", tname<T>("Policies", "n" + std::to_string(n)), [n] {
      if (n > kDirectDftMax && !have_fftw()) GTEST_SKIP() << no_oracle_message({n});
      for (abft_policy pol : {ABFT_POLICY_OFF, ABFT_POLICY_DETECT, ABFT_POLICY_CORRECT}) {
        SCOPED_TRACE("policy " + std::to_string(int(pol)));
        abft::Handle h;
        Plan plan;
        ASSERT_EQ(abft_fft_plan_1d(plan.out(), h.get(), precision_of<T>(), ABFT_FFT_C2C, n, -1, 0),
                  ABFT_STATUS_SUCCESS);
        ASSERT_EQ(abft_fft_set_policy(plan.get(), pol), ABFT_STATUS_SUCCESS);
        Transform<T> t;
        t.g = contiguous(ABFT_FFT_C2C, -1, {n});
        t.allocate();
        t.fill_random(8);
        std::vector<std::vector<cld>> in = {t.input(0)};
        const Run<T> r = t.execute(plan.get());
        ASSERT_EQ(r.status, ABFT_STATUS_SUCCESS);
        EXPECT_EQ(r.report.detected, 0u);
        if (pol == ABFT_POLICY_OFF) {
          EXPECT_EQ(r.report.checks, 0u) << "policy OFF must not verify";
        } else {
          EXPECT_GE(r.report.checks, 1u) << "a protected run verified nothing";
        }
        EXPECT_TRUE(matches_reference(t, in));
      }
    });
  // Thread counts agree (within the tolerance) and are each correct.
  for (int64_t n : {1024, 131072})
    register_test("FftExecute", tname<T>("Threads1And2", "n" + std::to_string(n) + "_b4"), [n] {
      if (n > kDirectDftMax && !have_fftw()) GTEST_SKIP() << no_oracle_message({n});
      for (int th : {1, 2}) {
        SCOPED_TRACE("threads " + std::to_string(th));
        abft::Handle h;
        h.set_threads(th);
        ManyArgs m;
        m.n = {n}, m.howmany = 4, m.idist = n, m.odist = n;
        Plan plan;
        ASSERT_EQ(m.plan(plan.out(), h.get(), precision_of<T>()), ABFT_STATUS_SUCCESS);
        Transform<T> t;
        t.g = m.geometry();
        t.allocate();
        t.fill_random(4);
        std::vector<std::vector<cld>> in;
        for (int b = 0; b < 4; ++b) in.push_back(t.input(b));
        const Run<T> r = t.execute(plan.get());
        ASSERT_EQ(r.status, ABFT_STATUS_SUCCESS);
        EXPECT_EQ(r.report.detected, 0u);
        EXPECT_TRUE(matches_reference(t, in));
      }
    });
  // A NULL handle (process defaults) works.
  register_test("FftExecute", tname<T>("NullHandle", "n64"), [] {
    Plan plan;
    ASSERT_EQ(abft_fft_plan_1d(plan.out(), nullptr, precision_of<T>(), ABFT_FFT_C2C, 64, -1, 0),
              ABFT_STATUS_SUCCESS);
    Transform<T> t;
    t.g = contiguous(ABFT_FFT_C2C, -1, {64});
    t.allocate();
    t.fill_random(64);
    std::vector<std::vector<cld>> in = {t.input(0)};
    ASSERT_EQ(t.execute(plan.get()).status, ABFT_STATUS_SUCCESS);
    EXPECT_TRUE(matches_reference(t, in));
  });
  // The report may be NULL.
  register_test("FftExecute", tname<T>("NullReport", "n100"), [] {
    Plan plan;
    ASSERT_EQ(abft_fft_plan_1d(plan.out(), nullptr, precision_of<T>(), ABFT_FFT_R2C, 100, -1, 0),
              ABFT_STATUS_SUCCESS);
    Transform<T> t;
    t.g = contiguous(ABFT_FFT_R2C, -1, {100});
    t.allocate();
    t.fill_random(100);
    std::vector<std::vector<cld>> in = {t.input(0)};
    ASSERT_EQ(abft_fft_execute(plan.get(), t.in.ptr(), t.out.ptr(), nullptr),
              ABFT_STATUS_SUCCESS);
    EXPECT_TRUE(matches_reference(t, in));
  });
}

template <class T>
void register_all_for() {
  register_1d<T>();
  register_nd<T>();
  register_many<T>();
  register_guru<T>();
  register_inplace<T>();
  register_input_rules<T>();
  register_round_trips<T>();
  register_execution<T>();
}

const bool kRegistered = [] {
  register_all_for<float>();
  register_all_for<double>();
  return true;
}();

}  // namespace
