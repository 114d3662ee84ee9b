/* One precision of fftw_conformance.c, included twice: with R double / X(name) fftw_name,
 * and with R float / X(name) fftwf_name. SFX(name) makes this file's function names
 * distinct per precision. Nothing here is an API of its own. */

typedef struct {
  void *raw[4];
  R *blk[4];
  size_t len[4];               /* reals */
  int nblk;
  R *in_re, *in_im, *out_re, *out_im;
  int in_mul, out_mul;         /* element offset -> real index */
} SFX(set_t);

static int SFX(g_ours);

static R *SFX(alloc_block)(SFX(set_t) *s, size_t reals, int misalign)
{
  void *raw = X(malloc)(sizeof(R) * (reals + 2));
  R *p = (R *)raw + (misalign ? 1 : 0);
  s->raw[s->nblk] = raw;
  s->blk[s->nblk] = p;
  s->len[s->nblk] = reals;
  s->nblk++;
  return p;
}

static void SFX(set_alloc)(SFX(set_t) *s, const case_t *c, size_t in_elems, size_t out_elems, int misalign)
{
  int split = c->api == API_SPLIT;
  int in_cplx = c->kind != R2C, out_cplx = c->kind != C2R;
  size_t in_reals = in_cplx && !split ? 2 * in_elems : in_elems;
  size_t out_reals = out_cplx && !split ? 2 * out_elems : out_elems;
  memset(s, 0, sizeof *s);
  s->in_mul = in_cplx && !split ? 2 : 1;
  s->out_mul = out_cplx && !split ? 2 : 1;
  if (c->inplace) {
    size_t L = in_reals > out_reals ? in_reals : out_reals;
    if (split) {  /* split c2c in place: ro = ri, io = ii */
      s->in_re = s->out_re = SFX(alloc_block)(s, L, misalign);
      s->in_im = s->out_im = SFX(alloc_block)(s, L, misalign);
    } else {
      s->in_re = s->out_re = SFX(alloc_block)(s, L, misalign);
      s->in_im = in_cplx ? s->in_re + 1 : NULL;
      s->out_im = out_cplx ? s->out_re + 1 : NULL;
    }
    return;
  }
  s->in_re = SFX(alloc_block)(s, in_reals, misalign);
  if (in_cplx) s->in_im = split ? SFX(alloc_block)(s, in_reals, misalign) : s->in_re + 1;
  s->out_re = SFX(alloc_block)(s, out_reals, misalign);
  if (out_cplx) s->out_im = split ? SFX(alloc_block)(s, out_reals, misalign) : s->out_re + 1;
}

static int SFX(n_in_blocks)(const case_t *c, const SFX(set_t) *s)
{
  if (c->inplace) return s->nblk;
  return c->api == API_SPLIT && c->kind != R2C ? 2 : 1;
}

static void SFX(set_free)(SFX(set_t) *s)
{
  for (int i = 0; i < s->nblk; i++) X(free)(s->raw[i]);
}

static void SFX(set_junk)(SFX(set_t) *s)
{
  for (int i = 0; i < s->nblk; i++)
    for (size_t k = 0; k < s->len[i]; k++) s->blk[i][k] = (R)(1000 * rng_uniform());
}

/* snapshot of blocks [from, to) */
static R **SFX(snapshot)(const SFX(set_t) *s, int from, int to)
{
  R **snap = calloc(4, sizeof(R *));
  for (int i = from; i < to; i++) {
    snap[i] = malloc(sizeof(R) * s->len[i]);
    memcpy(snap[i], s->blk[i], sizeof(R) * s->len[i]);
  }
  return snap;
}
static int SFX(unchanged)(const SFX(set_t) *s, R **snap, int from, int to)
{
  int same = 1;
  for (int i = from; i < to; i++) {
    if (memcmp(snap[i], s->blk[i], sizeof(R) * s->len[i])) same = 0;
    free(snap[i]);
  }
  free(snap);
  return same;
}

/* Logical input: random values representable in R, Hermitian where c2r needs it. */
static void SFX(make_input)(const case_t *c, lcx *x, size_t cnt)
{
  int cplx = c->kind != R2C;
  for (size_t i = 0; i < cnt; i++) {
    x[i].re = (R)rng_uniform();
    x[i].im = cplx ? (R)rng_uniform() : 0;
  }
  if (c->kind == C2R) {
    hermitianize(c, x);
    for (size_t i = 0; i < cnt; i++) { x[i].re = (R)x[i].re; x[i].im = (R)x[i].im; }
  }
}

static void SFX(scatter_in)(const SFX(set_t) *s, const ptrdiff_t *off, size_t cnt, const lcx *x)
{
  for (size_t i = 0; i < cnt; i++) {
    s->in_re[s->in_mul * off[i]] = (R)x[i].re;
    if (s->in_im) s->in_im[s->in_mul * off[i]] = (R)x[i].im;
  }
}

static void SFX(gather_out)(const SFX(set_t) *s, const ptrdiff_t *off, size_t cnt, lcx *y)
{
  for (size_t i = 0; i < cnt; i++) {
    y[i].re = s->out_re[s->out_mul * off[i]];
    y[i].im = s->out_im ? s->out_im[s->out_mul * off[i]] : 0;
  }
}

