/* FFTW3 conformance program.
 *
 * Written against the standard <fftw3.h> and linked against the system libfftw3,
 * libfftw3f and their threads libraries, nothing else of the project: it is built once
 * and run unmodified against whichever FFTW the dynamic loader hands it (the system's,
 * or abft's shim through LD_LIBRARY_PATH=<build>/lib).
 *
 * For double and float it plans and executes transforms through every planner
 * interface (basic, rank-n, advanced "many", guru, guru64, split-complex guru), c2c in
 * both directions, r2c and c2r, 1D to 4D, batched, strided, embedded, in-place (r2c with
 * FFTW's padded layout) and out-of-place, with new-array execution, threads and the
 * ESTIMATE / MEASURE / PATIENT / UNALIGNED / PRESERVE_INPUT / DESTROY_INPUT flags, and
 * checks every result against a naive DFT computed in long double:
 *
 *     ||y - y_ref||_2  <=  C * eps * max(1, log2 N) * sqrt(N) * ||x||_2
 *
 * (N the size of one transform; x the logical input, for c2r its Hermitian extension).
 * It also checks the FFTW semantics around the transforms: an out-of-place c2c/r2c (and
 * a c2r planned with PRESERVE_INPUT) leaves its input bit-for-bit unchanged; ESTIMATE
 * planning touches neither array; new-array execution leaves the plan's own arrays alone;
 * one plan executed by several threads at once (new-array execution, as FFTW allows);
 * wisdom export/import (string and file) and WISDOM_ONLY planning; flops/cost/estimate
 * cost; sprint_plan/fprint_plan; alignment_of; the allocators; r2r (which abft's shim
 * does not provide: it must return a NULL plan there). Multi-dimensional c2r with
 * PRESERVE_INPUT is not supported by FFTW itself (NULL plan): from the system library
 * that is reported UNSUPPORTED, not FAIL; from abft's shim it must work.
 *
 * Output: the library versions and the files they were loaded from, one line per case
 * (PASS / FAIL / UNSUPPORTED, error ratio = error / (eps log2N sqrtN ||x||)), and a summary.
 * Exit status 0 when nothing failed, 1 otherwise, 2 on bad usage.
 *
 * Options:
 *   --precision d|f|both   run only the double or the float half (default both)
 *   --expect abft|system   fail unless the library is abft's shim / the system FFTW
 *   --tol C                the constant C of the bound (default 10)
 *   --wisdom-file PATH     scratch file of the wisdom-through-a-file checks
 *   --filter TEXT          run only the transform cases whose name contains TEXT (no other checks)
 */
#define _GNU_SOURCE
#include <fftw3.h>

#include <dlfcn.h>
#include <pthread.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef long double ld;
typedef struct { ld re, im; } lcx;

enum { C2C_FWD, C2C_BWD, R2C, C2R };
enum { API_BASIC, API_RANKN, API_MANY, API_GURU, API_GURU64, API_SPLIT };
static const char *const kind_name[] = {"c2c-fwd", "c2c-bwd", "r2c", "c2r"};
static const char *const api_name[] = {"basic", "plan_dft", "many", "guru", "guru64", "guru-split"};

#define ABFT_VERSION_PREFIX "fftw-3.3.10-abft"
#define MAXR 4
#define MAXH 3

/* ---------------------------------------------------------------- bookkeeping */
static int g_pass, g_fail, g_unsup;
static double g_tol = 10.0;
static double g_worst;
static char g_worst_name[256];
static const char *g_wisdom_file = "fftw_conformance.wisdom";
static const char *g_filter;  /* --filter: only the transform cases whose name contains it */

static void verdict(const char *prec, int ok, double ratio, const char *name, const char *why)
{
  if (ok) g_pass++; else g_fail++;
  if (ratio >= 0) {
    printf("%s %s %-72s ratio=%.3g%s%s\n", ok ? "PASS" : "FAIL", prec, name, ratio,
           why && *why ? "  " : "", why ? why : "");
    if (!(ratio <= g_worst)) {  /* NaN counts as worst */
      g_worst = ratio;
      snprintf(g_worst_name, sizeof g_worst_name, "%s %s", prec, name);
    }
  } else {
    printf("%s %s %-72s%s%s\n", ok ? "PASS" : "FAIL", prec, name, why && *why ? "  " : "",
           why ? why : "");
  }
  fflush(stdout);
}

