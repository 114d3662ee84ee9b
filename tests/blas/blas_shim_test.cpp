/** \file blas_shim_test.cpp
 *  \brief The shim's common layer: lsame_, xerbla_ returning, the oracle's presence.
 */
#include <gtest/gtest.h>

#include "ref_blas.hpp"

extern "C" int lsame_(const char*, const char*, size_t, size_t);
extern "C" void xerbla_(const char*, const int*, size_t);

TEST(BlasShim, LsameIsCaseInsensitiveOnTheFirstCharacter) {
  EXPECT_TRUE(lsame_("n", "N", 1, 1));
  EXPECT_TRUE(lsame_("Trans", "T", 5, 1));
  EXPECT_FALSE(lsame_("C", "T", 1, 1));
}

TEST(BlasShim, XerblaReturnsInsteadOfStopping) {
  const int info = 3;
  testing::internal::CaptureStderr();
  xerbla_("DGEMM ", &info, 6);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("DGEMM parameter number  3"), std::string::npos) << err;
}

TEST(BlasShim, ReferenceOracleIsAvailable) {
  if (!RefBlas::get().ok()) GTEST_SKIP() << RefBlas::get().why();
  EXPECT_NE(RefBlas::get().fn<void()>("dgemm_"), nullptr);
}
