! A legacy Fortran FFTW client: it calls FFTW only through the legacy Fortran-77
! interface (dfftw_* / sfftw_*, every argument by reference, the plan an integer*8;
! FFTW manual, "Calling FFTW from Legacy Fortran"), as old programs do: no modules, no
! interfaces, no ISO_C_BINDING. It is linked against the system's -lfftw3 -lfftw3f
! -lfftw3_threads -lfftw3f_threads and runs unchanged on abft's drop-in libraries
! (LD_LIBRARY_PATH=<build>/lib; see run_legacy_fortran.sh).
!
! Covered: 1D/2D/3D complex DFTs (plan_dft_1d/2d/3d, plan_dft), r2c and c2r
! (_1d/_2d/_3d and rank forms), plan_many_dft{,_r2c,_c2r} with embedded arrays, the guru
! planners (plan_guru_dft{,_r2c,_c2r}, plan_guru_split_dft{,_r2c,_c2r}), new-array
! execution (execute_dft{,_r2c,_c2r}, execute_split_dft{,_r2c,_c2r}), destroy_plan,
! threads (init_threads, plan_with_nthreads, planner_nthreads, cleanup_threads),
! flops/estimate_cost/cost/print_plan/set_timelimit, wisdom through Fortran callbacks
! (export_wisdom, import_wisdom, forget_wisdom, import_system_wisdom), r2r (a 0 plan is
! accepted: abft does not provide r2r), cleanup. Results are checked against a direct
! DFT computed here (double precision), norm-wise: max|got - ref| / max|ref|.
!
! Output: one "PASS name" / "FAIL name (...)" line per check, "INFO ..." lines, then
! "legacy_fortran: N passed, M failed". Exit status 1 when anything failed.
!
! Sizes are in Fortran order throughout: an array a(nx, ny) is planned with
! dfftw_plan_dft_2d(p, nx, ny, ...); the r2c half-length dimension is the first one.
! The guru planners take n/is/os in the order given (FFTW does not reverse those), so
! for r2c the halved dimension is the last entry of n.

program legacy_fortran
  implicit none
  integer nfail, npass
  common /tstat/ nfail, npass
  nfail = 0
  npass = 0
  call dtests()
  call stests()
  write (*, '(a, i0, a, i0, a)') 'legacy_fortran: ', npass, ' passed, ', nfail, ' failed'
  if (nfail > 0) stop 1
end program legacy_fortran