static void unsupported(const char *prec, const char *name, const char *why)
{
  g_unsup++;
  printf("UNSUPPORTED %s %s  %s\n", prec, name, why);
  fflush(stdout);
}

/* ---------------------------------------------------------------- random numbers */
static uint64_t g_rng;
static void rng_seed(uint64_t s) { g_rng = s * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull; }
static ld rng_uniform(void) /* [-1, 1) */
{
  g_rng ^= g_rng >> 12; g_rng ^= g_rng << 25; g_rng ^= g_rng >> 27;
  uint64_t r = g_rng * 0x2545F4914F6CDD1Dull;
  return (ld)(r >> 11) * (2.0L / 9007199254740992.0L) - 1.0L;
}

/* ---------------------------------------------------------------- test cases */
typedef struct {
  int rank, n[MAXR];           /* logical dims of one side */
  ptrdiff_t s[MAXR];           /* their strides, in units of that array's element */
  int hrank, hn[MAXH];         /* batch (howmany) dims */
  ptrdiff_t hs[MAXH];
} side_t;

typedef struct {
  char name[200];
  int kind, api, rank, n[MAXR], hrank, hn[MAXH];
  /* strides (guru sense): complex-element units for an interleaved complex array, real
   * units for a real array and for split arrays */
  ptrdiff_t is[MAXR], os[MAXR], his[MAXH], hos[MAXH];
  /* the advanced interface's own parameters (API_MANY) */
  int howmany, has_inembed, has_onembed, inembed[MAXR], onembed[MAXR];
  int istride, ostride, idist, odist;
  int inplace, newarray, nthreads, repeat, misalign, misalign_new;
  unsigned flags;
} case_t;

static int half_last(int n) { return n / 2 + 1; }

static void in_dims(const case_t *c, int *d)
{
  memcpy(d, c->n, sizeof c->n);
  if (c->kind == C2R) d[c->rank - 1] = half_last(c->n[c->rank - 1]);
}
static void out_dims(const case_t *c, int *d)
{
  memcpy(d, c->n, sizeof c->n);
  if (c->kind == R2C) d[c->rank - 1] = half_last(c->n[c->rank - 1]);
}

static void make_side(const case_t *c, int input, side_t *sd)
{
  memset(sd, 0, sizeof *sd);
  sd->rank = c->rank;
  if (input) in_dims(c, sd->n); else out_dims(c, sd->n);
  memcpy(sd->s, input ? c->is : c->os, sizeof sd->s);
  sd->hrank = c->hrank;
  memcpy(sd->hn, c->hn, sizeof sd->hn);
  memcpy(sd->hs, input ? c->his : c->hos, sizeof sd->hs);
}

static size_t prod(int r, const int *n) { size_t p = 1; for (int i = 0; i < r; i++) p *= (size_t)n[i]; return p; }
static size_t side_count(const side_t *sd) { return prod(sd->rank, sd->n) * prod(sd->hrank, sd->hn); }

/* Offsets of every logical element, batch-major then row-major. */
static void side_offsets(const side_t *sd, ptrdiff_t *off)
{
  size_t nb = prod(sd->hrank, sd->hn), ne = prod(sd->rank, sd->n), k = 0;
  for (size_t b = 0; b < nb; b++) {
    ptrdiff_t ob = 0;
    size_t rem = b;
    for (int d = sd->hrank - 1; d >= 0; d--) { ob += (ptrdiff_t)(rem % (size_t)sd->hn[d]) * sd->hs[d]; rem /= (size_t)sd->hn[d]; }
    for (size_t e = 0; e < ne; e++) {
      ptrdiff_t oe = 0;
      rem = e;
      for (int d = sd->rank - 1; d >= 0; d--) { oe += (ptrdiff_t)(rem % (size_t)sd->n[d]) * sd->s[d]; rem /= (size_t)sd->n[d]; }
      off[k++] = ob + oe;
    }
  }
}

