/** \file options.cpp
 *  \brief Names of the campaign's outcomes, sites, models and patterns (campaign.hpp). Site
 *  and model names are the transformer runtime's (`--inject sites=...`), so one spelling
 *  serves every command.
 */
#include <string>

#include "abft/transformer/injection.hpp"
#include "campaign/campaign.hpp"

namespace abft::campaign {

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Masked: return "masked";
    case Outcome::Corrected: return "corrected";
    case Outcome::Recomputed: return "recomputed";
    case Outcome::Detected: return "detected";
    case Outcome::Uncorrectable: return "uncorrectable";
    case Outcome::Sdc: return "sdc";
    case Outcome::BadRepair: return "bad-repair";
    case Outcome::NotLanded: return "not-landed";
    case Outcome::Error: return "error";
    case Outcome::Crash: return "crash";
    case Outcome::Hang: return "hang";
    default: return "unknown";
  }
}

bool outcome_is_failure(Outcome o) {
  return o == Outcome::Sdc || o == Outcome::BadRepair || o == Outcome::Error ||
         o == Outcome::Crash || o == Outcome::Hang;
}

bool outcome_is_detected(Outcome o) {
  return o == Outcome::Corrected || o == Outcome::Recomputed || o == Outcome::Detected ||
         o == Outcome::Uncorrectable || o == Outcome::BadRepair;
}

const char* clean_outcome_name(CleanOutcome o) {
  switch (o) {
    case CleanOutcome::None: return "";
    case CleanOutcome::Ok: return "ok";
    case CleanOutcome::FalsePositive: return "false-positive";
    case CleanOutcome::Mismatch: return "mismatch";
    default: return "unknown";
  }
}

const char* site_label(abft_site s) { return abft::transformer::site_name(s); }
const char* model_label(abft_fault_model m) { return abft::transformer::fault_model_name(m); }

bool parse_site(const std::string& name, abft_site* out) {
  for (int i = 0; i < ABFT_SITE_COUNT_; ++i)
    if (name == site_label(abft_site(i))) {
      *out = abft_site(i);
      return true;
    }
  return false;
}

bool parse_model(const std::string& name, abft_fault_model* out) {
  for (int i = 0; i < ABFT_FAULT_MODEL_COUNT_; ++i)
    if (name == model_label(abft_fault_model(i))) {
      *out = abft_fault_model(i);
      return true;
    }
  return false;
}

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::SameRow: return "row";
    case Pattern::SameCol: return "col";
    default: return "independent";
  }
}

}  // namespace abft::campaign
