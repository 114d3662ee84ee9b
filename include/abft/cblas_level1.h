/** \file cblas_level1.h
 *  \brief CBLAS Level-1 prototypes (included by abft/cblas.h, inside its extern "C").
 */
#pragma once
