/** \file cblas_level2.h
 *  \brief CBLAS Level-2 prototypes (included by abft/cblas.h, inside its extern "C").
 */
#pragma once
