/** \file fft_args_test.cpp
 *  \brief Bad arguments to the FFT C API give a negative status and write
 *  nothing: no plan handed out on a failed creation, output arrays untouched
 *  on a failed execution; no crash. Also the plan queries (describe, flops
 *  and units, array sizes) and the status strings.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>

#include "fft_test_util.hpp"

using namespace abft_fft_test;

namespace {

const abft_fft_plan_t kSentinel = reinterpret_cast<abft_fft_plan_t>(uintptr_t(0x5eed));

std::string status_list(std::initializer_list<abft_status> l) {
  std::string s;
  for (abft_status x : l) s += std::string(s.empty() ? "" : " or ") + abft_status_string(x);
  return s;
}

/** Executing p on one array of `scalars` seeded random doubles, the output
 *  `out_offset` scalars into it (0: in place), must fail and leave the array
 *  as it was. */
::testing::AssertionResult execute_rejected(abft_fft_plan_t p, int64_t scalars, uint64_t seed,
                                            int64_t out_offset = 0) {
  std::vector<double> buf = random_real<double>(scalars, seed);
  const std::vector<double> before = buf;
  const abft_status s = abft_fft_execute(p, buf.data(), buf.data() + out_offset, nullptr);
  if (s >= 0) return ::testing::AssertionFailure() << "accepted: " << abft_status_string(s);
  if (!bytes_equal(buf, before))
    return ::testing::AssertionFailure() << "a rejected call wrote its array ("
                                         << abft_status_string(s) << ")";
  return ::testing::AssertionSuccess();
}

/** call(out) must return one of `allowed` and leave *out untouched (or NULL). */
template <class F>
::testing::AssertionResult rejects(F call, std::initializer_list<abft_status> allowed) {
  abft_fft_plan_t p = kSentinel;
  const abft_status s = call(&p);
  bool ok_status = false;
  for (abft_status a : allowed) ok_status |= (s == a);
  const bool ok_out = (p == kSentinel || p == nullptr);
  if (s == ABFT_STATUS_SUCCESS && p && p != kSentinel) abft_fft_destroy(p);
  if (ok_status && ok_out && s < 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "returned " << abft_status_string(s) << " (" << int(s) << "), expected "
         << status_list(allowed) << (ok_out ? "" : "; and a plan was written to *out");
}

#define EXPECT_REJECTS(call_expr, ...)                                                         \
  EXPECT_TRUE(rejects([&](abft_fft_plan_t* out_) { return (call_expr); }, {__VA_ARGS__})) \
      << #call_expr

constexpr abft_precision D = ABFT_PRECISION_DOUBLE;
constexpr abft_precision F = ABFT_PRECISION_FLOAT;
constexpr abft_status kSize = ABFT_STATUS_INVALID_SIZE;
constexpr abft_status kValue = ABFT_STATUS_INVALID_VALUE;
constexpr abft_status kNull = ABFT_STATUS_NULL_POINTER;
constexpr abft_status kLd = ABFT_STATUS_INVALID_LD;

// ---------------------------------------------------------------- plan creation
TEST(FftArgs, PlanNullOutPointer) {
  const int64_t n[] = {16};
  const abft_fft_dim d[] = {{16, 1, 1}};
  EXPECT_EQ(abft_fft_plan_1d(nullptr, nullptr, D, ABFT_FFT_C2C, 16, -1, 0), kNull);
  EXPECT_EQ(abft_fft_plan_dft(nullptr, nullptr, D, ABFT_FFT_C2C, 1, n, -1, 0), kNull);
  EXPECT_EQ(abft_fft_plan_many(nullptr, nullptr, D, ABFT_FFT_C2C, 1, n, 1, nullptr, 1, 16, nullptr,
                               1, 16, -1, 0),
            kNull);
  EXPECT_EQ(abft_fft_plan_guru(nullptr, nullptr, D, ABFT_FFT_C2C, 1, d, 0, nullptr, -1, 0), kNull);
}

TEST(FftArgs, SizeZeroOrNegative_1d) {
  for (int64_t n : {int64_t(0), int64_t(-1), int64_t(-1024), INT64_MIN}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    for (abft_fft_kind k : {ABFT_FFT_C2C, ABFT_FFT_R2C, ABFT_FFT_C2R}) {
      const int sign = kind_sign(k, -1);
      EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, D, k, n, sign, 0), kSize);
      EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, F, k, n, sign, 0), kSize);
    }
  }
}

