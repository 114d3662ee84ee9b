/** \file shim.cpp
 *  \brief The BLAS shim's rows and injection sites for the shared drop-in runtime.
 */
#include "blas/common/shim.hpp"

namespace abft::blas {
namespace {

constexpr int kRoutines = int(Routine::COUNT_);
constexpr const char* kNames[kRoutines] = {
    "sgemm",  "dgemm",  "cgemm",  "zgemm",  "ssymm",  "dsymm",  "csymm",  "zsymm",
    "chemm",  "zhemm",  "ssyrk",  "dsyrk",  "csyrk",  "zsyrk",  "cherk",  "zherk",
    "ssyr2k", "dsyr2k", "csyr2k", "zsyr2k", "cher2k", "zher2k", "strmm",  "dtrmm",
    "ctrmm",  "ztrmm",  "strsm",  "dtrsm",  "ctrsm",  "ztrsm"};

constexpr unsigned bit(abft_site s) { return 1u << unsigned(s); }
constexpr shim::SiteOption kSites[] = {
    {"output", bit(ABFT_SITE_OUTPUT)},
    {"accumulator", bit(ABFT_SITE_ACCUMULATOR)},
    {"compute", bit(ABFT_SITE_OUTPUT) | bit(ABFT_SITE_ACCUMULATOR)},
    {"packed", bit(ABFT_SITE_PACKED_A) | bit(ABFT_SITE_PACKED_B)},
    {"any", bit(ABFT_SITE_OUTPUT) | bit(ABFT_SITE_ACCUMULATOR) | bit(ABFT_SITE_PACKED_A) |
                bit(ABFT_SITE_PACKED_B)}};

}  // namespace

const char* routine_name(Routine r) {
  const int i = int(r);
  return (i >= 0 && i < kRoutines) ? kNames[i] : "unknown";
}

shim::Runtime& blas_runtime() {
  static const shim::Config cfg{"abft-blas", "Level-3 routines called", kNames, kRoutines,
                                kSites, int(sizeof kSites / sizeof kSites[0]), "compute"};
  static shim::Runtime* rt = new shim::Runtime(cfg);  // never destroyed: read at exit
  return *rt;
}

// The report must be registered even when the program never makes a protected call.
static const bool g_shim_started = (blas_runtime(), true);

}  // namespace abft::blas
