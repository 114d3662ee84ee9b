/** \file kernel_blas3.cpp
 *  \brief Placeholder: the blas3 adapter is being written. */
#include "campaign/kernel.hpp"

namespace abft::campaign {

std::unique_ptr<Kernel> make_blas3_kernel(const KernelOptions& o, std::string* error) {
  *error = "kernel '" + o.kernel + "' is not built yet";
  return nullptr;
}

}  // namespace abft::campaign