static ptrdiff_t max_offset(const ptrdiff_t *off, size_t cnt)
{
  ptrdiff_t m = 0;
  for (size_t i = 0; i < cnt; i++) if (off[i] > m) m = off[i];
  return m;
}

static void flags_str(unsigned f, char *buf, size_t len)
{
  buf[0] = 0;
  if (f & FFTW_ESTIMATE) strncat(buf, "ESTIMATE", len - strlen(buf) - 1);
  else if (f & FFTW_EXHAUSTIVE) strncat(buf, "EXHAUSTIVE", len - strlen(buf) - 1);
  else if (f & FFTW_PATIENT) strncat(buf, "PATIENT", len - strlen(buf) - 1);
  else strncat(buf, "MEASURE", len - strlen(buf) - 1);
  if (f & FFTW_PRESERVE_INPUT) strncat(buf, "|PRESERVE_INPUT", len - strlen(buf) - 1);
  if (f & FFTW_DESTROY_INPUT) strncat(buf, "|DESTROY_INPUT", len - strlen(buf) - 1);
  if (f & FFTW_UNALIGNED) strncat(buf, "|UNALIGNED", len - strlen(buf) - 1);
}

static void case_name(case_t *c)
{
  char dims[64] = "", fl[64], *p = dims;
  for (int d = 0; d < c->rank; d++) p += sprintf(p, d ? "x%d" : "%d", c->n[d]);
  if (c->hrank) {
    p += sprintf(p, " batch=");
    for (int d = 0; d < c->hrank; d++) p += sprintf(p, d ? "x%d" : "%d", c->hn[d]);
  }
  flags_str(c->flags, fl, sizeof fl);
  snprintf(c->name, sizeof c->name, "%s %s %dD n=%s %s%s%s%s%s %s", kind_name[c->kind],
           api_name[c->api], c->rank, dims, c->inplace ? "in-place" : "out-of-place",
           c->newarray ? " new-array" : "", c->nthreads > 1 ? " threads=2" : "",
           c->misalign ? " misaligned" : "", c->repeat > 1 ? " x2" : "", fl);
}

static void row_major(int rank, const int *embed, ptrdiff_t stride, ptrdiff_t *s)
{
  s[rank - 1] = stride;
  for (int d = rank - 2; d >= 0; d--) s[d] = s[d + 1] * embed[d + 1];
}

/* Basic interface (and plan_dft with API_RANKN): contiguous row-major arrays, FFTW's
 * padded real array for in-place r2c/c2r. */
static case_t basic(int kind, int api, int rank, const int *n, int inplace, unsigned flags)
{
  case_t c;
  memset(&c, 0, sizeof c);
  c.kind = kind; c.api = api; c.rank = rank; c.inplace = inplace; c.flags = flags;
  memcpy(c.n, n, sizeof(int) * (size_t)rank);
  int ei[MAXR], eo[MAXR];
  in_dims(&c, ei); out_dims(&c, eo);
  if (inplace && kind == R2C) ei[rank - 1] = 2 * half_last(n[rank - 1]);
  if (inplace && kind == C2R) eo[rank - 1] = 2 * half_last(n[rank - 1]);
  row_major(rank, ei, 1, c.is);
  row_major(rank, eo, 1, c.os);
  c.repeat = 1;
  case_name(&c);
  return c;
}

/* Advanced interface: plan_many_dft{,_r2c,_c2r}. */
static case_t many(int kind, int rank, const int *n, int howmany, const int *inembed, int istride,
                   int idist, const int *onembed, int ostride, int odist, int inplace, unsigned flags)
{
  case_t c;
  memset(&c, 0, sizeof c);
  c.kind = kind; c.api = API_MANY; c.rank = rank; c.inplace = inplace; c.flags = flags;
  memcpy(c.n, n, sizeof(int) * (size_t)rank);
  int ei[MAXR], eo[MAXR];
  in_dims(&c, ei); out_dims(&c, eo);
  c.howmany = howmany;
  if (inembed) { c.has_inembed = 1; memcpy(c.inembed, inembed, sizeof(int) * (size_t)rank); memcpy(ei, inembed, sizeof(int) * (size_t)rank); }
  if (onembed) { c.has_onembed = 1; memcpy(c.onembed, onembed, sizeof(int) * (size_t)rank); memcpy(eo, onembed, sizeof(int) * (size_t)rank); }
  c.istride = istride; c.ostride = ostride; c.idist = idist; c.odist = odist;
  row_major(rank, ei, istride, c.is);
  row_major(rank, eo, ostride, c.os);
  c.hrank = 1; c.hn[0] = howmany; c.his[0] = idist; c.hos[0] = odist;
  c.repeat = 1;
  case_name(&c);
  return c;
}

