*> \file unmodified_blas.f
*> \brief The Fortran-77 twin of unmodified_blas.c: a plain program linked only against
*> the system libblas, run on abft's libblas.so.3 (LD_LIBRARY_PATH) clean and under
*> injected faults.
*>
*> It calls DGEMM and DTRSM the way Fortran codes do (string arguments with hidden
*> lengths, column-major arrays with leading dimensions larger than the rows) on
*> deterministic data, and checks every element against a naive loop within the
*> classical rounding bound, 2 (K+2) EPS (|ALPHA| |A||B| + |BETA||C|), EPS = u. For
*> DTRSM the check is on the residual, |A X - ALPHA B| <= 2 (M+2) EPS (|A||X| +
*> |ALPHA B|) (backward stability of substitution, Higham 8.1), so it needs no inverse.
*> The naive loops run in double precision too; their own rounding is inside the
*> factor 2 of headroom. Prints one line per call; STOP 1 if anything is off.
      PROGRAM UNMODIFIED_BLAS
      IMPLICIT NONE
      INTEGER M, N, K, LDA, LDB, LDC
      PARAMETER (M = 97, N = 83, K = 151, LDA = M + 2, LDB = K + 1,
     $           LDC = M + 3)
      DOUBLE PRECISION A(LDA, K), B(LDB, N), C(LDC, N), C0(LDC, N)
      DOUBLE PRECISION T(LDA, M), X(LDA, N), B0(LDA, N)
      DOUBLE PRECISION ALPHA, BETA, S, MAG, ERR, TOL, WORST, U
      INTEGER I, J, L, ROUND, NBAD
      LOGICAL FAILED
      DOUBLE PRECISION NEXTV
      EXTERNAL NEXTV, DGEMM, DTRSM
      INTEGER*8 STATE
      COMMON /LCG/ STATE
*
      U = EPSILON(1.0D0) / 2
      FAILED = .FALSE.
      DO 100 ROUND = 1, 3
         STATE = 12345 * ROUND
*        --- DGEMM: C = ALPHA A B + BETA C -------------------------------
         ALPHA = 0.75D0
         BETA = -1.25D0
         DO 10 J = 1, K
            DO 10 I = 1, LDA
   10          A(I, J) = NEXTV()
         DO 11 J = 1, N
            DO 11 I = 1, LDB
   11          B(I, J) = NEXTV()
         DO 12 J = 1, N
            DO 12 I = 1, LDC
               C(I, J) = NEXTV()
   12          C0(I, J) = C(I, J)
         CALL DGEMM('N', 'N', M, N, K, ALPHA, A, LDA, B, LDB, BETA, C,
     $              LDC)
         WORST = 0
         NBAD = 0
         DO 14 J = 1, N
            DO 14 I = 1, LDC
               IF (I .GT. M) THEN
*                 Padding rows below M are not DGEMM's to touch.
                  IF (C(I, J) .NE. C0(I, J)) NBAD = NBAD + 1
                  GO TO 14
               END IF
               S = 0
               MAG = 0
               DO 13 L = 1, K
                  S = S + A(I, L) * B(L, J)
   13             MAG = MAG + ABS(A(I, L) * B(L, J))
               ERR = ABS(C(I, J) - (ALPHA * S + BETA * C0(I, J)))
               TOL = 2 * (K + 2) * U * (ABS(ALPHA) * MAG +
     $               ABS(BETA) * ABS(C0(I, J)))
               IF (.NOT. (ERR .LE. TOL)) NBAD = NBAD + 1
               WORST = MAX(WORST, ERR / TOL)
   14    CONTINUE
         CALL REPORT('DGEMM NN', ROUND, WORST, NBAD, FAILED)
*        --- DTRSM: solve T X = ALPHA B0, T upper triangular -------------
         ALPHA = -1.5D0
         DO 20 J = 1, M
            DO 20 I = 1, LDA
   20          T(I, J) = NEXTV() / (M / 4.0D0)
         DO 21 I = 1, M
   21       T(I, I) = 2 + ABS(T(I, I))
         DO 22 J = 1, N
            DO 22 I = 1, LDA
               X(I, J) = NEXTV()
   22          B0(I, J) = X(I, J)
         CALL DTRSM('L', 'U', 'N', 'N', M, N, ALPHA, T, LDA, X, LDA)
         WORST = 0
         NBAD = 0
         DO 24 J = 1, N
            DO 24 I = 1, M
               S = 0
               MAG = 0
               DO 23 L = I, M
                  S = S + T(I, L) * X(L, J)
   23             MAG = MAG + ABS(T(I, L) * X(L, J))
               ERR = ABS(S - ALPHA * B0(I, J))
               TOL = 2 * (M + 2) * U * (MAG + ABS(ALPHA * B0(I, J)))
               IF (.NOT. (ERR .LE. TOL)) NBAD = NBAD + 1
               WORST = MAX(WORST, ERR / TOL)
   24    CONTINUE
         CALL REPORT('DTRSM LUNN', ROUND, WORST, NBAD, FAILED)
  100 CONTINUE
      IF (FAILED) THEN
         WRITE (*, '(A)') 'FAILED: results off their rounding bounds'
         STOP 1
      END IF
      WRITE (*, '(A)') 'all results within their rounding bounds'
      END
*
*> One line per call: name, round, worst error / bound, verdict.
      SUBROUTINE REPORT(NAME, ROUND, WORST, NBAD, FAILED)
      CHARACTER*(*) NAME
      INTEGER ROUND, NBAD
      DOUBLE PRECISION WORST
      LOGICAL FAILED
      IF (NBAD .EQ. 0) THEN
         WRITE (*, 9000) NAME, ROUND, 'ok  ', WORST
      ELSE
         WRITE (*, 9000) NAME, ROUND, 'FAIL', WORST
         WRITE (*, '(I8, A)') NBAD, ' elements off their bound'
         FAILED = .TRUE.
      END IF
 9000 FORMAT (1X, A12, ' round', I2, 2X, A4,
     $        '  max err/bound vs naive loop ', 1P, E9.2)
      END
*
*> Uniform in [-1, 1) from an LCG modulo 2**31 (in 64-bit integers): same data everywhere.
      DOUBLE PRECISION FUNCTION NEXTV()
      INTEGER*8 STATE
      COMMON /LCG/ STATE
      STATE = MOD(STATE * 1103515245_8 + 12345_8, 2147483648_8)
      NEXTV = DBLE(STATE) / 1073741824.0D0 - 1
      END