static X(plan) SFX(make_plan)(const case_t *c, const SFX(set_t) *s)
{
  int sign = c->kind == C2C_BWD ? FFTW_BACKWARD : FFTW_FORWARD;
  unsigned fl = c->flags;
  X(complex) *ci = (X(complex) *)s->in_re, *co = (X(complex) *)s->out_re;
  R *ri = s->in_re, *ro = s->out_re;
  const int *n = c->n;
  switch (c->api) {
  case API_BASIC:
    if (c->kind == R2C) {
      if (c->rank == 1) return X(plan_dft_r2c_1d)(n[0], ri, co, fl);
      if (c->rank == 2) return X(plan_dft_r2c_2d)(n[0], n[1], ri, co, fl);
      return X(plan_dft_r2c_3d)(n[0], n[1], n[2], ri, co, fl);
    }
    if (c->kind == C2R) {
      if (c->rank == 1) return X(plan_dft_c2r_1d)(n[0], ci, ro, fl);
      if (c->rank == 2) return X(plan_dft_c2r_2d)(n[0], n[1], ci, ro, fl);
      return X(plan_dft_c2r_3d)(n[0], n[1], n[2], ci, ro, fl);
    }
    if (c->rank == 1) return X(plan_dft_1d)(n[0], ci, co, sign, fl);
    if (c->rank == 2) return X(plan_dft_2d)(n[0], n[1], ci, co, sign, fl);
    return X(plan_dft_3d)(n[0], n[1], n[2], ci, co, sign, fl);
  case API_RANKN:
    if (c->kind == R2C) return X(plan_dft_r2c)(c->rank, n, ri, co, fl);
    if (c->kind == C2R) return X(plan_dft_c2r)(c->rank, n, ci, ro, fl);
    return X(plan_dft)(c->rank, n, ci, co, sign, fl);
  case API_MANY: {
    const int *ie = c->has_inembed ? c->inembed : NULL, *oe = c->has_onembed ? c->onembed : NULL;
    if (c->kind == R2C)
      return X(plan_many_dft_r2c)(c->rank, n, c->howmany, ri, ie, c->istride, c->idist, co, oe,
                                  c->ostride, c->odist, fl);
    if (c->kind == C2R)
      return X(plan_many_dft_c2r)(c->rank, n, c->howmany, ci, ie, c->istride, c->idist, ro, oe,
                                  c->ostride, c->odist, fl);
    return X(plan_many_dft)(c->rank, n, c->howmany, ci, ie, c->istride, c->idist, co, oe,
                            c->ostride, c->odist, sign, fl);
  }
  case API_GURU:
  case API_SPLIT: {
    X(iodim) d[MAXR], h[MAXH];
    for (int i = 0; i < c->rank; i++) { d[i].n = n[i]; d[i].is = (int)c->is[i]; d[i].os = (int)c->os[i]; }
    for (int i = 0; i < c->hrank; i++) { h[i].n = c->hn[i]; h[i].is = (int)c->his[i]; h[i].os = (int)c->hos[i]; }
    if (c->api == API_GURU) {
      if (c->kind == R2C) return X(plan_guru_dft_r2c)(c->rank, d, c->hrank, h, ri, co, fl);
      if (c->kind == C2R) return X(plan_guru_dft_c2r)(c->rank, d, c->hrank, h, ci, ro, fl);
      return X(plan_guru_dft)(c->rank, d, c->hrank, h, ci, co, sign, fl);
    }
    if (c->kind == R2C) return X(plan_guru_split_dft_r2c)(c->rank, d, c->hrank, h, ri, s->out_re, s->out_im, fl);
    if (c->kind == C2R) return X(plan_guru_split_dft_c2r)(c->rank, d, c->hrank, h, s->in_re, s->in_im, ro, fl);
    if (c->kind == C2C_FWD)
      return X(plan_guru_split_dft)(c->rank, d, c->hrank, h, s->in_re, s->in_im, s->out_re, s->out_im, fl);
    /* backward = forward with real and imaginary parts swapped on both sides */
    return X(plan_guru_split_dft)(c->rank, d, c->hrank, h, s->in_im, s->in_re, s->out_im, s->out_re, fl);
  }
  case API_GURU64: {
    X(iodim64) d[MAXR], h[MAXH];
    for (int i = 0; i < c->rank; i++) { d[i].n = n[i]; d[i].is = c->is[i]; d[i].os = c->os[i]; }
    for (int i = 0; i < c->hrank; i++) { h[i].n = c->hn[i]; h[i].is = c->his[i]; h[i].os = c->hos[i]; }
    if (c->kind == R2C) return X(plan_guru64_dft_r2c)(c->rank, d, c->hrank, h, ri, co, fl);
    if (c->kind == C2R) return X(plan_guru64_dft_c2r)(c->rank, d, c->hrank, h, ci, ro, fl);
    return X(plan_guru64_dft)(c->rank, d, c->hrank, h, ci, co, sign, fl);
  }
  }
  return NULL;
}

static void SFX(execute_new)(const case_t *c, X(plan) p, const SFX(set_t) *s)
{
  if (c->api == API_SPLIT) {
    if (c->kind == R2C) X(execute_split_dft_r2c)(p, s->in_re, s->out_re, s->out_im);
    else if (c->kind == C2R) X(execute_split_dft_c2r)(p, s->in_re, s->in_im, s->out_re);
    else if (c->kind == C2C_FWD) X(execute_split_dft)(p, s->in_re, s->in_im, s->out_re, s->out_im);
    else X(execute_split_dft)(p, s->in_im, s->in_re, s->out_im, s->out_re);
    return;
  }
  if (c->kind == R2C) X(execute_dft_r2c)(p, s->in_re, (X(complex) *)s->out_re);
  else if (c->kind == C2R) X(execute_dft_c2r)(p, (X(complex) *)s->in_re, s->out_re);
  else X(execute_dft)(p, (X(complex) *)s->in_re, (X(complex) *)s->out_re);
}

