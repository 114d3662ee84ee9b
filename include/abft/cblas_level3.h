/** \file cblas_level3.h
 *  \brief CBLAS Level-3 prototypes (included by abft/cblas.h, inside its extern "C").
 */
#pragma once
