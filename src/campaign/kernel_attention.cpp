/** \file kernel_attention.cpp
 *  \brief Placeholder: the attention adapter is being written. */
#include "campaign/kernel.hpp"

namespace abft::campaign {

std::unique_ptr<Kernel> make_attention_kernel(const KernelOptions& o, std::string* error) {
  *error = "kernel '" + o.kernel + "' is not built yet";
  return nullptr;
}

}  // namespace abft::campaign