TEST(FftArgs, SizeZeroOrNegative_DftManyGuru) {
  const int64_t n2[] = {8, 0}, n3[] = {4, -3, 5};
  EXPECT_REJECTS(abft_fft_plan_dft(out_, nullptr, D, ABFT_FFT_C2C, 2, n2, -1, 0), kSize);
  EXPECT_REJECTS(abft_fft_plan_dft(out_, nullptr, F, ABFT_FFT_R2C, 3, n3, -1, 0), kSize);
  EXPECT_REJECTS(abft_fft_plan_many(out_, nullptr, D, ABFT_FFT_C2C, 2, n2, 3, nullptr, 1, 8,
                                    nullptr, 1, 8, -1, 0),
                 kSize);
  const abft_fft_dim d0[] = {{0, 1, 1}}, dneg[] = {{16, 1, 1}, {-2, 16, 16}};
  EXPECT_REJECTS(abft_fft_plan_guru(out_, nullptr, D, ABFT_FFT_C2C, 1, d0, 0, nullptr, -1, 0), kSize);
  EXPECT_REJECTS(abft_fft_plan_guru(out_, nullptr, D, ABFT_FFT_C2C, 2, dneg, 0, nullptr, -1, 0), kSize);
  const abft_fft_dim d[] = {{16, 1, 1}}, loop_neg[] = {{-4, 16, 16}};
  EXPECT_REJECTS(abft_fft_plan_guru(out_, nullptr, D, ABFT_FFT_C2C, 1, d, 1, loop_neg, -1, 0), kSize);
}

TEST(FftArgs, HowmanyNegative) {
  const int64_t n[] = {32};
  EXPECT_REJECTS(abft_fft_plan_many(out_, nullptr, D, ABFT_FFT_C2C, 1, n, -1, nullptr, 1, 32,
                                    nullptr, 1, 32, -1, 0),
                 kSize);
  EXPECT_REJECTS(abft_fft_plan_many(out_, nullptr, F, ABFT_FFT_R2C, 1, n, -7, nullptr, 1, 32,
                                    nullptr, 1, 17, -1, 0),
                 kSize);
}

TEST(FftArgs, RankBelowOne) {
  const int64_t n[] = {16};
  const abft_fft_dim d[] = {{16, 1, 1}};
  for (int rank : {0, -1}) {
    SCOPED_TRACE("rank=" + std::to_string(rank));
    EXPECT_REJECTS(abft_fft_plan_dft(out_, nullptr, D, ABFT_FFT_C2C, rank, n, -1, 0), kValue, kSize);
    EXPECT_REJECTS(abft_fft_plan_many(out_, nullptr, D, ABFT_FFT_C2C, rank, n, 1, nullptr, 1, 16,
                                      nullptr, 1, 16, -1, 0),
                   kValue, kSize);
    EXPECT_REJECTS(abft_fft_plan_guru(out_, nullptr, D, ABFT_FFT_C2C, rank, d, 0, nullptr, -1, 0),
                   kValue, kSize);
  }
  EXPECT_REJECTS(abft_fft_plan_guru(out_, nullptr, D, ABFT_FFT_C2C, 1, d, -1, d, -1, 0), kValue, kSize);
}

TEST(FftArgs, NullDimensionArrays) {
  const abft_fft_dim d[] = {{16, 1, 1}};
  EXPECT_REJECTS(abft_fft_plan_dft(out_, nullptr, D, ABFT_FFT_C2C, 2, nullptr, -1, 0), kNull);
  EXPECT_REJECTS(abft_fft_plan_many(out_, nullptr, D, ABFT_FFT_C2C, 1, nullptr, 1, nullptr, 1, 16,
                                    nullptr, 1, 16, -1, 0),
                 kNull);
  EXPECT_REJECTS(abft_fft_plan_guru(out_, nullptr, D, ABFT_FFT_C2C, 1, nullptr, 0, nullptr, -1, 0), kNull);
  EXPECT_REJECTS(abft_fft_plan_guru(out_, nullptr, D, ABFT_FFT_C2C, 1, d, 2, nullptr, -1, 0), kNull);
}

TEST(FftArgs, SignC2CNotPlusMinusOne) {
  for (int sign : {0, 2, -2, 7}) {
    SCOPED_TRACE("sign=" + std::to_string(sign));
    EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, D, ABFT_FFT_C2C, 64, sign, 0), kValue);
    EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, F, ABFT_FFT_C2C, 64, sign, 0), kValue);
  }
}

