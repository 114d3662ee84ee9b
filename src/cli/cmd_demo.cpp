/** \file cmd_demo.cpp
 *  \brief `abft demo` (the main job): protected GEMMs with injected faults, each checked against a
 *  clean run; then the FFT part (cmd_demo_fft.cpp) and the attention part
 *  (cmd_demo_attention.cpp).
 *
 *  For every shape and type the demo first computes C with protection off and
 *  no injector (the clean reference), then repeats the same call on a handle
 *  with policy CORRECT and a seeded injector, one fault scenario at a time:
 *  every site (output, accumulator, packed A, packed B) and every kind of model
 *  (high exponent bit flips, NaN, +-Inf, random values, two faults per call).
 *  A protected run "matches" when every element is within a small tolerance of
 *  the clean run relative to max|C|, or, for a fault too small to detect, within
 *  the checksum bound (see demo_check.hpp). A scenario without faults checks for
 *  false alarms.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "abft/abft.hpp"
#include "commands.hpp"
#include "demo_check.hpp"
#include "demo_table.hpp"

namespace abft::cli {
namespace {

struct Shape {
  abft_layout layout;
  abft_op ta, tb;
  int64_t m, n, k;
  int64_t pad;  // extra elements per leading dimension: exercises strided storage
  double alpha, beta;
};

std::vector<Shape> demo_shapes(bool quick) {
  if (quick)
    return {{ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 96, 64, 130, 0, 1.0, 0.0},
            {ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 96, 64, 130, 0, 1.0, 0.5},
            {ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_TRANS, 37, 50, 61, 5, -1.5, 1.0},
            {ABFT_COL_MAJOR, ABFT_TRANS, ABFT_TRANS, 45, 29, 100, 3, 0.75, -0.25}};
  return {{ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 512, 384, 700, 0, 1.0, 0.0},
          {ABFT_COL_MAJOR, ABFT_NO_TRANS, ABFT_NO_TRANS, 512, 384, 700, 0, 1.0, 0.5},
          {ABFT_ROW_MAJOR, ABFT_NO_TRANS, ABFT_TRANS, 257, 300, 511, 5, -1.5, 1.0},
          {ABFT_COL_MAJOR, ABFT_TRANS, ABFT_TRANS, 333, 129, 1000, 3, 0.75, -0.25}};
}

/** The scenarios for a type whose top exponent bit is `hi` (30 float, 62 double):
 *  flipping it turns a value below 2 in magnitude into one near 2^128 (2^1024). */
std::vector<Scenario> demo_scenarios(int hi) {
  auto spec = [](abft_site s, abft_fault_model m, int bit = -1) { return fault_spec(s, m, bit); };
  return label_scenarios({
      {},
      {spec(ABFT_SITE_OUTPUT, ABFT_FAULT_BITFLIP, hi)},
      {spec(ABFT_SITE_ACCUMULATOR, ABFT_FAULT_NAN)},
      {spec(ABFT_SITE_PACKED_A, ABFT_FAULT_POS_INF)},
      {spec(ABFT_SITE_PACKED_B, ABFT_FAULT_RANDOM)},
      {spec(ABFT_SITE_ACCUMULATOR, ABFT_FAULT_BITFLIP2, hi - 1)},
      {spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NEG_INF), spec(ABFT_SITE_PACKED_B, ABFT_FAULT_BITFLIP, hi)},
      {spec(ABFT_SITE_PACKED_A, ABFT_FAULT_BITFLIP, hi), spec(ABFT_SITE_ACCUMULATOR, ABFT_FAULT_RANDOM)},
      {spec(ABFT_SITE_OUTPUT, ABFT_FAULT_NAN), spec(ABFT_SITE_OUTPUT, ABFT_FAULT_BITFLIP, hi)},
  });
}

/** Storage of a logical rows x cols matrix in the given layout, padded leading dimension. */
struct Storage {
  int64_t ld;
  size_t elems;
};
Storage storage(abft_layout layout, int64_t rows, int64_t cols, int64_t pad) {
  const bool row_major = layout == ABFT_ROW_MAJOR;
  const int64_t ld = std::max<int64_t>(1, (row_major ? cols : rows) + pad);
  return {ld, static_cast<size_t>(row_major ? rows : cols) * static_cast<size_t>(ld)};
}

