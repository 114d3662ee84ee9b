/** \file error.hpp
 *  \brief The transformer runtime's exception: a status and a message that says what and where
 *  ("model.safetensors: tensor 'h.0.attn.c_attn.weight' has shape [768, 2304], expected ...").
 *  The runtime is a C++ layer over the C API; it reports bad input by throwing this, never by
 *  exiting, and no exception leaves one of its OpenMP regions.
 */
#pragma once
#include <stdexcept>
#include <string>

#include "abft/abft.h"

namespace abft::transformer {

class Error : public std::runtime_error {
 public:
  Error(abft_status status, const std::string& what) : std::runtime_error(what), status_(status) {}
  abft_status status() const noexcept { return status_; }

 private:
  abft_status status_;
};

}  // namespace abft::transformer