TEST(FftArgs, SignWrongForRealKinds) {
  EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, D, ABFT_FFT_R2C, 64, +1, 0), kValue);
  EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, D, ABFT_FFT_C2R, 64, -1, 0), kValue);
  EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, F, ABFT_FFT_R2C, 64, 2, 0), kValue);
  EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, F, ABFT_FFT_C2R, 64, -2, 0), kValue);
  // 0 is accepted for the real kinds (their direction is implied).
  for (abft_fft_kind k : {ABFT_FFT_R2C, ABFT_FFT_C2R}) {
    Plan p;
    EXPECT_EQ(abft_fft_plan_1d(p.out(), nullptr, D, k, 64, 0, 0), ABFT_STATUS_SUCCESS) << kind_tag(k);
  }
}

TEST(FftArgs, UnknownKindPrecisionFlags) {
  EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, D, static_cast<abft_fft_kind>(3), 64, -1, 0), kValue);
  EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, D, static_cast<abft_fft_kind>(-1), 64, -1, 0), kValue);
  EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, static_cast<abft_precision>(2), ABFT_FFT_C2C, 64, -1, 0),
                 kValue);
  EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, static_cast<abft_precision>(-1), ABFT_FFT_C2C, 64, -1, 0),
                 kValue);
  for (unsigned fl : {1u << 3, 1u << 7, 1u << 31, ~0u}) {
    SCOPED_TRACE("flags=" + std::to_string(fl));
    EXPECT_REJECTS(abft_fft_plan_1d(out_, nullptr, D, ABFT_FFT_C2C, 64, -1, fl), kValue);
  }
  // Every documented flag alone is accepted.
  for (unsigned fl : {0u, unsigned(ABFT_FFT_PRESERVE_INPUT), unsigned(ABFT_FFT_DESTROY_INPUT),
                      unsigned(ABFT_FFT_UNALIGNED)}) {
    Plan p;
    EXPECT_EQ(abft_fft_plan_1d(p.out(), nullptr, D, ABFT_FFT_C2R, 64, +1, fl), ABFT_STATUS_SUCCESS)
        << "flags=" << fl;
  }
}

TEST(FftArgs, ZeroStrideInTransformDimension) {
  const abft_fft_dim in0[] = {{16, 0, 1}}, out0[] = {{16, 1, 0}}, in0_2d[] = {{4, 0, 8}, {8, 1, 1}};
  EXPECT_REJECTS(abft_fft_plan_guru(out_, nullptr, D, ABFT_FFT_C2C, 1, in0, 0, nullptr, -1, 0), kValue, kLd);
  EXPECT_REJECTS(abft_fft_plan_guru(out_, nullptr, D, ABFT_FFT_C2C, 1, out0, 0, nullptr, -1, 0), kValue, kLd);
  EXPECT_REJECTS(abft_fft_plan_guru(out_, nullptr, F, ABFT_FFT_R2C, 2, in0_2d, 0, nullptr, -1, 0), kValue, kLd);
  const int64_t n[] = {16};
  EXPECT_REJECTS(abft_fft_plan_many(out_, nullptr, D, ABFT_FFT_C2C, 1, n, 2, nullptr, 0, 16, nullptr,
                                    1, 16, -1, 0),
                 kValue, kLd);
  EXPECT_REJECTS(abft_fft_plan_many(out_, nullptr, D, ABFT_FFT_C2C, 1, n, 2, nullptr, 1, 16, nullptr,
                                    0, 16, -1, 0),
                 kValue, kLd);
}

TEST(FftArgs, EmbedSmallerThanTransform) {
  // FFTW: inembed/onembed[d] >= n[d] for d >= 1 (the first one only sets dist).
  const int64_t n[] = {8, 12}, small[] = {8, 10}, ok[] = {8, 12};
  EXPECT_REJECTS(abft_fft_plan_many(out_, nullptr, D, ABFT_FFT_C2C, 2, n, 2, small, 1, 96, ok, 1,
                                    96, -1, 0),
                 kValue, kLd, kSize);
  EXPECT_REJECTS(abft_fft_plan_many(out_, nullptr, D, ABFT_FFT_C2C, 2, n, 2, ok, 1, 96, small, 1,
                                    96, -1, 0),
                 kValue, kLd, kSize);
  // R2C: the complex side's last embed must hold n/2+1 = 7.
  const int64_t half_small[] = {8, 6};
  EXPECT_REJECTS(abft_fft_plan_many(out_, nullptr, D, ABFT_FFT_R2C, 2, n, 1, nullptr, 1, 96,
                                    half_small, 1, 56, -1, 0),
                 kValue, kLd, kSize);
}