template <class T>
std::vector<T> random_matrix(size_t elems, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(elems);
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

/** Tolerance relative to max|C|: a few hundred ulps of the type, far above the
 *  difference between a clean run and a recomputed (repaired) element. */
template <class T> constexpr double tolerance();
template <> constexpr double tolerance<float>() { return 1e-4; }
template <> constexpr double tolerance<double>() { return 1e-12; }

std::string shape_text(const Shape& s) {
  char b[96];
  const char ta = s.ta == ABFT_NO_TRANS ? 'N' : 'T', tb = s.tb == ABFT_NO_TRANS ? 'N' : 'T';
  std::snprintf(b, sizeof b, "%lldx%lldx%lld %s %c%c b=%g", static_cast<long long>(s.m),
                static_cast<long long>(s.n), static_cast<long long>(s.k),
                s.layout == ABFT_ROW_MAJOR ? "row" : "col", ta, tb, s.beta);
  return b;
}

/** All scenarios of one shape for type T; prints one line per protected GEMM. */
template <class T>
void run_shape(const Shape& s, const DemoOptions& opt, Handle& clean, Handle& prot, Injector& inj,
               std::mt19937_64& rng, DemoTally& tally) {
  const abft_kernel kernel = sizeof(T) == 4 ? ABFT_KERNEL_SGEMM : ABFT_KERNEL_DGEMM;
  const char* kname = abft_kernel_name(kernel);
  const Storage sa = storage(s.layout, s.ta == ABFT_NO_TRANS ? s.m : s.k,
                             s.ta == ABFT_NO_TRANS ? s.k : s.m, s.pad);
  const Storage sb = storage(s.layout, s.tb == ABFT_NO_TRANS ? s.k : s.n,
                             s.tb == ABFT_NO_TRANS ? s.n : s.k, s.pad);
  const Storage sc = storage(s.layout, s.m, s.n, s.pad);
  const std::vector<T> A = random_matrix<T>(sa.elems, rng);
  const std::vector<T> B = random_matrix<T>(sb.elems, rng);
  const std::vector<T> C0 = random_matrix<T>(sc.elems, rng);
  const Layout layout = static_cast<Layout>(s.layout);
  const Op ta = static_cast<Op>(s.ta), tb = static_cast<Op>(s.tb);
  const T alpha = static_cast<T>(s.alpha), beta = static_cast<T>(s.beta);
  const std::string shape = shape_text(s);

  std::vector<T> ref = C0;
  const Status cs = gemm::run<T>(&clean, layout, ta, tb, s.m, s.n, s.k, alpha, A.data(), sa.ld,
                                 B.data(), sb.ld, beta, ref.data(), sc.ld, nullptr, Policy::Off);
  const std::vector<Scenario> scenarios = demo_scenarios(sizeof(T) == 4 ? 30 : 62);
  if (cs != ABFT_STATUS_SUCCESS) {
    report_clean_failure(kname, shape, cs, scenarios.size(), tally);
    return;
  }

  for (const Scenario& sc_ : scenarios) {
    inj.clear();
    for (const abft_fault& f : sc_.faults) inj.add(f);
    std::vector<T> C = C0;
    abft_report rep;
    std::memset(&rep, 0, sizeof rep);
    const Status st = gemm::run<T>(&prot, layout, ta, tb, s.m, s.n, s.k, alpha, A.data(), sa.ld,
                                   B.data(), sb.ld, beta, C.data(), sc.ld, &rep);
    const InjectedFaults injected = last_faults(inj);

    const bool row_major = s.layout == ABFT_ROW_MAJOR;
    const LogicalView<T> va{A.data(), sa.ld, row_major, s.ta != ABFT_NO_TRANS};
    const LogicalView<T> vb{B.data(), sb.ld, row_major, s.tb != ABFT_NO_TRANS};
    const LogicalView<T> vc0{C0.data(), sc.ld, row_major, false};
    const LogicalView<T> vc{C.data(), sc.ld, row_major, false};
    const LogicalView<T> vref{ref.data(), sc.ld, row_major, false};
    const Comparison cmp = compare_with_clean<T>(s.m, s.n, s.k, s.alpha, s.beta, va, vb, vc0, vc,
                                                 vref, tolerance<T>());
    static const char* const coords[3] = {"row", "col", "kpos"};
    report_run({kname, shape, &sc_, injected, st, rep, st >= 0 && cmp.verdict != Verdict::Mismatch,
                cmp.verdict == Verdict::Masked, cmp.max_rel},
               opt, coords, tally);
  }
}

/** The GEMM part: every shape and scenario in float and double on `prot`, with
 *  its own seeded injector; the clean runs on a handle with policy off. */
void demo_gemm(const DemoOptions& opt, Handle& prot, DemoTally& tally) {
  Handle clean;  // reference runs: policy off, no injector
  clean.set_policy(Policy::Off);
  Injector inj(opt.seed);
  prot.set_injector(&inj);

  std::printf("GEMM: kernels sgemm %s | dgemm %s\n", abft_gemm_kernel_info(ABFT_KERNEL_SGEMM),
              abft_gemm_kernel_info(ABFT_KERNEL_DGEMM));
  std::printf(
      "OK: every element within 1e-4 (float) / 1e-12 (double) * max|C_clean| of the clean run.\n"
      "MASKED: a fault below the checksum bound went undetected and moved C by less than the\n"
      "        bound (expected for small faults, mostly in float). MISMATCH: anything else.\n\n");
  print_table_header("gemm", "shape");

  std::mt19937_64 rng(opt.seed);
  for (const Shape& s : demo_shapes(opt.quick)) {
    run_shape<float>(s, opt, clean, prot, inj, rng, tally);
    run_shape<double>(s, opt, clean, prot, inj, rng, tally);
  }
  prot.set_injector(nullptr);
}

/** Parse demo options; returns -1 to continue, else the exit code. */
int parse_options(int argc, char** argv, DemoOptions& opt) {
  for (int i = 0; i < argc; ++i) {
    const char* a = argv[i];
    if (!std::strcmp(a, "--quick")) {
      opt.quick = true;
    } else if (!std::strcmp(a, "--verbose") || !std::strcmp(a, "-v")) {
      opt.verbose = true;
    } else if (!std::strcmp(a, "--seed") || !std::strncmp(a, "--seed=", 7)) {
      const char* v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : nullptr);
      if (!v || !parse_u64(v, &opt.seed)) {
        std::fprintf(stderr, "abft demo: --seed needs an unsigned integer, got '%s'\n",
                     v ? v : "(nothing)");
        return 2;
      }
    } else if (!std::strcmp(a, "--only") || !std::strncmp(a, "--only=", 7)) {
      const char* v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : nullptr);
      if (!v || (std::strcmp(v, "gemm") && std::strcmp(v, "fft") && std::strcmp(v, "attention"))) {
        std::fprintf(stderr, "abft demo: --only needs 'gemm', 'fft' or 'attention', got '%s'\n",
                     v ? v : "(nothing)");
        return 2;
      }
      opt.gemm = !std::strcmp(v, "gemm");
      opt.fft = !std::strcmp(v, "fft");
      opt.attention = !std::strcmp(v, "attention");
    } else if (!std::strcmp(a, "--help") || !std::strcmp(a, "-h")) {
      std::printf("usage: abft demo [--seed N] [--quick] [--verbose] [--only gemm|fft|attention]\n");
      return 0;
    } else {
      std::fprintf(stderr, "abft demo: unknown option '%s'\n", a);
      print_usage(stderr);
      return 2;
    }
  }
  return -1;
}

}  // namespace

