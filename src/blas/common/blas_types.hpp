/** \file blas_types.hpp
 *  \brief Types and argument vocabulary shared by every layer of the BLAS shim.
 *
 *  The shim is stacked in three layers (docs/ARCHITECTURE.md, "BLAS shim"):
 *    CBLAS entry  (cblas_*: layout mapping, CBLAS-only enum checks)
 *      -> Fortran-style entry (one argument check per routine, one place)
 *        -> core (templates over float, double, cfloat, cdouble; arguments already valid).
 *  Fortran conventions: gfortran, LP64 (INTEGER is 32-bit), arguments by reference,
 *  CHARACTER arguments carry a hidden size_t length appended after all others.
 */
#pragma once
#include <complex>
#include <cstddef>
#include <type_traits>

namespace abft::blas {

using blas_int = int;          ///< Fortran INTEGER (LP64)
using flen = std::size_t;      ///< gfortran hidden CHARACTER length (GCC >= 8)
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

/** op(X). R (conjugate, no transpose) never comes from a Fortran caller; the CBLAS layer
 *  uses it where a row-major complex call maps onto conj(A) in column-major terms. */
enum class Op { N, T, C, R };
enum class Uplo { U, L };
enum class Side { L, R };
enum class Diag { N, U };

/** ASCII upper case, as LSAME compares (case-insensitive, first character only). */
inline char upper(char c) { return (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c; }

inline bool parse_op(char c, Op& o) {
  switch (upper(c)) {
    case 'N': o = Op::N; return true;
    case 'T': o = Op::T; return true;
    case 'C': o = Op::C; return true;
    default: return false;
  }
}
inline bool parse_uplo(char c, Uplo& u) {
  switch (upper(c)) {
    case 'U': u = Uplo::U; return true;
    case 'L': u = Uplo::L; return true;
    default: return false;
  }
}
inline bool parse_side(char c, Side& s) {
  switch (upper(c)) {
    case 'L': s = Side::L; return true;
    case 'R': s = Side::R; return true;
    default: return false;
  }
}
inline bool parse_diag(char c, Diag& d) {
  switch (upper(c)) {
    case 'N': d = Diag::N; return true;
    case 'U': d = Diag::U; return true;
    default: return false;
  }
}

template <class T> struct real_of { using type = T; };
template <class R> struct real_of<std::complex<R>> { using type = R; };
template <class T> using real_t = typename real_of<T>::type;

template <class T> struct is_complex : std::false_type {};
template <class R> struct is_complex<std::complex<R>> : std::true_type {};
template <class T> inline constexpr bool is_complex_v = is_complex<T>::value;

/** conj for complex, identity for real (no promotion to complex, unlike std::conj). */
template <class T> inline T conj_if(const T& x) {
  if constexpr (is_complex_v<T>) return std::conj(x); else return x;
}
/** |re| + |im| for complex (BLAS's CABS1), |x| for real. */
template <class T> inline real_t<T> abs1(const T& x) {
  if constexpr (is_complex_v<T>) return std::abs(x.real()) + std::abs(x.imag());
  else return x < T(0) ? -x : x;
}

inline blas_int max1(blas_int x) { return x > 1 ? x : 1; }

}  // namespace abft::blas