/* Guru interfaces: arbitrary strides. */
static case_t guru(int kind, int api, int rank, const int *n, const ptrdiff_t *is, const ptrdiff_t *os,
                   int hrank, const int *hn, const ptrdiff_t *his, const ptrdiff_t *hos, int inplace,
                   unsigned flags)
{
  case_t c;
  memset(&c, 0, sizeof c);
  c.kind = kind; c.api = api; c.rank = rank; c.inplace = inplace; c.flags = flags;
  memcpy(c.n, n, sizeof(int) * (size_t)rank);
  memcpy(c.is, is, sizeof(ptrdiff_t) * (size_t)rank);
  memcpy(c.os, os, sizeof(ptrdiff_t) * (size_t)rank);
  c.hrank = hrank;
  if (hrank) {
    memcpy(c.hn, hn, sizeof(int) * (size_t)hrank);
    memcpy(c.his, his, sizeof(ptrdiff_t) * (size_t)hrank);
    memcpy(c.hos, hos, sizeof(ptrdiff_t) * (size_t)hrank);
  }
  c.repeat = 1;
  case_name(&c);
  return c;
}

/* ---------------------------------------------------------------- long-double reference */
static const ld PI_L = 3.141592653589793238462643383279502884L;

/* Naive DFT along every dimension of `howmany` contiguous row-major arrays (in place). */
static void dft_nd(lcx *a, int rank, const int *n, size_t howmany, int sign)
{
  size_t N = prod(rank, n);
  for (int d = 0; d < rank; d++) {
    size_t len = (size_t)n[d], stride = prod(rank - d - 1, n + d + 1), lines = N / len;
    lcx *w = malloc(sizeof(lcx) * len), *t = malloc(sizeof(lcx) * len), *y = malloc(sizeof(lcx) * len);
    for (size_t m = 0; m < len; m++) {
      ld ang = 2.0L * PI_L * (ld)m / (ld)len;
      w[m].re = cosl(ang);
      w[m].im = sign * sinl(ang);
    }
    for (size_t b = 0; b < howmany; b++) {
      lcx *base = a + b * N;
      for (size_t l = 0; l < lines; l++) {
        size_t outer = l / stride, inner = l % stride;
        lcx *p = base + outer * stride * len + inner;
        for (size_t j = 0; j < len; j++) t[j] = p[j * stride];
        for (size_t k = 0; k < len; k++) {
          ld sr = 0, si = 0;
          size_t idx = 0;
          for (size_t j = 0; j < len; j++) {
            sr += t[j].re * w[idx].re - t[j].im * w[idx].im;
            si += t[j].re * w[idx].im + t[j].im * w[idx].re;
            idx += k;
            if (idx >= len) idx -= len;
          }
          y[k].re = sr; y[k].im = si;
        }
        for (size_t k = 0; k < len; k++) p[k * stride] = y[k];
      }
    }
    free(w); free(t); free(y);
  }
}

/* Flat index of the element of dims n at multi-index k (row-major). */
static size_t flat(int rank, const int *n, const int *k)
{
  size_t f = 0;
  for (int d = 0; d < rank; d++) f = f * (size_t)n[d] + (size_t)k[d];
  return f;
}
static void unflat(int rank, const int *n, size_t f, int *k)
{
  for (int d = rank - 1; d >= 0; d--) { k[d] = (int)(f % (size_t)n[d]); f /= (size_t)n[d]; }
}

/* Make a c2r input exactly Hermitian where the half array holds both X[k] and X[-k]
 * (the planes k_last = 0 and, for even n_last, n_last/2): X[k] <- (X[k] + conj X[-k])/2.
 * The result is exactly conjugate-symmetric also after rounding to float/double. */