int cmd_demo(int argc, char** argv) {
  DemoOptions opt;
  const int rc = parse_options(argc, argv, opt);
  if (rc >= 0) return rc;

  Handle prot;  // protected runs of every part: policy correct, statistics
  prot.set_policy(Policy::Correct);

  std::string parts;
  for (const auto& [on, name] : {std::pair{opt.gemm, "GEMM"}, std::pair{opt.fft, "FFT"},
                                 std::pair{opt.attention, "attention"}})
    if (on) parts += std::string(parts.empty() ? "" : ", ") + name;
  const size_t last = parts.rfind(", ");
  if (last != std::string::npos) parts.replace(last, 2, " and ");
  std::printf("abft %s demo: protected %s (policy correct) with injected faults vs a clean run\n",
              abft_version(), parts.c_str());
  std::printf("seed %llu, %s shapes\n\n", static_cast<unsigned long long>(opt.seed),
              opt.quick ? "quick" : "full");

  DemoTally gemm, fft, attn;
  if (opt.gemm) demo_gemm(opt, prot, gemm);
  if (opt.gemm && opt.fft) std::printf("\n");
  if (opt.fft) demo_fft(opt, prot, fft);
  if ((opt.gemm || opt.fft) && opt.attention) std::printf("\n");
  if (opt.attention) demo_attention(opt, prot, attn);

  std::printf("\nerror statistics of the protected handle:\n%s\n", prot.stats_text().c_str());
  const int masked = gemm.masked + fft.masked + attn.masked;
  if (masked)
    std::printf("(%d of the matches are MASKED: an undetected fault below the checksum bound)\n",
                masked);
  if (opt.gemm) std::printf("demo: %d/%d GEMMs match the clean run\n", gemm.matches, gemm.runs);
  if (opt.fft) std::printf("demo: %d/%d FFTs match the clean run\n", fft.matches, fft.runs);
  if (opt.attention)
    std::printf("demo: %d/%d attention calls match the clean run\n", attn.matches, attn.runs);
  return gemm.matches == gemm.runs && fft.matches == fft.runs && attn.matches == attn.runs ? 0 : 1;
}

}  // namespace abft::cli