! ---------------------------------------------------------------------------------------
! The FFTW constants (fftw3.f's values).
! ---------------------------------------------------------------------------------------
! FFTW_FORWARD = -1, FFTW_BACKWARD = +1, FFTW_MEASURE = 0, FFTW_ESTIMATE = 64,
! FFTW_REDFT10 = 5. Each routine below declares the ones it uses as parameters.

! ---------------------------------------------------------------------------------------
! Reference: direct multi-dimensional DFT of a column-major array of rank `rank`,
! sizes nd(1..rank): y(k) = sum_j x(j) exp(isign 2 pi i sum_l j_l k_l / nd(l)).
! ---------------------------------------------------------------------------------------
subroutine refdft(rank, nd, x, y, isign)
  implicit none
  integer rank, nd(*), isign
  complex*16 x(*), y(*)
  integer ntot, j, k, l, jj, kk, jl, kl
  real*8 ph, twopi
  complex*16 s
  twopi = 8d0 * atan(1d0)
  ntot = 1
  do l = 1, rank
    ntot = ntot * nd(l)
  end do
  do k = 0, ntot - 1
    s = (0d0, 0d0)
    do j = 0, ntot - 1
      ph = 0d0
      jj = j
      kk = k
      do l = 1, rank
        jl = mod(jj, nd(l))
        jj = jj / nd(l)
        kl = mod(kk, nd(l))
        kk = kk / nd(l)
        ph = ph + dble(mod(jl * kl, nd(l))) / dble(nd(l))
      end do
      s = s + x(j + 1) * exp(dcmplx(0d0, dble(isign) * twopi * ph))
    end do
    y(k + 1) = s
  end do
end subroutine refdft

! Deterministic test data.
subroutine zfill(x, n, seed)
  implicit none
  integer n, j
  complex*16 x(n)
  real*8 seed
  do j = 1, n
    x(j) = dcmplx(sin(0.7d0 * j + seed), cos(0.013d0 * j * j + 2d0 * seed))
  end do
end subroutine zfill

subroutine dfill(x, n, seed)
  implicit none
  integer n, j
  real*8 x(n), seed
  do j = 1, n
    x(j) = sin(0.53d0 * j + seed) + 0.25d0 * cos(0.011d0 * j * j + seed)
  end do
end subroutine dfill

! Result bookkeeping.
subroutine report(name, err, tol)
  implicit none
  character*(*) name
  real*8 err, tol
  integer nfail, npass
  common /tstat/ nfail, npass
  if (err <= tol) then
    npass = npass + 1
    write (*, '(a, a, a, es9.2, a)') 'PASS ', name, ' (err ', err, ')'
  else
    nfail = nfail + 1
    write (*, '(a, a, a, es9.2, a, es9.2, a)') 'FAIL ', name, ' (err ', err, ' > tol ', tol, ')'
  end if
end subroutine report

subroutine truth(name, ok)
  implicit none
  character*(*) name
  logical ok
  integer nfail, npass
  common /tstat/ nfail, npass
  if (ok) then
    npass = npass + 1
    write (*, '(a, a)') 'PASS ', name
  else
    nfail = nfail + 1
    write (*, '(a, a)') 'FAIL ', name
  end if
end subroutine truth

! Norm-wise errors: complex*16 / real*8 results against complex*16 / real*8 references.
real*8 function zerr(got, ref, n)
  implicit none
  integer n, j
  complex*16 got(n), ref(n)
  real*8 e, m
  e = 0d0
  m = 0d0
  do j = 1, n
    e = max(e, abs(got(j) - ref(j)))
    m = max(m, abs(ref(j)))
  end do
  zerr = e / max(m, 1d-300)
end function zerr

real*8 function derr(got, ref, n)
  implicit none
  integer n, j
  real*8 got(n), ref(n), e, m
  e = 0d0
  m = 0d0
  do j = 1, n
    e = max(e, abs(got(j) - ref(j)))
    m = max(m, abs(ref(j)))
  end do
  derr = e / max(m, 1d-300)
end function derr

! Wisdom through Fortran callbacks: the characters go to a common buffer; `cnt` is the
! data argument FFTW passes through.
subroutine wchar(c, cnt)
  implicit none
  character c
  integer cnt
  character*1 wbuf(400000)
  integer wlen
  common /wisdom/ wlen, wbuf
  cnt = cnt + 1
  if (wlen < 400000) then
    wlen = wlen + 1
    wbuf(wlen) = c
  end if
end subroutine wchar

subroutine rchar(ic, pos)
  implicit none
  integer ic, pos
  character*1 wbuf(400000)
  integer wlen
  common /wisdom/ wlen, wbuf
  pos = pos + 1
  if (pos > wlen) then
    ic = -1
  else
    ic = ichar(wbuf(pos))
  end if
end subroutine rchar

! =======================================================================================
! Double precision: dfftw_*
! =======================================================================================
subroutine dtests()
  implicit none
  integer FFTW_FORWARD, FFTW_BACKWARD, FFTW_ESTIMATE, FFTW_MEASURE, FFTW_REDFT10
  parameter (FFTW_FORWARD = -1, FFTW_BACKWARD = 1, FFTW_ESTIMATE = 64, FFTW_MEASURE = 0)
  parameter (FFTW_REDFT10 = 5)
  real*8 tol
  parameter (tol = 1d-10)
  integer*8 p, q
  complex*16 a(400), b(400), c(400), r(400), t(400)
  real*8 x(400), y(400), x0(400), ri(64), ii(64), ro(64), io(64), r2(64), i2(64)
  integer nd(3), inem(3), onem(3), gn(3), gis(3), gos(3), hn(2), his(2), hos(2)
  integer i, j, h, k, iret, nt, cnt, pos, isucc
  real*8 add, mul, fma, cst, ecst
  real*8 zerr, derr
  external wchar, rchar
  character*1 wbuf(400000)
  integer wlen
  common /wisdom/ wlen, wbuf

  ! ---- 1D complex: out of place forward, new arrays, in place backward -----------------
  call dfftw_plan_dft_1d(p, 12, a, b, FFTW_FORWARD, FFTW_ESTIMATE)
  call truth('d plan_dft_1d returns a plan', p /= 0)
  call zfill(a, 12, 0.1d0)
  call dfftw_execute(p)
  nd(1) = 12
  call refdft(1, nd, a, r, -1)
  call report('d c2c 1d forward (execute)', zerr(b, r, 12), tol)
  call zfill(c, 12, 0.7d0)
  call dfftw_execute_dft(p, c, t)
  call refdft(1, nd, c, r, -1)
  call report('d c2c 1d execute_dft new arrays', zerr(t, r, 12), tol)
  call dfftw_destroy_plan(p)

  call dfftw_plan_dft_1d(p, 12, c, c, FFTW_BACKWARD, FFTW_MEASURE)
  call zfill(c, 12, 0.3d0)
  a(1:12) = c(1:12)
  call dfftw_execute(p)
  call refdft(1, nd, a, r, 1)
  call report('d c2c 1d in-place backward (MEASURE)', zerr(c, r, 12), tol)
  call dfftw_destroy_plan(p)

  ! ---- 2D complex a(6,5): plan_dft_2d(nx=6, ny=5) --------------------------------------
  call dfftw_plan_dft_2d(p, 6, 5, a, b, FFTW_FORWARD, FFTW_ESTIMATE)
  call zfill(a, 30, 0.2d0)
  call dfftw_execute(p)
  nd(1) = 6
  nd(2) = 5
  call refdft(2, nd, a, r, -1)
  call report('d c2c 2d (6,5) plan_dft_2d', zerr(b, r, 30), tol)
  call dfftw_destroy_plan(p)

  ! ---- 3D complex a(4,3,5): plan_dft_3d forward, plan_dft(rank 3) backward --------------
  nd(1) = 4
  nd(2) = 3
  nd(3) = 5
  call dfftw_plan_dft_3d(p, 4, 3, 5, a, b, FFTW_FORWARD, FFTW_ESTIMATE)
  call zfill(a, 60, 0.4d0)
  call dfftw_execute(p)
  call refdft(3, nd, a, r, -1)
  call report('d c2c 3d (4,3,5) plan_dft_3d', zerr(b, r, 60), tol)
  call dfftw_destroy_plan(p)
  call dfftw_plan_dft(p, 3, nd, a, b, FFTW_BACKWARD, FFTW_ESTIMATE)
  call zfill(a, 60, 0.5d0)
  call dfftw_execute(p)
  call refdft(3, nd, a, r, 1)
  call report('d c2c 3d (4,3,5) plan_dft rank 3 backward', zerr(b, r, 60), tol)
  call dfftw_destroy_plan(p)

  ! ---- r2c / c2r 1D, n = 10 -------------------------------------------------------------
  call dfftw_plan_dft_r2c_1d(p, 10, x, a, FFTW_ESTIMATE)
  call dfill(x, 10, 0.1d0)
  call dfftw_execute(p)
  t(1:10) = dcmplx(x(1:10), 0d0)
  nd(1) = 10
  call refdft(1, nd, t, r, -1)
  call report('d r2c 1d n=10', zerr(a, r, 6), tol)
  call dfftw_plan_dft_c2r_1d(q, 10, c, y, FFTW_ESTIMATE)
  c(1:6) = a(1:6)
  call dfftw_execute(q)
  x0(1:10) = 10d0 * x(1:10)
  call report('d c2r 1d n=10 (= 10 x)', derr(y, x0, 10), tol)
  ! new arrays for both
  call dfill(x, 10, 0.9d0)
  call dfftw_execute_dft_r2c(p, x, b)
  t(1:10) = dcmplx(x(1:10), 0d0)
  call refdft(1, nd, t, r, -1)
  call report('d r2c 1d execute_dft_r2c new arrays', zerr(b, r, 6), tol)
  call dfftw_execute_dft_c2r(q, b, y)
  x0(1:10) = 10d0 * x(1:10)
  call report('d c2r 1d execute_dft_c2r new arrays', derr(y, x0, 10), tol)
  call dfftw_destroy_plan(p)
  call dfftw_destroy_plan(q)

  ! ---- r2c / c2r 2D x(6,5) -> a(4,5) -----------------------------------------------------
  call dfftw_plan_dft_r2c_2d(p, 6, 5, x, a, FFTW_ESTIMATE)
  call dfill(x, 30, 0.2d0)
  call dfftw_execute(p)
  t(1:30) = dcmplx(x(1:30), 0d0)
  nd(1) = 6
  nd(2) = 5
  call refdft(2, nd, t, r, -1)
  do j = 1, 5
    do i = 1, 4
      t(i + 4 * (j - 1)) = r(i + 6 * (j - 1))
    end do
  end do
  call report('d r2c 2d (6,5) plan_dft_r2c_2d', zerr(a, t, 20), tol)
  call dfftw_destroy_plan(p)
  call dfftw_plan_dft_c2r(p, 2, nd, c, y, FFTW_ESTIMATE)
  c(1:20) = a(1:20)
  call dfftw_execute(p)
  x0(1:30) = 30d0 * x(1:30)
  call report('d c2r 2d (6,5) plan_dft_c2r rank 2', derr(y, x0, 30), tol)
  call dfftw_destroy_plan(p)

  ! ---- r2c / c2r 3D x(6,4,3) -> a(4,4,3) -------------------------------------------------
  nd(1) = 6
  nd(2) = 4
  nd(3) = 3
  call dfftw_plan_dft_r2c(p, 3, nd, x, a, FFTW_ESTIMATE)
  call dfill(x, 72, 0.3d0)
  call dfftw_execute(p)
  t(1:72) = dcmplx(x(1:72), 0d0)
  call refdft(3, nd, t, r, -1)
  do k = 1, 3
    do j = 1, 4
      do i = 1, 4
        t(i + 4 * (j - 1) + 16 * (k - 1)) = r(i + 6 * (j - 1) + 24 * (k - 1))
      end do
    end do
  end do
  call report('d r2c 3d (6,4,3) plan_dft_r2c rank 3', zerr(a, t, 48), tol)
  call dfftw_destroy_plan(p)
  call dfftw_plan_dft_c2r_3d(p, 6, 4, 3, c, y, FFTW_ESTIMATE)
  c(1:48) = a(1:48)
  call dfftw_execute(p)
  x0(1:72) = 72d0 * x(1:72)
  call report('d c2r 3d (6,4,3) plan_dft_c2r_3d', derr(y, x0, 72), tol)
  call dfftw_destroy_plan(p)
  call dfftw_plan_dft_r2c_3d(p, 6, 4, 3, x, b, FFTW_ESTIMATE)
  call dfill(x, 72, 0.3d0)
  call dfftw_execute(p)
  call report('d r2c 3d (6,4,3) plan_dft_r2c_3d', zerr(b, a, 48), tol)
  call dfftw_destroy_plan(p)

  ! ---- plan_many_dft: 3 columns of a(8,3) ------------------------------------------------
  nd(1) = 8
  call dfftw_plan_many_dft(p, 1, nd, 3, a, nd, 1, 8, b, nd, 1, 8, FFTW_FORWARD, FFTW_ESTIMATE)
  call zfill(a, 24, 0.6d0)
  call dfftw_execute(p)
  do h = 0, 2
    call refdft(1, nd, a(1 + 8 * h), r(1 + 8 * h), -1)
  end do
  call report('d plan_many_dft 3 x n=8', zerr(b, r, 24), tol)
  call dfftw_destroy_plan(p)

  ! ---- plan_many_dft 2D (4,3) embedded in a(6,5,2) -> b(5,3,2) ---------------------------
  nd(1) = 4
  nd(2) = 3
  inem(1) = 6
  inem(2) = 5
  onem(1) = 5
  onem(2) = 3
  call dfftw_plan_many_dft(p, 2, nd, 2, a, inem, 1, 30, b, onem, 1, 15, FFTW_BACKWARD, FFTW_ESTIMATE)
  call zfill(a, 60, 0.8d0)
  b(1:30) = (0d0, 0d0)
  call dfftw_execute(p)
  do h = 0, 1
    do j = 1, 3
      do i = 1, 4
        t(i + 4 * (j - 1)) = a(i + 6 * (j - 1) + 30 * h)
        c(i + 4 * (j - 1) + 12 * h) = b(i + 5 * (j - 1) + 15 * h)
      end do
    end do
    call refdft(2, nd, t, r(1 + 12 * h), 1)
  end do
  call report('d plan_many_dft 2d (4,3) in inembed (6,5), onembed (5,3)', zerr(c, r, 24), tol)
  call dfftw_destroy_plan(p)

  ! ---- plan_many_dft_r2c / _c2r: 2 x n=8, x(8,2) -> a(5,2) -> y(8,2) ---------------------
  nd(1) = 8
  inem(1) = 8
  onem(1) = 5
  call dfftw_plan_many_dft_r2c(p, 1, nd, 2, x, inem, 1, 8, a, onem, 1, 5, FFTW_ESTIMATE)
  call dfill(x, 16, 0.4d0)
  call dfftw_execute(p)
  do h = 0, 1
    t(1:8) = dcmplx(x(1 + 8 * h:8 + 8 * h), 0d0)
    call refdft(1, nd, t, r(1 + 8 * h), -1)
    c(1 + 5 * h:5 + 5 * h) = r(1 + 8 * h:5 + 8 * h)
  end do
  call report('d plan_many_dft_r2c 2 x n=8', zerr(a, c, 10), tol)
  call dfftw_plan_many_dft_c2r(q, 1, nd, 2, c, onem, 1, 5, y, inem, 1, 8, FFTW_ESTIMATE)
  c(1:10) = a(1:10)
  call dfftw_execute(q)
  x0(1:16) = 8d0 * x(1:16)
  call report('d plan_many_dft_c2r 2 x n=8', derr(y, x0, 16), tol)
  call dfftw_destroy_plan(p)
  call dfftw_destroy_plan(q)

  ! ---- guru c2c: the 3 rows of a(3,8) (n=8 stride 3; howmany 3 stride 1) ----------------
  gn(1) = 8
  gis(1) = 3
  gos(1) = 3
  hn(1) = 3
  his(1) = 1
  hos(1) = 1
  call dfftw_plan_guru_dft(p, 1, gn, gis, gos, 1, hn, his, hos, a, b, FFTW_FORWARD, FFTW_ESTIMATE)
  call zfill(a, 24, 0.9d0)
  call dfftw_execute(p)
  nd(1) = 8
  do i = 1, 3
    do j = 1, 8
      t(j) = a(i + 3 * (j - 1))
    end do
    call refdft(1, nd, t, r, -1)
    do j = 1, 8
      c(i + 3 * (j - 1)) = r(j)
    end do
  end do
  call report('d plan_guru_dft rows of a(3,8)', zerr(b, c, 24), tol)
  call zfill(a, 24, 1.9d0)
  call dfftw_execute_dft(p, a, t)
  do i = 1, 3
    do j = 1, 8
      b(j) = a(i + 3 * (j - 1))
    end do
    call refdft(1, nd, b, r, -1)
    do j = 1, 8
      c(i + 3 * (j - 1)) = r(j)
    end do
  end do
  call report('d plan_guru_dft execute_dft new arrays', zerr(t, c, 24), tol)
  call dfftw_destroy_plan(p)

  ! ---- guru r2c rank 2: x(6,5) -> a(4,5); n = (5, 6): the halved dimension last ----------
  gn(1) = 5
  gis(1) = 6
  gos(1) = 4
  gn(2) = 6
  gis(2) = 1
  gos(2) = 1
  call dfftw_plan_guru_dft_r2c(p, 2, gn, gis, gos, 0, hn, his, hos, x, a, FFTW_ESTIMATE)
  call dfill(x, 30, 1.2d0)
  call dfftw_execute(p)
  t(1:30) = dcmplx(x(1:30), 0d0)
  nd(1) = 6
  nd(2) = 5
  call refdft(2, nd, t, r, -1)
  do j = 1, 5
    do i = 1, 4
      t(i + 4 * (j - 1)) = r(i + 6 * (j - 1))
    end do
  end do
  call report('d plan_guru_dft_r2c rank 2 (6,5)', zerr(a, t, 20), tol)
  call dfftw_destroy_plan(p)

  ! ---- guru c2r: 2 x n=8, a(5,2) -> y(8,2) ----------------------------------------------
  gn(1) = 8
  gis(1) = 1
  gos(1) = 1
  hn(1) = 2
  his(1) = 5
  hos(1) = 8
  call dfftw_plan_guru_dft_c2r(p, 1, gn, gis, gos, 1, hn, his, hos, c, y, FFTW_ESTIMATE)
  call dfill(x, 16, 0.45d0)
  nd(1) = 8
  do h = 0, 1
    t(1:8) = dcmplx(x(1 + 8 * h:8 + 8 * h), 0d0)
    call refdft(1, nd, t, r, -1)
    c(1 + 5 * h:5 + 5 * h) = r(1:5)
  end do
  call dfftw_execute(p)
  x0(1:16) = 8d0 * x(1:16)
  call report('d plan_guru_dft_c2r 2 x n=8', derr(y, x0, 16), tol)
  call dfftw_destroy_plan(p)

  ! ---- guru split c2c / r2c / c2r, n = 8 -------------------------------------------------
  gn(1) = 8
  gis(1) = 1
  gos(1) = 1
  call dfftw_plan_guru_split_dft(p, 1, gn, gis, gos, 0, hn, his, hos, ri, ii, ro, io, FFTW_ESTIMATE)
  call zfill(a, 8, 1.4d0)
  ri(1:8) = dble(a(1:8))
  ii(1:8) = dimag(a(1:8))
  call dfftw_execute(p)
  call refdft(1, nd, a, r, -1)
  b(1:8) = dcmplx(ro(1:8), io(1:8))
  call report('d plan_guru_split_dft n=8', zerr(b, r, 8), tol)
  call zfill(a, 8, 2.4d0)
  ri(1:8) = dble(a(1:8))
  ii(1:8) = dimag(a(1:8))
  call dfftw_execute_split_dft(p, ri, ii, r2, i2)
  call refdft(1, nd, a, r, -1)
  b(1:8) = dcmplx(r2(1:8), i2(1:8))
  call report('d execute_split_dft new arrays', zerr(b, r, 8), tol)
  call dfftw_destroy_plan(p)

  call dfftw_plan_guru_split_dft_r2c(p, 1, gn, gis, gos, 0, hn, his, hos, x, ro, io, FFTW_ESTIMATE)
  call dfftw_plan_guru_split_dft_c2r(q, 1, gn, gis, gos, 0, hn, his, hos, ri, ii, y, FFTW_ESTIMATE)
  call dfill(x, 8, 1.6d0)
  call dfftw_execute(p)
  t(1:8) = dcmplx(x(1:8), 0d0)
  call refdft(1, nd, t, r, -1)
  b(1:5) = dcmplx(ro(1:5), io(1:5))
  call report('d plan_guru_split_dft_r2c n=8', zerr(b, r, 5), tol)
  ri(1:5) = ro(1:5)
  ii(1:5) = io(1:5)
  call dfftw_execute(q)
  x0(1:8) = 8d0 * x(1:8)
  call report('d plan_guru_split_dft_c2r n=8', derr(y, x0, 8), tol)
  call dfill(x, 8, 2.6d0)
  call dfftw_execute_split_dft_r2c(p, x, r2, i2)
  call dfftw_execute_split_dft_c2r(q, r2, i2, y)
  x0(1:8) = 8d0 * x(1:8)
  call report('d execute_split_dft_r2c/_c2r new arrays', derr(y, x0, 8), tol)
  call dfftw_destroy_plan(p)
  call dfftw_destroy_plan(q)

  ! ---- threads ---------------------------------------------------------------------------
  iret = 0
  call dfftw_init_threads(iret)
  call truth('d init_threads(iret) iret /= 0', iret /= 0)
  call dfftw_plan_with_nthreads(2)
  nt = -1
  call dfftw_planner_nthreads(nt)
  call truth('d planner_nthreads = 2', nt == 2)
  call dfftw_plan_dft_2d(p, 16, 12, a, b, FFTW_FORWARD, FFTW_ESTIMATE)
  call zfill(a, 192, 0.15d0)
  call dfftw_execute(p)
  nd(1) = 16
  nd(2) = 12
  call refdft(2, nd, a, r, -1)
  call report('d c2c 2d (16,12) with 2 threads', zerr(b, r, 192), tol)
  call dfftw_plan_with_nthreads(1)

  ! ---- plan information ------------------------------------------------------------------
  add = -1d0
  mul = -1d0
  fma = -1d0
  call dfftw_flops(p, add, mul, fma)
  call truth('d flops(p, add, mul, fma) > 0', add >= 0d0 .and. mul >= 0d0 .and. fma >= 0d0 &
             .and. add + mul + fma > 0d0)
  ecst = -1d0
  cst = -1d0
  call dfftw_estimate_cost(ecst, p)
  call dfftw_cost(cst, p)
  call truth('d estimate_cost(cost, p) > 0, cost(cost, p) >= 0', ecst > 0d0 .and. cst >= 0d0)
  write (*, '(a)') 'INFO d print_plan:'
  flush (6)
  call dfftw_print_plan(p)
  write (*, '(a)') ''
  call dfftw_set_timelimit(5d0)
  call dfftw_destroy_plan(p)

  ! ---- wisdom through Fortran callbacks --------------------------------------------------
  call dfftw_plan_dft_1d(p, 16, a, b, FFTW_FORWARD, FFTW_MEASURE)
  wlen = 0
  cnt = 0
  call dfftw_export_wisdom(wchar, cnt)
  call truth('d export_wisdom(write_char, data) wrote characters', cnt > 0 .and. cnt == wlen)
  call dfftw_forget_wisdom()
  pos = 0
  isucc = -1
  call dfftw_import_wisdom(isucc, rchar, pos)
  call truth('d import_wisdom(isuccess, read_char, data) = 1', isucc == 1 .and. pos > 0)
  isucc = -1
  call dfftw_import_system_wisdom(isucc)
  call truth('d import_system_wisdom(isuccess) answers 0 or 1', isucc == 0 .or. isucc == 1)
  call dfftw_destroy_plan(p)

  ! ---- r2r: FFTW plans it; abft does not provide r2r and returns a 0 plan -----------------
  call dfftw_plan_r2r_1d(p, 8, x, y, FFTW_REDFT10, FFTW_ESTIMATE)
  if (p /= 0) then
    write (*, '(a)') 'INFO d plan_r2r_1d: a plan (r2r provided)'
    call dfill(x, 8, 0.5d0)
    call dfftw_execute_r2r(p, x, y)
    call dfftw_destroy_plan(p)
  else
    write (*, '(a)') 'INFO d plan_r2r_1d: 0 plan (r2r not provided)'
  end if

  call dfftw_cleanup_threads()
  call dfftw_cleanup()
end subroutine dtests

! =======================================================================================
! Single precision: sfftw_* (references in double precision)
! =======================================================================================
subroutine stests()
  implicit none
  integer FFTW_FORWARD, FFTW_BACKWARD, FFTW_ESTIMATE
  parameter (FFTW_FORWARD = -1, FFTW_BACKWARD = 1, FFTW_ESTIMATE = 64)
  real*8 tol
  parameter (tol = 2d-5)
  integer*8 p, q
  complex*8 a(200), b(200), c(200)
  real*4 x(200), y(200)
  complex*16 za(200), zr(200), zt(200), zb(200)
  real*8 dx(200), dy(200)
  integer nd(3), gn(2), gis(2), gos(2), hn(1), his(1), hos(1)
  integer i, j, h, iret, nt, cnt
  real*8 add, mul, fma
  real*8 zerr, derr
  external wchar, rchar
  character*1 wbuf(400000)
  integer wlen
  common /wisdom/ wlen, wbuf

  ! ---- 1D c2c n=12 and new arrays --------------------------------------------------------
  call sfftw_plan_dft_1d(p, 12, a, b, FFTW_FORWARD, FFTW_ESTIMATE)
  call truth('s plan_dft_1d returns a plan', p /= 0)
  call zfill(za, 12, 0.1d0)
  a(1:12) = cmplx(za(1:12), kind=4)
  call sfftw_execute(p)
  nd(1) = 12
  za(1:12) = dcmplx(a(1:12))
  call refdft(1, nd, za, zr, -1)
  zb(1:12) = dcmplx(b(1:12))
  call report('s c2c 1d forward', zerr(zb, zr, 12), tol)
  call zfill(za, 12, 1.1d0)
  c(1:12) = cmplx(za(1:12), kind=4)
  za(1:12) = dcmplx(c(1:12))
  call sfftw_execute_dft(p, c, b)
  call refdft(1, nd, za, zr, -1)
  zb(1:12) = dcmplx(b(1:12))
  call report('s c2c 1d execute_dft new arrays', zerr(zb, zr, 12), tol)
  call sfftw_destroy_plan(p)

  ! ---- 2D c2c a(6,5) backward ------------------------------------------------------------
  call sfftw_plan_dft_2d(p, 6, 5, a, b, FFTW_BACKWARD, FFTW_ESTIMATE)
  call zfill(za, 30, 0.2d0)
  a(1:30) = cmplx(za(1:30), kind=4)
  za(1:30) = dcmplx(a(1:30))
  call sfftw_execute(p)
  nd(1) = 6
  nd(2) = 5
  call refdft(2, nd, za, zr, 1)
  zb(1:30) = dcmplx(b(1:30))
  call report('s c2c 2d (6,5) backward', zerr(zb, zr, 30), tol)
  call sfftw_destroy_plan(p)

  ! ---- 3D c2c via plan_dft_3d (4,3,5) ----------------------------------------------------
  nd(1) = 4
  nd(2) = 3
  nd(3) = 5
  call sfftw_plan_dft_3d(p, 4, 3, 5, a, b, FFTW_FORWARD, FFTW_ESTIMATE)
  call zfill(za, 60, 0.4d0)
  a(1:60) = cmplx(za(1:60), kind=4)
  za(1:60) = dcmplx(a(1:60))
  call sfftw_execute(p)
  call refdft(3, nd, za, zr, -1)
  zb(1:60) = dcmplx(b(1:60))
  call report('s c2c 3d (4,3,5)', zerr(zb, zr, 60), tol)
  call sfftw_destroy_plan(p)

  ! ---- r2c / c2r 2D x(6,5) -> a(4,5) -----------------------------------------------------
  call sfftw_plan_dft_r2c_2d(p, 6, 5, x, a, FFTW_ESTIMATE)
  call sfftw_plan_dft_c2r_2d(q, 6, 5, c, y, FFTW_ESTIMATE)
  call dfill(dx, 30, 0.2d0)
  x(1:30) = real(dx(1:30), 4)
  dx(1:30) = dble(x(1:30))
  call sfftw_execute(p)
  zt(1:30) = dcmplx(dx(1:30), 0d0)
  nd(1) = 6
  nd(2) = 5
  call refdft(2, nd, zt, zr, -1)
  do j = 1, 5
    do i = 1, 4
      zt(i + 4 * (j - 1)) = zr(i + 6 * (j - 1))
    end do
  end do
  zb(1:20) = dcmplx(a(1:20))
  call report('s r2c 2d (6,5)', zerr(zb, zt, 20), tol)
  c(1:20) = a(1:20)
  call sfftw_execute(q)
  dy(1:30) = dble(y(1:30))
  dx(1:30) = 30d0 * dx(1:30)
  call report('s c2r 2d (6,5) (= 30 x)', derr(dy, dx, 30), tol)
  call sfftw_execute_dft_r2c(p, x, b)
  call sfftw_execute_dft_c2r(q, b, y)
  dy(1:30) = dble(y(1:30))
  call report('s execute_dft_r2c/_c2r new arrays', derr(dy, dx, 30), tol)
  call sfftw_destroy_plan(p)
  call sfftw_destroy_plan(q)

  ! ---- plan_many_dft 3 x n=8 -------------------------------------------------------------
  nd(1) = 8
  call sfftw_plan_many_dft(p, 1, nd, 3, a, nd, 1, 8, b, nd, 1, 8, FFTW_FORWARD, FFTW_ESTIMATE)
  call zfill(za, 24, 0.6d0)
  a(1:24) = cmplx(za(1:24), kind=4)
  za(1:24) = dcmplx(a(1:24))
  call sfftw_execute(p)
  do h = 0, 2
    call refdft(1, nd, za(1 + 8 * h), zr(1 + 8 * h), -1)
  end do
  zb(1:24) = dcmplx(b(1:24))
  call report('s plan_many_dft 3 x n=8', zerr(zb, zr, 24), tol)
  call sfftw_destroy_plan(p)

  ! ---- guru r2c rank 2: x(6,5) -> a(4,5), n = (5, 6) -------------------------------------
  gn(1) = 5
  gis(1) = 6
  gos(1) = 4
  gn(2) = 6
  gis(2) = 1
  gos(2) = 1
  call sfftw_plan_guru_dft_r2c(p, 2, gn, gis, gos, 0, hn, his, hos, x, a, FFTW_ESTIMATE)
  call dfill(dx, 30, 1.2d0)
  x(1:30) = real(dx(1:30), 4)
  call sfftw_execute(p)
  zt(1:30) = dcmplx(dble(x(1:30)), 0d0)
  nd(1) = 6
  nd(2) = 5
  call refdft(2, nd, zt, zr, -1)
  do j = 1, 5
    do i = 1, 4
      zt(i + 4 * (j - 1)) = zr(i + 6 * (j - 1))
    end do
  end do
  zb(1:20) = dcmplx(a(1:20))
  call report('s plan_guru_dft_r2c rank 2 (6,5)', zerr(zb, zt, 20), tol)
  call sfftw_destroy_plan(p)

  ! ---- threads -----------------------------------------------------------------------------
  iret = 0
  call sfftw_init_threads(iret)
  call truth('s init_threads(iret) iret /= 0', iret /= 0)
  call sfftw_plan_with_nthreads(2)
  nt = -1
  call sfftw_planner_nthreads(nt)
  call truth('s planner_nthreads = 2', nt == 2)
  call sfftw_plan_dft_2d(p, 16, 12, a, b, FFTW_FORWARD, FFTW_ESTIMATE)
  call zfill(za, 192, 0.15d0)
  a(1:192) = cmplx(za(1:192), kind=4)
  za(1:192) = dcmplx(a(1:192))
  call sfftw_execute(p)
  nd(1) = 16
  nd(2) = 12
  call refdft(2, nd, za, zr, -1)
  zb(1:192) = dcmplx(b(1:192))
  call report('s c2c 2d (16,12) with 2 threads', zerr(zb, zr, 192), tol)
  call sfftw_plan_with_nthreads(1)
  add = -1d0
  mul = -1d0
  fma = -1d0
  call sfftw_flops(p, add, mul, fma)
  call truth('s flops(p, add, mul, fma) > 0', add + mul + fma > 0d0)
  call sfftw_destroy_plan(p)

  wlen = 0
  cnt = 0
  call sfftw_export_wisdom(wchar, cnt)
  call truth('s export_wisdom(write_char, data) wrote characters', cnt > 0 .and. cnt == wlen)

  call sfftw_cleanup_threads()
  call sfftw_cleanup()
end subroutine stests