static void hermitianize(const case_t *c, lcx *x)
{
  int hd[MAXR];
  in_dims(c, hd);
  size_t Nh = prod(c->rank, hd), nb = prod(c->hrank, c->hn);
  int nl = c->n[c->rank - 1];
  lcx *orig = malloc(sizeof(lcx) * Nh);
  for (size_t b = 0; b < nb; b++) {
    lcx *xb = x + b * Nh;
    memcpy(orig, xb, sizeof(lcx) * Nh);
    for (size_t f = 0; f < Nh; f++) {
      int k[MAXR] = {0}, mk[MAXR] = {0};
      unflat(c->rank, hd, f, k);
      int kl = k[c->rank - 1];
      if (!(kl == 0 || (nl % 2 == 0 && kl == nl / 2))) continue;
      for (int d = 0; d < c->rank - 1; d++) mk[d] = (c->n[d] - k[d]) % c->n[d];
      mk[c->rank - 1] = kl;
      const lcx *a = &orig[f], *p = &orig[flat(c->rank, hd, mk)];
      xb[f].re = (a->re + p->re) / 2;
      xb[f].im = (a->im - p->im) / 2;
    }
  }
  free(orig);
}

/* Reference output (logical, batch-major) of the case for the logical input x; returns
 * ||x||_2 (for c2r: of the Hermitian extension, the full spectrum the transform sees). */
static ld reference(const case_t *c, const lcx *x, lcx *y)
{
  size_t N = prod(c->rank, c->n), nb = prod(c->hrank, c->hn);
  int hd[MAXR];
  memcpy(hd, c->n, sizeof hd);
  hd[c->rank - 1] = half_last(c->n[c->rank - 1]);
  size_t Nh = prod(c->rank, hd);
  lcx *full = malloc(sizeof(lcx) * N * nb);
  ld xn = 0;
  if (c->kind == C2C_FWD || c->kind == C2C_BWD || c->kind == R2C) {
    memcpy(full, x, sizeof(lcx) * N * nb);
  } else {
    int nl = c->n[c->rank - 1], h = hd[c->rank - 1];
    for (size_t b = 0; b < nb; b++)
      for (size_t f = 0; f < N; f++) {
        int k[MAXR] = {0};
        unflat(c->rank, c->n, f, k);
        if (k[c->rank - 1] < h) {
          full[b * N + f] = x[b * Nh + flat(c->rank, hd, k)];
        } else {
          int mk[MAXR];
          for (int d = 0; d < c->rank; d++) mk[d] = (c->n[d] - k[d]) % c->n[d];
          (void)nl;
          lcx v = x[b * Nh + flat(c->rank, hd, mk)];
          full[b * N + f].re = v.re;
          full[b * N + f].im = -v.im;
        }
      }
  }
  for (size_t i = 0; i < N * nb; i++) xn += full[i].re * full[i].re + full[i].im * full[i].im;
  dft_nd(full, c->rank, c->n, nb, c->kind == C2C_FWD || c->kind == R2C ? -1 : +1);
  if (c->kind == R2C) {
    for (size_t b = 0; b < nb; b++)
      for (size_t f = 0; f < Nh; f++) {
        int k[MAXR];
        unflat(c->rank, hd, f, k);
        y[b * Nh + f] = full[b * N + flat(c->rank, c->n, k)];
      }
  } else {
    memcpy(y, full, sizeof(lcx) * N * nb);
    if (c->kind == C2R)
      for (size_t i = 0; i < N * nb; i++) y[i].im = 0;
  }
  free(full);
  return sqrtl(xn);
}

/* ---------------------------------------------------------------- library identity */
static int print_loaded_files(void)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4096], seen[16][1024];
  int nseen = 0;
  if (!f) return 0;
  while (fgets(line, sizeof line, f)) {
    char *path = strchr(line, '/');
    if (!path || !strstr(path, "/libfftw")) continue;
    path[strcspn(path, "\n")] = 0;
    int dup = 0;
    for (int i = 0; i < nseen; i++) if (!strcmp(seen[i], path)) dup = 1;
    if (dup || nseen == 16) continue;
    snprintf(seen[nseen++], sizeof seen[0], "%s", path);
    printf("loaded: %s\n", path);
  }
  fclose(f);
  return nseen;
}