static void SFX(run_case)(const case_t *c, int seed)
{
  if (g_filter && !strstr(c->name, g_filter)) return;
  side_t si, so;
  make_side(c, 1, &si);
  make_side(c, 0, &so);
  size_t ni = side_count(&si), no = side_count(&so);
  ptrdiff_t *ioff = malloc(sizeof(ptrdiff_t) * ni), *ooff = malloc(sizeof(ptrdiff_t) * no);
  side_offsets(&si, ioff);
  side_offsets(&so, ooff);
  size_t in_elems = (size_t)max_offset(ioff, ni) + 1, out_elems = (size_t)max_offset(ooff, no) + 1;
  lcx *x = malloc(sizeof(lcx) * ni), *y = malloc(sizeof(lcx) * no), *yref = malloc(sizeof(lcx) * no);
  SFX(set_t) A, B;
  char why[512] = "";
  int ok = 1;
  double worst = 0;
  int preserve = !c->inplace && (c->kind != C2R ? !(c->flags & FFTW_DESTROY_INPUT)
                                                : !!(c->flags & FFTW_PRESERVE_INPUT));
  int untouched_planning = (c->flags & FFTW_ESTIMATE) || (c->flags & FFTW_WISDOM_ONLY) || SFX(g_ours);

  rng_seed((uint64_t)seed);
  SFX(set_alloc)(&A, c, in_elems, out_elems, c->misalign);
  if (c->newarray) SFX(set_alloc)(&B, c, in_elems, out_elems, c->misalign_new);

  /* Planning: ESTIMATE must not touch the arrays (FFTW's rule); abft's shim promises it
   * for every planner flag. */
  SFX(set_junk)(&A);
  SFX(make_input)(c, x, ni);
  SFX(scatter_in)(&A, ioff, ni, x);
  R **snap = SFX(snapshot)(&A, 0, A.nblk);
  if (c->nthreads > 1) X(plan_with_nthreads)(c->nthreads);
  X(plan) p = SFX(make_plan)(c, &A);
  if (c->nthreads > 1) X(plan_with_nthreads)(1);
  int same = SFX(unchanged)(&A, snap, 0, A.nblk);
  if (!p) {
    if (c->kind == C2R && c->rank > 1 && (c->flags & FFTW_PRESERVE_INPUT) && !SFX(g_ours)) {
      unsupported(PREC, c->name, "NULL plan: FFTW does not preserve the input of a multi-dimensional c2r");
    } else {
      verdict(PREC, 0, -1, c->name, "the planner returned NULL");
    }
    goto done;
  }
  if (untouched_planning && !same) {
    ok = 0;
    strcat(why, SFX(g_ours) && !(c->flags & FFTW_ESTIMATE) ? "[planning wrote to the arrays (abft promises it does not)] "
                                                           : "[ESTIMATE planning wrote to the arrays] ");
  }

  for (int rep = 0; rep < c->repeat; rep++) {
    SFX(set_t) *T = c->newarray ? &B : &A;
    R **snapA = NULL;
    if (c->newarray) { SFX(set_junk)(&A); snapA = SFX(snapshot)(&A, 0, A.nblk); }
    SFX(set_junk)(T);
    SFX(make_input)(c, x, ni);
    SFX(scatter_in)(T, ioff, ni, x);
    int nin = SFX(n_in_blocks)(c, T);
    R **snapIn = preserve ? SFX(snapshot)(T, 0, nin) : NULL;
    if (c->newarray) SFX(execute_new)(c, p, T);
    else X(execute)(p);
    SFX(gather_out)(T, ooff, no, y);
    ld xn = reference(c, x, yref);
    ld err = 0;
    for (size_t i = 0; i < no; i++) {
      ld dr = y[i].re - yref[i].re, di = y[i].im - yref[i].im;
      err += dr * dr + di * di;
    }
    err = sqrtl(err);
    double N = (double)prod(c->rank, c->n);
    double lg = N > 2 ? log2(N) : 1.0;
    double ratio = (double)(err / ((ld)PREC_EPS * (ld)lg * (ld)sqrt(N) * xn));
    if (!(ratio <= worst)) worst = ratio;
    if (!(ratio <= g_tol)) { ok = 0; if (!strstr(why, "[error")) strcat(why, "[error above the bound] "); }
    if (snapIn && !SFX(unchanged)(T, snapIn, 0, nin)) { ok = 0; strcat(why, "[the input was modified] "); }
    if (snapA && !SFX(unchanged)(&A, snapA, 0, A.nblk)) { ok = 0; strcat(why, "[new-array execution touched the plan's arrays] "); }
  }

  {
    double add = -1, mul = -1, fma = -1;
    X(flops)(p, &add, &mul, &fma);
    double ec = X(estimate_cost)(p), mc = X(cost)(p);
    if (!(add >= 0 && mul >= 0 && fma >= 0 && isfinite(add + mul + fma))) {
      ok = 0; strcat(why, "[fftw_flops negative or not finite] ");
    }
    if (!(ec >= 0) || !(mc >= 0)) { ok = 0; strcat(why, "[cost/estimate_cost negative] "); }
  }
  verdict(PREC, ok, worst, c->name, why);
  X(destroy_plan)(p);
done:
  SFX(set_free)(&A);
  if (c->newarray) SFX(set_free)(&B);
  free(ioff); free(ooff); free(x); free(y); free(yref);
}

/* ---------------------------------------------------------------- checks around transforms */
static void SFX(check_version_copy)(void)
{
  /* A program that names fftw_version gets a copy relocation of the system library's
   * string (fixed size): the library swapped in must fit it, or programs print a
   * truncated version (and the loader warns "different size"). */
  const char *lib = library_string(LIBNAME, LIBSYM);
  char direct[64];
  snprintf(direct, sizeof direct, "%s", X(version));
  int ok = !strcmp(direct, lib);
  char why[256];
  snprintf(why, sizeof why, "program's copy \"%s\", library's \"%s\"", direct, lib);
  verdict(PREC, ok, -1, "version string seen through the program's copy relocation", why);
}

static void SFX(check_alloc)(void)
{
  int ok = 1;
  char why[200] = "";
  R *a = X(alloc_real)(37);
  X(complex) *b = X(alloc_complex)(37);
  void *m = X(malloc)(1000);
  if (!a || !b || !m) { verdict(PREC, 0, -1, "fftw_malloc/alloc_real/alloc_complex", "NULL"); return; }
  for (int i = 0; i < 37; i++) { a[i] = (R)i; b[i][0] = (R)i; b[i][1] = (R)-i; }
  memset(m, 0xab, 1000);
  if (X(alignment_of)(a) != 0 || X(alignment_of)((R *)b) != 0 || X(alignment_of)((R *)m) != 0) {
    ok = 0; strcat(why, "[fftw_alignment_of(fftw_malloc'd) != 0] ");
  }
  if (X(alignment_of)(a + 1) == 0) { ok = 0; strcat(why, "[fftw_alignment_of(p + 1) == 0] "); }
  for (int i = 0; i < 37; i++) if (a[i] != (R)i || b[i][1] != (R)-i) ok = 0;
  X(free)(a); X(free)(b); X(free)(m);
  verdict(PREC, ok, -1, "fftw_malloc/alloc_real/alloc_complex/free, fftw_alignment_of", why);
}