// ---------------------------------------------------------------- execute
/** A c2c double plan of length 64 with arrays; out filled with a pattern. */
struct Exec {
  Plan plan;
  std::vector<double> in, out;
  explicit Exec(unsigned flags = 0) {
    EXPECT_EQ(abft_fft_plan_1d(plan.out(), nullptr, D, ABFT_FFT_C2C, 64, -1, flags), ABFT_STATUS_SUCCESS);
    in = random_real<double>(128, 3);
    out.assign(128, -3.25);
  }
};

TEST(FftArgs, ExecuteNullPointers) {
  Exec e;
  const std::vector<double> in0 = e.in, out0 = e.out;
  abft_report rep{};
  EXPECT_EQ(abft_fft_execute(nullptr, e.in.data(), e.out.data(), &rep), kNull);
  EXPECT_EQ(abft_fft_execute(e.plan.get(), nullptr, e.out.data(), &rep), kNull);
  EXPECT_EQ(abft_fft_execute(e.plan.get(), e.in.data(), nullptr, &rep), kNull);
  EXPECT_TRUE(bytes_equal(e.out, out0)) << "a rejected call wrote its output";
  EXPECT_TRUE(bytes_equal(e.in, in0));
}

TEST(FftArgs, ExecuteGuruInPlaceWithDifferentStrides) {
  // In place the two sides must describe the same memory; is != os can't.
  const abft_fft_dim d[] = {{32, 1, 2}};
  Plan p;
  ASSERT_EQ(abft_fft_plan_guru(p.out(), nullptr, D, ABFT_FFT_C2C, 1, d, 0, nullptr, -1, 0),
            ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(execute_rejected(p.get(), 2 * 64, 4));
  // Same with batch distances that differ.
  const abft_fft_dim d2[] = {{16, 1, 1}}, loop[] = {{3, 16, 20}};
  Plan p2;
  ASSERT_EQ(abft_fft_plan_guru(p2.out(), nullptr, D, ABFT_FFT_C2C, 1, d2, 1, loop, +1, 0),
            ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(execute_rejected(p2.get(), 2 * 60, 5));
}

TEST(FftArgs, ExecuteInPlaceR2CWithoutPaddedLayout) {
  // A batch of contiguous (unpadded) real rows can't be transformed in
  // place: the complex rows (n/2+1 pairs) are longer than the real ones.
  const int64_t n[] = {30};
  Plan p;
  ASSERT_EQ(abft_fft_plan_many(p.out(), nullptr, D, ABFT_FFT_R2C, 1, n, 4, nullptr, 1, 30, nullptr,
                               1, 16, -1, 0),
            ABFT_STATUS_SUCCESS);
  EXPECT_TRUE(execute_rejected(p.get(), 4 * 32, 6));
}

TEST(FftArgs, ExecuteOverlappingArrays) {
  // Out of place the arrays must not overlap.
  Exec e;
  EXPECT_TRUE(execute_rejected(e.plan.get(), 256, 7, 2));
}

TEST(FftArgs, PlanSettersAndQueriesRejectBadArguments) {
  Exec e;
  EXPECT_EQ(abft_fft_set_policy(nullptr, ABFT_POLICY_CORRECT), kNull);
  EXPECT_EQ(abft_fft_set_policy(e.plan.get(), static_cast<abft_policy>(7)), kValue);
  EXPECT_EQ(abft_fft_set_policy(e.plan.get(), static_cast<abft_policy>(-2)), kValue);
  for (abft_policy p : {ABFT_POLICY_DEFAULT, ABFT_POLICY_OFF, ABFT_POLICY_DETECT, ABFT_POLICY_CORRECT})
    EXPECT_EQ(abft_fft_set_policy(e.plan.get(), p), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_fft_set_threads(nullptr, 1), kNull);
  EXPECT_EQ(abft_fft_set_threads(e.plan.get(), -1), kValue);
  EXPECT_EQ(abft_fft_set_threads(e.plan.get(), 0), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(abft_fft_set_threads(e.plan.get(), 2), ABFT_STATUS_SUCCESS);
  double fl = 0;
  int64_t units = 0, a = 0, b = 0;
  EXPECT_EQ(abft_fft_flops(nullptr, &fl, &units), kNull);
  EXPECT_EQ(abft_fft_array_sizes(nullptr, &a, &b), kNull);
  // Destroying NULL is harmless (FFTW-like), describing NULL doesn't crash.
  const abft_status ds = abft_fft_destroy(nullptr);
  EXPECT_TRUE(ds == ABFT_STATUS_SUCCESS || ds == kNull) << abft_status_string(ds);
  (void)abft_fft_describe(nullptr);
}

// ---------------------------------------------------------------- status strings
TEST(FftArgs, StatusStrings) {
  for (int s = -7; s <= 2; ++s) {
    const char* str = abft_status_string(static_cast<abft_status>(s));
    ASSERT_NE(str, nullptr) << s;
    EXPECT_NE(std::string(str).find("ABFT_STATUS_"), std::string::npos) << s << ": " << str;
  }
  const char* unknown = abft_status_string(static_cast<abft_status>(99));
  ASSERT_NE(unknown, nullptr);
  EXPECT_GT(std::strlen(unknown), 0u);
  EXPECT_NE(std::string(abft_kernel_name(ABFT_KERNEL_SFFT)), std::string(abft_kernel_name(ABFT_KERNEL_DFFT)));
}

// ---------------------------------------------------------------- queries
std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TEST(FftQueries, DescribeNamesKindPrecisionAndSizes) {
  struct C {
    abft_precision prec;
    abft_fft_kind kind;
    std::vector<int64_t> n;
    int64_t batch;
  };
  const C cases[] = {{D, ABFT_FFT_C2C, {1048576}, 1}, {F, ABFT_FFT_R2C, {8, 12}, 1},
                     {D, ABFT_FFT_C2R, {5, 6, 7}, 1}, {F, ABFT_FFT_C2C, {1009}, 5}};
  for (const C& c : cases) {
    Plan p;
    ManyArgs m;
    m.kind = c.kind, m.sign = kind_sign(c.kind, -1), m.n = c.n, m.howmany = c.batch;
    m.idist = product(c.kind == ABFT_FFT_C2R ? half_shape(c.n) : c.n);
    m.odist = product(c.kind == ABFT_FFT_R2C ? half_shape(c.n) : c.n);
    ASSERT_EQ(m.plan(p.out(), nullptr, c.prec), ABFT_STATUS_SUCCESS);
    const char* d = abft_fft_describe(p.get());
    ASSERT_NE(d, nullptr);
    const std::string s = lower(d);
    SCOPED_TRACE(s);
    EXPECT_NE(s.find(lower(kind_tag(c.kind))), std::string::npos) << "kind missing";
    EXPECT_NE(s.find(c.prec == D ? "double" : "float"), std::string::npos) << "precision missing";
    for (int64_t v : c.n) EXPECT_NE(s.find(std::to_string(v)), std::string::npos) << v << " missing";
    if (c.batch > 1) {
      EXPECT_NE(s.find(std::to_string(c.batch)), std::string::npos) << "batch missing";
    }
    EXPECT_EQ(abft_fft_describe(p.get()), d) << "the description must be stable for the plan's life";
  }
}

TEST(FftQueries, FlopsCountedFftwsWay) {
  auto nlogn = [](double n) { return n * std::log2(n); };
  struct C {
    abft_fft_kind kind;
    std::vector<int64_t> n;
    int64_t batch;
  };
  const C cases[] = {{ABFT_FFT_C2C, {1024}, 1}, {ABFT_FFT_C2C, {1000}, 7}, {ABFT_FFT_C2C, {8, 12}, 1},
                     {ABFT_FFT_C2C, {1}, 1},    {ABFT_FFT_R2C, {1024}, 1}, {ABFT_FFT_C2R, {1024}, 2}};
  for (const C& c : cases) {
    SCOPED_TRACE(std::string(kind_tag(c.kind)) + " " + shape_tag(c.n) + " batch " + std::to_string(c.batch));
    Plan p;
    ManyArgs m;
    m.kind = c.kind, m.sign = kind_sign(c.kind, -1), m.n = c.n, m.howmany = c.batch;
    m.idist = product(c.kind == ABFT_FFT_C2R ? half_shape(c.n) : c.n);
    m.odist = product(c.kind == ABFT_FFT_R2C ? half_shape(c.n) : c.n);
    ASSERT_EQ(m.plan(p.out(), nullptr, D), ABFT_STATUS_SUCCESS);
    double fl = -1;
    int64_t units = -1;
    ASSERT_EQ(abft_fft_flops(p.get(), &fl, &units), ABFT_STATUS_SUCCESS);
    const double N = double(product(c.n));
    const double c2c = 5.0 * nlogn(N) * double(c.batch);
    if (c.kind == ABFT_FFT_C2C) {
      EXPECT_NEAR(fl, c2c, 1e-9 * c2c + 1e-9);
    } else {  // FFTW counts a real transform as half a complex one
      EXPECT_GE(fl, 0.5 * c2c * (1 - 1e-9));
      EXPECT_LE(fl, c2c * (1 + 1e-9));
    }
    EXPECT_GE(units, c.batch) << "at least one checked unit per signal";
    if (c.kind == ABFT_FFT_C2C && c.n.size() == 1 && c.n[0] <= 1024) {
      EXPECT_EQ(units, c.batch) << "a small 1D transform is one unit per signal";
    }
    if (c.n.size() == 2 && c.kind == ABFT_FFT_C2C) {
      EXPECT_EQ(units, c.n[0] + c.n[1]) << "2D: one unit per line of each pass";
    }
  }
}

TEST(FftQueries, FourStepSubTransformsAreUnits) {
  // fft.h: every sub-transform of a large four-step decomposition is a
  // checked unit (issue 4: location in a large single transform is the
  // corrupt sub-transform), so a four-step plan verifies more than one unit.
  for (int64_t n : {int64_t(131072), int64_t(1048576)})
    for (abft_fft_kind k : {ABFT_FFT_C2C, ABFT_FFT_R2C}) {
      Plan p;
      ASSERT_EQ(abft_fft_plan_1d(p.out(), nullptr, D, k, n, -1, 0), ABFT_STATUS_SUCCESS);
      const std::string d = lower(abft_fft_describe(p.get()));
      if (d.find("fourstep") == std::string::npos && d.find("four-step") == std::string::npos) continue;
      double fl = 0;
      int64_t units = 0;
      ASSERT_EQ(abft_fft_flops(p.get(), &fl, &units), ABFT_STATUS_SUCCESS);
      EXPECT_GT(units, 1) << d << ": a four-step transform checked as a single unit";
    }
}

TEST(FftQueries, ArraySizes) {
  struct C {
    abft_fft_kind kind;
    int64_t n;
    int64_t in, out;
  };
  const C cases[] = {{ABFT_FFT_C2C, 100, 200, 200}, {ABFT_FFT_R2C, 100, 100, 102},
                     {ABFT_FFT_C2R, 101, 102, 101}, {ABFT_FFT_R2C, 1, 1, 2}};
  for (const C& c : cases) {
    SCOPED_TRACE(std::string(kind_tag(c.kind)) + " n=" + std::to_string(c.n));
    for (abft_precision prec : {F, D}) {
      Plan p;
      ASSERT_EQ(abft_fft_plan_1d(p.out(), nullptr, prec, c.kind, c.n, kind_sign(c.kind, -1), 0),
                ABFT_STATUS_SUCCESS);
      int64_t a = -1, b = -1;
      ASSERT_EQ(abft_fft_array_sizes(p.get(), &a, &b), ABFT_STATUS_SUCCESS);
      EXPECT_EQ(a, c.in);
      EXPECT_EQ(b, c.out);
    }
  }
  // plan_many with distances, strides and embeds: largest index + 1.
  ManyArgs m;
  m.kind = ABFT_FFT_R2C, m.n = {6, 10}, m.howmany = 3;
  m.inembed = {8, 13}, m.onembed = {7, 11};
  m.istride = 2, m.idist = 8 * 13 * 2 + 5, m.ostride = 1, m.odist = 7 * 11 + 3;
  Plan p;
  ASSERT_EQ(m.plan(p.out(), nullptr, D), ABFT_STATUS_SUCCESS);
  const Geometry g = m.geometry();
  int64_t a = -1, b = -1;
  ASSERT_EQ(abft_fft_array_sizes(p.get(), &a, &b), ABFT_STATUS_SUCCESS);
  EXPECT_EQ(a, g.extent(true).second + 1);
  EXPECT_EQ(b, 2 * (g.extent(false).second + 1));
}

}  // namespace
