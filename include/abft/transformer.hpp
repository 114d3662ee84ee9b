/** \file transformer.hpp
 *  \brief The transformer runtime in one include: configuration, weights (safetensors, Hugging
 *  Face names), the protected model, generation, training, tokenizers, statistics, injection.
 */
#pragma once
#include "abft/transformer/config.hpp"
#include "abft/transformer/error.hpp"
#include "abft/transformer/generate.hpp"
#include "abft/transformer/injection.hpp"
#include "abft/transformer/model.hpp"
#include "abft/transformer/safetensors.hpp"
#include "abft/transformer/stats.hpp"
#include "abft/transformer/tokenizer.hpp"
#include "abft/transformer/train.hpp"
#include "abft/transformer/weights.hpp"