static void SFX(check_plan_info)(void)
{
  int ok = 1;
  char why[300] = "";
  X(complex) *in = X(alloc_complex)(64), *out = X(alloc_complex)(64);
  X(plan) p = X(plan_dft_1d)(64, in, out, FFTW_FORWARD, FFTW_MEASURE);
  if (!p) { verdict(PREC, 0, -1, "plan introspection", "NULL plan"); X(free)(in); X(free)(out); return; }
  char *s = X(sprint_plan)(p);
  if (!s || !*s) { ok = 0; strcat(why, "[sprint_plan empty] "); }
  free(s);
  FILE *f = tmpfile();
  if (f) {
    X(fprint_plan)(p, f);
    if (ftell(f) <= 0) { ok = 0; strcat(why, "[fprint_plan wrote nothing] "); }
    fclose(f);
  }
  double add = -1, mul = -1, fma = -1;
  X(flops)(p, &add, &mul, &fma);
  double ec = X(estimate_cost)(p), mc = X(cost)(p);
  if (!(add >= 0 && mul >= 0 && fma >= 0)) { ok = 0; strcat(why, "[flops negative] "); }
  if (!(ec >= 0 && mc >= 0)) { ok = 0; strcat(why, "[cost negative] "); }
  char info[200];
  snprintf(info, sizeof info, "flops add=%g mul=%g fma=%g estimate_cost=%g cost=%g ", add, mul, fma, ec, mc);
  strcat(why, info);
  X(destroy_plan)(p);
  X(free)(in); X(free)(out);
  verdict(PREC, ok, -1, "sprint_plan/fprint_plan/flops/cost/estimate_cost (1D c2c n=64 MEASURE)", why);
}

/* Plans c2c 1D n under flags, on fresh fftw_malloc'd arrays; checks the result when the
 * plan exists. Returns 1 for a plan (correct), 0 for NULL, -1 for a wrong result. */
static int SFX(plan_and_check_1d)(int n, unsigned flags)
{
  case_t c = basic(C2C_FWD, API_BASIC, 1, &n, 0, flags);
  side_t si, so;
  make_side(&c, 1, &si); make_side(&c, 0, &so);
  SFX(set_t) A;
  SFX(set_alloc)(&A, &c, (size_t)n, (size_t)n, 0);
  X(plan) p = SFX(make_plan)(&c, &A);
  int r = 0;
  if (p) {
    ptrdiff_t *off = malloc(sizeof(ptrdiff_t) * (size_t)n);
    lcx *x = malloc(sizeof(lcx) * (size_t)n), *y = malloc(sizeof(lcx) * (size_t)n), *yr = malloc(sizeof(lcx) * (size_t)n);
    side_offsets(&si, off);
    SFX(make_input)(&c, x, (size_t)n);
    SFX(scatter_in)(&A, off, (size_t)n, x);
    X(execute)(p);
    SFX(gather_out)(&A, off, (size_t)n, y);
    ld xn = reference(&c, x, yr), err = 0;
    for (int i = 0; i < n; i++) err += (y[i].re - yr[i].re) * (y[i].re - yr[i].re) + (y[i].im - yr[i].im) * (y[i].im - yr[i].im);
    double ratio = (double)(sqrtl(err) / ((ld)PREC_EPS * (ld)log2((double)n) * (ld)sqrt((double)n) * xn));
    r = ratio <= g_tol ? 1 : -1;
    free(off); free(x); free(y); free(yr);
    X(destroy_plan)(p);
  }
  SFX(set_free)(&A);
  return r;
}

static void SFX(check_wisdom)(void)
{
  char why[400];
  /* a problem planned with MEASURE leaves wisdom */
  int r = SFX(plan_and_check_1d)(96, FFTW_MEASURE);
  char *w = X(export_wisdom_to_string)();
  verdict(PREC, r == 1 && w && *w, -1, "export_wisdom_to_string after a MEASURE plan (1D c2c n=96)",
          !w ? "NULL string" : !*w ? "empty string" : r != 1 ? "the MEASURE plan failed" : "");
  if (!w) return;

  X(forget_wisdom)();
  r = SFX(plan_and_check_1d)(96, FFTW_MEASURE | FFTW_WISDOM_ONLY);
  verdict(PREC, r == 0, -1, "after forget_wisdom, WISDOM_ONLY planning returns NULL",
          r ? "a plan was returned without wisdom" : "");

  int imp = X(import_wisdom_from_string)(w);
  r = SFX(plan_and_check_1d)(96, FFTW_MEASURE | FFTW_WISDOM_ONLY);
  snprintf(why, sizeof why, "import returned %d; WISDOM_ONLY plan: %s", imp,
           r == 1 ? "correct" : r == 0 ? "NULL" : "WRONG RESULT");
  verdict(PREC, imp != 0 && r == 1, -1, "import_wisdom_from_string(exported) then WISDOM_ONLY plan", why);

  int bad = X(import_wisdom_from_string)("this is not wisdom");
  verdict(PREC, bad == 0, -1, "import_wisdom_from_string(garbage) returns 0", bad ? "returned nonzero" : "");

  /* through a named file */
  int e = X(export_wisdom_to_filename)(g_wisdom_file);
  X(forget_wisdom)();
  int i2 = X(import_wisdom_from_filename)(g_wisdom_file);
  r = SFX(plan_and_check_1d)(96, FFTW_MEASURE | FFTW_WISDOM_ONLY);
  snprintf(why, sizeof why, "export %d, import %d, WISDOM_ONLY plan: %s", e, i2,
           r == 1 ? "correct" : r == 0 ? "NULL" : "WRONG RESULT");
  verdict(PREC, e && i2 && r == 1, -1, "export/import_wisdom_to/from_filename then WISDOM_ONLY plan", why);

  /* through a FILE * */
  FILE *f = fopen(g_wisdom_file, "w");
  if (f) { X(export_wisdom_to_file)(f); fclose(f); }
  X(forget_wisdom)();
  f = fopen(g_wisdom_file, "r");
  int i3 = f ? X(import_wisdom_from_file)(f) : 0;
  if (f) fclose(f);
  r = SFX(plan_and_check_1d)(96, FFTW_MEASURE | FFTW_WISDOM_ONLY);
  snprintf(why, sizeof why, "import %d, WISDOM_ONLY plan: %s", i3, r == 1 ? "correct" : r == 0 ? "NULL" : "WRONG RESULT");
  verdict(PREC, i3 && r == 1, -1, "export/import_wisdom_to/from_file (FILE *) then WISDOM_ONLY plan", why);
  remove(g_wisdom_file);
  free(w);
}

