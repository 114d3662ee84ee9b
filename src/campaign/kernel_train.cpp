/** \file kernel_train.cpp
 *  \brief Placeholder: the train adapter is being written. */
#include "campaign/kernel.hpp"

namespace abft::campaign {

std::unique_ptr<Kernel> make_train_kernel(const KernelOptions& o, std::string* error) {
  *error = "kernel '" + o.kernel + "' is not built yet";
  return nullptr;
}

}  // namespace abft::campaign
