/** \file level2.hpp
 *  \brief The Level-2 BLAS cores (column-major templates over float, double, cfloat,
 *  cdouble; arguments already valid): general, Hermitian/symmetric, triangular and
 *  rank-update routines. The checked entries that call them are in level2_entry.hpp.
 */
#pragma once
#include "blas/level2/gemv_core.hpp"
#include "blas/level2/hemv_core.hpp"
#include "blas/level2/rank_core.hpp"
#include "blas/level2/triangular_core.hpp"