static void SFX(check_r2r)(void)
{
  enum { n = 8 };
  R *in = X(alloc_real)(n), *out = X(alloc_real)(n);
  X(plan) p = X(plan_r2r_1d)(n, in, out, FFTW_REDFT10, FFTW_ESTIMATE);
  if (!p) {
    verdict(PREC, SFX(g_ours), -1, "r2r (REDFT10 n=8)",
            SFX(g_ours) ? "NULL plan: not provided by abft's shim, as documented" : "NULL plan from the system FFTW");
  } else {
    ld err = 0, nx = 0;
    for (int j = 0; j < n; j++) { in[j] = (R)rng_uniform(); nx += (ld)in[j] * in[j]; }
    X(execute)(p);
    for (int k = 0; k < n; k++) {
      ld s = 0;
      for (int j = 0; j < n; j++) s += 2 * in[j] * cosl(PI_L * (j + 0.5L) * k / n);
      err += (out[k] - s) * (out[k] - s);
    }
    double ratio = (double)(sqrtl(err) / ((ld)PREC_EPS * 3 * sqrtl(2.0L * n) * sqrtl(nx)));
    verdict(PREC, ratio <= g_tol, ratio, "r2r (REDFT10 n=8)", "");
    X(destroy_plan)(p);
  }
  X(free)(in); X(free)(out);
}

/* Concurrent execution: FFTW's execute functions are thread-safe, so several threads may
 * run one plan at once on their own arrays (new-array execution), as OpenMP loops over
 * rows do. Each thread checks every one of its results. */
typedef struct {
  X(plan) p;
  const case_t *c;
  int iters, ok;
  double worst;
  uint64_t state;
} SFX(conc_t);

static void *SFX(conc_worker)(void *arg)
{
  SFX(conc_t) *w = arg;
  const case_t *c = w->c;
  int n = c->n[0], nh = half_last(n);
  int cplx_in = c->kind != R2C;
  size_t nin = (size_t)(c->kind == C2R ? nh : n), nout = (size_t)(c->kind == R2C ? nh : n);
  R *in = X(malloc)(sizeof(R) * 2 * (size_t)n), *out = X(malloc)(sizeof(R) * 2 * (size_t)n);
  lcx *x = malloc(sizeof(lcx) * (size_t)n), *yr = malloc(sizeof(lcx) * (size_t)n);
  w->ok = 1;
  w->worst = 0;
  for (int it = 0; it < w->iters; it++) {
    for (size_t i = 0; i < nin; i++) {
      w->state ^= w->state >> 12; w->state ^= w->state << 25; w->state ^= w->state >> 27;
      uint64_t r1 = w->state * 0x2545F4914F6CDD1Dull;
      w->state ^= w->state >> 12; w->state ^= w->state << 25; w->state ^= w->state >> 27;
      uint64_t r2 = w->state * 0x2545F4914F6CDD1Dull;
      x[i].re = (R)((ld)(r1 >> 11) / 4503599627370496.0L - 1.0L);
      x[i].im = cplx_in ? (R)((ld)(r2 >> 11) / 4503599627370496.0L - 1.0L) : 0;
      if (cplx_in) { in[2 * i] = (R)x[i].re; in[2 * i + 1] = (R)x[i].im; } else in[i] = (R)x[i].re;
    }
    if (c->kind == R2C) X(execute_dft_r2c)(w->p, in, (X(complex) *)out);
    else X(execute_dft)(w->p, (X(complex) *)in, (X(complex) *)out);
    ld xn = reference(c, x, yr), err = 0;
    for (size_t k = 0; k < nout; k++) {
      ld dr = out[2 * k] - yr[k].re, di = out[2 * k + 1] - yr[k].im;
      err += dr * dr + di * di;
    }
    double ratio = (double)(sqrtl(err) / ((ld)PREC_EPS * (ld)log2((double)n) * (ld)sqrt((double)n) * xn));
    if (!(ratio <= w->worst)) w->worst = ratio;
    if (!(ratio <= g_tol)) w->ok = 0;
  }
  X(free)(in); X(free)(out); free(x); free(yr);
  return NULL;
}

static void SFX(check_concurrent)(int kind, int n)
{
  enum { NT = 4 };
  case_t c = basic(kind, API_BASIC, 1, &n, 0, FFTW_MEASURE);
  char name[sizeof c.name + 64];
  snprintf(name, sizeof name, "%s shared by %d threads executing at once (new-array, 8 each)", c.name, NT);
  if (g_filter && !strstr(name, g_filter)) return;
  R *in = X(malloc)(sizeof(R) * 2 * (size_t)n), *out = X(malloc)(sizeof(R) * 2 * (size_t)n);
  X(plan) p = kind == R2C ? X(plan_dft_r2c_1d)(n, in, (X(complex) *)out, FFTW_MEASURE)
                          : X(plan_dft_1d)(n, (X(complex) *)in, (X(complex) *)out, FFTW_FORWARD, FFTW_MEASURE);
  if (!p) { verdict(PREC, 0, -1, name, "NULL plan"); X(free)(in); X(free)(out); return; }
  SFX(conc_t) w[NT];
  pthread_t th[NT];
  int started[NT] = {0};
  for (int t = 0; t < NT; t++) {
    w[t].p = p; w[t].c = &c; w[t].iters = 8; w[t].ok = 0; w[t].worst = 0;
    w[t].state = 0x9E3779B97F4A7C15ull * (uint64_t)(t + 1) + (uint64_t)n;
    started[t] = pthread_create(&th[t], NULL, SFX(conc_worker), &w[t]) == 0;
  }
  int ok = 1;
  double worst = 0;
  for (int t = 0; t < NT; t++) {
    if (!started[t]) { ok = 0; continue; }
    pthread_join(th[t], NULL);
    if (!w[t].ok) ok = 0;
    if (!(w[t].worst <= worst)) worst = w[t].worst;
  }
  verdict(PREC, ok, worst, name, ok ? "" : "[error above the bound in some thread]");
  X(destroy_plan)(p);
  X(free)(in); X(free)(out);
}