/* The library's own copy of a data symbol (not the program's copy relocation of it). */
static const char *library_string(const char *soname, const char *sym)
{
  void *h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
  const char *s = h ? (const char *)dlsym(h, sym) : NULL;
  return s ? s : "(unknown)";
}

/* ---------------------------------------------------------------- the two precisions */
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

#define R double
#define X(name) CAT(fftw_, name)
#define SFX(name) CAT(name, _d)
#define PREC "d"
#define PREC_EPS DBL_EPSILON
#define LIBNAME "libfftw3.so.3"
#define LIBSYM "fftw_version"
#include "fftw_conformance_prec.h"
#undef R
#undef X
#undef SFX
#undef PREC
#undef PREC_EPS
#undef LIBNAME
#undef LIBSYM

#define R float
#define X(name) CAT(fftwf_, name)
#define SFX(name) CAT(name, _f)
#define PREC "f"
#define PREC_EPS FLT_EPSILON
#define LIBNAME "libfftw3f.so.3"
#define LIBSYM "fftwf_version"
#include "fftw_conformance_prec.h"

/* ---------------------------------------------------------------- main */
static void usage(void)
{
  fprintf(stderr, "usage: fftw_conformance [--precision d|f|both] [--expect abft|system] [--tol C] [--wisdom-file PATH] [--filter TEXT]\n");
  exit(2);
}

int main(int argc, char **argv)
{
  const char *precision = "both", *expect = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--precision") && i + 1 < argc) precision = argv[++i];
    else if (!strcmp(argv[i], "--expect") && i + 1 < argc) expect = argv[++i];
    else if (!strcmp(argv[i], "--tol") && i + 1 < argc) g_tol = atof(argv[++i]);
    else if (!strcmp(argv[i], "--wisdom-file") && i + 1 < argc) g_wisdom_file = argv[++i];
    else if (!strcmp(argv[i], "--filter") && i + 1 < argc) g_filter = argv[++i];
    else usage();
  }
  int run_d = strcmp(precision, "f") != 0, run_f = strcmp(precision, "d") != 0;
  if (strcmp(precision, "d") && strcmp(precision, "f") && strcmp(precision, "both")) usage();
  if (expect && strcmp(expect, "abft") && strcmp(expect, "system")) usage();

  const char *vd = library_string("libfftw3.so.3", "fftw_version");
  const char *vf = library_string("libfftw3f.so.3", "fftwf_version");
  int ours_d = !strncmp(vd, ABFT_VERSION_PREFIX, strlen(ABFT_VERSION_PREFIX));
  int ours_f = !strncmp(vf, ABFT_VERSION_PREFIX, strlen(ABFT_VERSION_PREFIX));
  printf("fftw_version (double): %s  [%s]\n", vd, ours_d ? "abft" : "system");
  printf("fftwf_version (float): %s  [%s]\n", vf, ours_f ? "abft" : "system");
  print_loaded_files();
  const char *env[] = {"ABFT_POLICY", "ABFT_INJECT", "ABFT_INJECT_RATE", "ABFT_INJECT_SEED",
                       "ABFT_INJECT_SITE", "ABFT_REPORT"};
  for (size_t i = 0; i < sizeof env / sizeof env[0]; i++)
    if (getenv(env[i])) printf("env: %s=%s\n", env[i], getenv(env[i]));
  printf("bound: ||y - y_ref||_2 <= %g * eps * max(1,log2 N) * sqrt(N) * ||x||_2\n", g_tol);

  if (expect) {
    int want = !strcmp(expect, "abft");
    int ok = (!run_d || ours_d == want) && (!run_f || ours_f == want);
    verdict("-", ok, -1, "library identity", ok ? expect : "the library loaded is not the one expected");
  }
  if (run_d) run_all_d(ours_d);
  if (run_f) run_all_f(ours_f);

  printf("summary: %d passed, %d failed, %d unsupported (system FFTW limits); worst ratio %.3g (%s)\n",
         g_pass, g_fail, g_unsup, g_worst, g_worst_name);
  printf("%s\n", g_fail ? "FAILED" : "ALL PASSED");
  return g_fail ? 1 : 0;
}
