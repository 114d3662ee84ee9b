/** \file attn_reference.hpp
 *  \brief The double-precision reference of abft/attention.h the attention tests share:
 *  abft/checksum/attention_reference.hpp (one copy with the campaign's attention adapter,
 *  which judges escapes by the same limits), under the tests' name attn_ref.
 */
#pragma once
#include "abft/checksum/attention_reference.hpp"

namespace attn_ref = abft::checksum::attn_ref;