/* ---------------------------------------------------------------- the case list */
static void SFX(run_all)(int ours)
{
  SFX(g_ours) = ours;
  int seed = ours ? 1000 : 1000;  /* same data under both libraries */
  const unsigned E = FFTW_ESTIMATE, M = FFTW_MEASURE, P = FFTW_PATIENT;
  case_t c;
#define RUN(expr) do { c = (expr); SFX(run_case)(&c, seed++); } while (0)
#define RUNX(expr, field, val) do { c = (expr); c.field = (val); case_name(&c); SFX(run_case)(&c, seed++); } while (0)

  printf("== %s: %s\n", PREC, library_string(LIBNAME, LIBSYM));
  {
    int t = X(init_threads)();
    if (!g_filter) verdict(PREC, t != 0, -1, "init_threads", t ? "" : "returned 0");
  }
  if (!g_filter) {
    SFX(check_version_copy)();
    SFX(check_alloc)();
  }

  /* 1D c2c, basic interface: sizes 1, 2, powers of two, primes, mixed radix */
  {
    static const int sizes[] = {1, 2, 16, 17, 60, 97, 128, 1000, 1009};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      int n = sizes[i];
      RUN(basic(C2C_FWD, API_BASIC, 1, &n, 0, E));
      RUN(basic(C2C_BWD, API_BASIC, 1, &n, 1, E));
    }
    int m1 = 17, m2 = 128, m3 = 1000, p1 = 16, p2 = 60, e1 = 12;
    RUN(basic(C2C_FWD, API_BASIC, 1, &m1, 0, M));
    RUN(basic(C2C_BWD, API_BASIC, 1, &m2, 0, M));
    RUN(basic(C2C_FWD, API_BASIC, 1, &m3, 1, M));
    RUN(basic(C2C_FWD, API_BASIC, 1, &p1, 0, P));
    RUN(basic(C2C_BWD, API_BASIC, 1, &p2, 1, P));
    RUN(basic(C2C_FWD, API_BASIC, 1, &e1, 0, FFTW_EXHAUSTIVE));
    RUN(basic(C2C_FWD, API_BASIC, 1, &p2, 0, E | FFTW_DESTROY_INPUT));
    RUN(basic(C2C_FWD, API_BASIC, 1, &p2, 0, E | FFTW_PRESERVE_INPUT));
    RUNX(basic(C2C_FWD, API_BASIC, 1, &m2, 0, E), repeat, 2);
    RUNX(basic(C2C_BWD, API_BASIC, 1, &p2, 0, M), repeat, 2);
    RUNX(basic(C2C_FWD, API_BASIC, 1, &m2, 0, E | FFTW_UNALIGNED), misalign, 1);
    RUNX(basic(C2C_FWD, API_BASIC, 1, &m3, 0, M), misalign, 1);
  }

  /* 1D r2c / c2r, odd and even lengths */
  {
    static const int sizes[] = {1, 2, 15, 16, 17, 60, 97, 128, 1000, 1009};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      int n = sizes[i];
      RUN(basic(R2C, API_BASIC, 1, &n, 0, E));
      RUN(basic(R2C, API_BASIC, 1, &n, 1, E));
      RUN(basic(C2R, API_BASIC, 1, &n, 0, E));
      RUN(basic(C2R, API_BASIC, 1, &n, 1, E));
    }
    int a = 60, b = 97, d = 128, o = 45;
    RUN(basic(R2C, API_BASIC, 1, &a, 0, M));
    RUN(basic(R2C, API_BASIC, 1, &b, 1, M));
    RUN(basic(C2R, API_BASIC, 1, &d, 0, M));
    RUN(basic(C2R, API_BASIC, 1, &o, 1, P));
    RUN(basic(R2C, API_BASIC, 1, &o, 0, P));
    RUN(basic(C2R, API_BASIC, 1, &a, 0, E | FFTW_PRESERVE_INPUT));
    RUN(basic(C2R, API_BASIC, 1, &b, 0, M | FFTW_PRESERVE_INPUT));
    RUNX(basic(R2C, API_BASIC, 1, &d, 0, E), repeat, 2);
    RUNX(basic(C2R, API_BASIC, 1, &a, 0, M), repeat, 2);
    RUNX(basic(R2C, API_BASIC, 1, &o, 0, E | FFTW_UNALIGNED), misalign, 1);
    RUNX(basic(C2R, API_BASIC, 1, &d, 0, E | FFTW_UNALIGNED), misalign, 1);
  }

  /* 2D and 3D, basic interface */
  {
    int s1[] = {48, 30}, s2[] = {8, 17}, s3[] = {16, 16}, s4[] = {12, 15}, s5[] = {7, 9}, s6[] = {10, 16};
    int t1[] = {4, 6, 5}, t2[] = {8, 8, 8}, t3[] = {6, 4, 8}, t4[] = {5, 4, 6}, t5[] = {3, 5, 7};
    RUN(basic(C2C_FWD, API_BASIC, 2, s1, 0, E));
    RUN(basic(C2C_BWD, API_BASIC, 2, s1, 1, E));
    RUN(basic(C2C_FWD, API_BASIC, 2, s2, 0, M));
    RUN(basic(C2C_BWD, API_BASIC, 2, s3, 1, M));
    RUN(basic(C2C_FWD, API_BASIC, 2, s4, 0, P));
    RUN(basic(R2C, API_BASIC, 2, s1, 0, E));
    RUN(basic(R2C, API_BASIC, 2, s4, 1, E));
    RUN(basic(R2C, API_BASIC, 2, s5, 0, M));
    RUN(basic(R2C, API_BASIC, 2, s6, 1, M));
    RUN(basic(C2R, API_BASIC, 2, s1, 0, E));
    RUN(basic(C2R, API_BASIC, 2, s4, 1, E));
    RUN(basic(C2R, API_BASIC, 2, s5, 0, M));
    RUN(basic(C2R, API_BASIC, 2, s6, 1, M));
    RUN(basic(C2R, API_BASIC, 2, s5, 0, E | FFTW_PRESERVE_INPUT));
    RUN(basic(C2R, API_BASIC, 2, s6, 0, M | FFTW_PRESERVE_INPUT));
    RUN(basic(C2C_FWD, API_BASIC, 3, t1, 0, E));
    RUN(basic(C2C_BWD, API_BASIC, 3, t2, 1, E));
    RUN(basic(C2C_FWD, API_BASIC, 3, t5, 0, M));
    RUN(basic(R2C, API_BASIC, 3, t1, 0, E));
    RUN(basic(R2C, API_BASIC, 3, t3, 1, M));
    RUN(basic(R2C, API_BASIC, 3, t5, 1, E));
    RUN(basic(C2R, API_BASIC, 3, t1, 0, E));
    RUN(basic(C2R, API_BASIC, 3, t3, 1, M));
    RUN(basic(C2R, API_BASIC, 3, t5, 0, E));
    RUN(basic(C2R, API_BASIC, 3, t4, 0, E | FFTW_PRESERVE_INPUT));
    RUNX(basic(R2C, API_BASIC, 2, s4, 0, E | FFTW_UNALIGNED), misalign, 1);
  }

  /* rank-n planners (plan_dft, plan_dft_r2c, plan_dft_c2r), including rank 4 */
  {
    int n1[] = {30}, n2[] = {10, 12}, n3[] = {4, 5, 6}, n4[] = {3, 4, 2, 5};
    RUN(basic(C2C_FWD, API_RANKN, 1, n1, 0, E));
    RUN(basic(C2C_BWD, API_RANKN, 2, n2, 1, E));
    RUN(basic(C2C_FWD, API_RANKN, 3, n3, 0, M));
    RUN(basic(C2C_FWD, API_RANKN, 4, n4, 0, E));
    RUN(basic(C2C_BWD, API_RANKN, 4, n4, 1, E));
    RUN(basic(R2C, API_RANKN, 1, n1, 1, E));
    RUN(basic(R2C, API_RANKN, 3, n3, 0, E));
    RUN(basic(R2C, API_RANKN, 4, n4, 0, E));
    RUN(basic(C2R, API_RANKN, 1, n1, 0, M));
    RUN(basic(C2R, API_RANKN, 2, n2, 1, E));
    RUN(basic(C2R, API_RANKN, 4, n4, 0, E));
  }

  /* advanced interface: batches, strides, distances, embeddings */
  {
    int a[] = {60}, b[] = {17}, d2[] = {6, 10}, ie2[] = {8, 12}, oe2[] = {7, 11};
    int r2[] = {8, 9}, rie[] = {10, 12}, roe[] = {8, 6}, pp[] = {6, 10}, pie[] = {6, 12}, poe[] = {6, 6};
    int q[] = {30}, cn[] = {8, 9}, cie[] = {9, 7}, coe[] = {8, 11}, m48[] = {48}, m32[] = {32};
    RUN(many(C2C_FWD, 1, a, 5, NULL, 1, 60, NULL, 1, 60, 0, E));
    RUN(many(C2C_BWD, 1, b, 4, NULL, 4, 1, NULL, 4, 1, 0, E));          /* interleaved batches */
    RUN(many(C2C_FWD, 1, b, 4, NULL, 4, 1, NULL, 1, 17, 0, M));         /* transposing batch */
    RUN(many(C2C_BWD, 2, d2, 3, ie2, 2, 2 * 8 * 12 + 3, oe2, 1, 7 * 11 + 2, 0, E));
    RUN(many(C2C_FWD, 2, d2, 3, ie2, 1, 8 * 12, ie2, 1, 8 * 12, 1, M)); /* in place, embedded */
    RUN(many(C2C_FWD, 1, m48, 3, NULL, 1, 48, NULL, 1, 48, 1, E));
    RUN(many(R2C, 1, m32, 3, NULL, 1, 32, NULL, 1, 17, 0, E));
    RUN(many(R2C, 2, r2, 2, rie, 1, 130, roe, 1, 50, 0, E));
    RUN(many(R2C, 2, r2, 2, rie, 2, 260, roe, 2, 100, 0, M));
    RUN(many(R2C, 2, pp, 2, pie, 1, 72, poe, 1, 36, 1, E));              /* in place, padded */
    RUN(many(R2C, 1, q, 4, NULL, 4, 1, NULL, 4, 1, 0, E));
    RUN(many(C2R, 1, q, 4, NULL, 4, 1, NULL, 1, 30, 0, E));
    RUN(many(C2R, 2, cn, 2, cie, 1, 70, coe, 1, 90, 0, E));
    RUN(many(C2R, 2, cn, 2, cie, 1, 70, coe, 1, 90, 0, M));
    RUN(many(C2R, 1, m32, 3, NULL, 1, 17, NULL, 1, 34, 1, E));           /* in place, padded */
    RUN(many(C2R, 2, pp, 2, poe, 1, 36, pie, 1, 72, 1, E));
    RUN(many(C2R, 1, q, 3, NULL, 1, 16, NULL, 1, 30, 0, E | FFTW_PRESERVE_INPUT));
  }

  /* guru and guru64 */
  {
    int n2[] = {5, 7}, h1[] = {3}, n1[] = {12}, h2[] = {2, 3}, n3[] = {3, 4, 5}, nr[] = {6, 8}, nc[] = {20};
    ptrdiff_t is2[] = {7, 1}, os2[] = {1, 5}, his1[] = {35}, hos1[] = {35};
    RUN(guru(C2C_FWD, API_GURU, 2, n2, is2, os2, 1, h1, his1, hos1, 0, E));   /* transposed output */
    RUN(guru(C2C_BWD, API_GURU64, 2, n2, is2, os2, 1, h1, his1, hos1, 0, M));
    ptrdiff_t is1[] = {6}, os1[] = {1}, his2[] = {3, 1}, hos2[] = {36, 12};
    RUN(guru(C2C_FWD, API_GURU, 1, n1, is1, os1, 2, h2, his2, hos2, 0, E));  /* two batch dims */
    RUN(guru(C2C_BWD, API_GURU64, 1, n1, is1, os1, 2, h2, his2, hos2, 0, E));
    ptrdiff_t is3[] = {20, 5, 1}, os3[] = {1, 3, 12};
    RUN(guru(C2C_FWD, API_GURU, 3, n3, is3, is3, 0, NULL, NULL, NULL, 1, E));  /* in place */
    RUN(guru(C2C_FWD, API_GURU64, 3, n3, is3, os3, 0, NULL, NULL, NULL, 0, E));
    ptrdiff_t ris[] = {2 * 8, 2}, ros[] = {5, 1}, rhis[] = {1}, rhos[] = {6 * 5};
    int rh[] = {2};
    RUN(guru(R2C, API_GURU, 2, nr, ris, ros, 1, rh, rhis, rhos, 0, E));       /* strided, interleaved batch */
    RUN(guru(R2C, API_GURU64, 2, nr, ris, ros, 1, rh, rhis, rhos, 0, M));
    ptrdiff_t pis[] = {10, 1}, pos[] = {5, 1}, phis[] = {60}, phos[] = {30};
    RUN(guru(R2C, API_GURU, 2, nr, pis, pos, 1, rh, phis, phos, 1, E));       /* in place, padded */
    ptrdiff_t cis[] = {1}, cos_[] = {3}, chis[] = {11}, chos[] = {1};
    int ch[] = {3};
    RUN(guru(C2R, API_GURU, 1, nc, cis, cos_, 1, ch, chis, chos, 0, E));
    RUN(guru(C2R, API_GURU64, 1, nc, cis, cos_, 1, ch, chis, chos, 0, E));
    ptrdiff_t iis[] = {1}, ios[] = {1}, ihis[] = {11}, ihos[] = {22};
    RUN(guru(C2R, API_GURU64, 1, nc, iis, ios, 1, ch, ihis, ihos, 1, E));    /* in place, padded */
    ptrdiff_t c2is[] = {5, 1}, c2os[] = {8, 1};
    RUN(guru(C2R, API_GURU, 2, nr, c2is, c2os, 0, NULL, NULL, NULL, 0, E | FFTW_PRESERVE_INPUT));
  }

  /* split-complex guru */
  {
    int n1[] = {60}, n2[] = {6, 10}, n32[] = {32}, nr[] = {30}, nc[] = {4, 6}, hb[] = {2};
    ptrdiff_t s1[] = {1}, s2[] = {10, 1}, s2t[] = {1, 6}, hs[] = {60}, z[] = {0};
    RUN(guru(C2C_FWD, API_SPLIT, 1, n1, s1, s1, 1, hb, hs, hs, 0, E));
    RUN(guru(C2C_BWD, API_SPLIT, 1, n1, s1, s1, 0, NULL, z, z, 0, M));
    RUN(guru(C2C_BWD, API_SPLIT, 2, n2, s2, s2t, 0, NULL, z, z, 0, E));
    RUN(guru(C2C_FWD, API_SPLIT, 1, n32, s1, s1, 0, NULL, z, z, 1, E));      /* in place */
    ptrdiff_t rhs[] = {30}, rhos[] = {16};
    RUN(guru(R2C, API_SPLIT, 1, nr, s1, s1, 1, hb, rhs, rhos, 0, E));
    ptrdiff_t cis[] = {4, 1}, cos_[] = {6, 1};
    RUN(guru(C2R, API_SPLIT, 2, nc, cis, cos_, 0, NULL, z, z, 0, E));
    RUN(guru(C2R, API_SPLIT, 1, nr, s1, s1, 1, hb, rhos, rhs, 0, M));
  }

  /* new-array execution: the plan's arrays untouched, the second set transformed */
  {
    int a = 100, b2[] = {12, 10}, r = 64, r2[] = {6, 9}, cr = 50, cr2[] = {8, 10}, m[] = {24}, sp[] = {40};
    ptrdiff_t s1[] = {1}, z[] = {0};
    RUNX(basic(C2C_FWD, API_BASIC, 1, &a, 0, E), newarray, 1);
    RUNX(basic(C2C_BWD, API_BASIC, 1, &a, 0, M), newarray, 1);
    RUNX(basic(C2C_FWD, API_BASIC, 2, b2, 1, E), newarray, 1);
    RUNX(basic(R2C, API_BASIC, 1, &r, 0, E), newarray, 1);
    RUNX(basic(R2C, API_BASIC, 2, r2, 1, M), newarray, 1);
    RUNX(basic(C2R, API_BASIC, 1, &cr, 0, E), newarray, 1);
    RUNX(basic(C2R, API_BASIC, 2, cr2, 1, E), newarray, 1);
    RUNX(basic(C2R, API_BASIC, 2, cr2, 0, M), newarray, 1);
    RUNX(many(C2C_FWD, 1, m, 3, NULL, 1, 24, NULL, 1, 24, 0, E), newarray, 1);
    RUNX(many(R2C, 1, m, 3, NULL, 1, 24, NULL, 1, 13, 0, E), newarray, 1);
    RUNX(guru(C2C_FWD, API_SPLIT, 1, sp, s1, s1, 0, NULL, z, z, 0, E), newarray, 1);
    RUNX(guru(C2C_BWD, API_SPLIT, 1, sp, s1, s1, 0, NULL, z, z, 0, E), newarray, 1);
    RUNX(guru(R2C, API_SPLIT, 1, sp, s1, s1, 0, NULL, z, z, 0, E), newarray, 1);
    RUNX(guru(C2R, API_SPLIT, 1, sp, s1, s1, 0, NULL, z, z, 0, E), newarray, 1);
    /* UNALIGNED: the new arrays may have another alignment than the plan's */
    c = basic(C2C_FWD, API_BASIC, 1, &a, 0, E | FFTW_UNALIGNED);
    c.newarray = 1; c.misalign_new = 1; case_name(&c);
    strcat(c.name, " (new arrays misaligned)");
    SFX(run_case)(&c, seed++);
    c = basic(R2C, API_BASIC, 1, &r, 0, M | FFTW_UNALIGNED);
    c.newarray = 1; c.misalign_new = 1; case_name(&c);
    strcat(c.name, " (new arrays misaligned)");
    SFX(run_case)(&c, seed++);
  }

  /* threads */
  {
    int t2[] = {64, 48}, t3[] = {8, 8, 16}, t4[] = {32, 30}, b[] = {256};
    RUNX(basic(C2C_FWD, API_BASIC, 2, t2, 0, M), nthreads, 2);
    RUNX(basic(C2C_BWD, API_BASIC, 2, t2, 1, E), nthreads, 2);
    RUNX(basic(R2C, API_BASIC, 3, t3, 0, E), nthreads, 2);
    RUNX(basic(C2R, API_BASIC, 2, t4, 0, M), nthreads, 2);
    RUNX(many(C2C_FWD, 1, b, 16, NULL, 1, 256, NULL, 1, 256, 0, E), nthreads, 2);
    c = basic(R2C, API_BASIC, 2, t4, 1, E);
    c.nthreads = 2; c.repeat = 2; case_name(&c);
    SFX(run_case)(&c, seed++);
  }

  SFX(check_concurrent)(C2C_FWD, 256);
  SFX(check_concurrent)(R2C, 120);
  if (!g_filter) {
    SFX(check_plan_info)();
    SFX(check_wisdom)();
    SFX(check_r2r)();
  }
  X(cleanup_threads)();
  X(cleanup)();
  if (!g_filter) verdict(PREC, 1, -1, "cleanup_threads + cleanup", "");
#undef RUN
#undef RUNX
}
