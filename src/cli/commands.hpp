/** \file commands.hpp
 *  \brief Sub-commands of the `abft` command-line tool and the small helpers they share.
 */
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace abft {
class Handle;
}

namespace abft::cli {

/** `abft info`: version, CPU features, GEMM and FFT kernels, threads, policy, CUDA devices.
 *  argv holds the arguments after the command name. Returns the process exit code. */
int cmd_info(int argc, char** argv);

/** `abft demo`: protected GEMMs, FFTs and attention calls with injected faults, compared with
 *  clean runs. */
int cmd_demo(int argc, char** argv);

/** `abft infer`: load or build a transformer, generate from prompts (text or token ids) on
 *  the protected kernels, print the continuations, the speed and the error statistics
 *  (cmd_infer.cpp). */
int cmd_infer(int argc, char** argv);

/** `abft train`: train a transformer on the shipped corpus (or given files) on the protected
 *  kernels, optionally with injected faults; per-step summaries or a progress bar, the error
 *  statistics, a JSON report (cmd_train.cpp). */
int cmd_train(int argc, char** argv);

/** `abft campaign`: a fault-injection campaign over one kernel: trials classified against
 *  clean runs, false-positive trials, a watchdog, summary/CSV/JSON (cmd_campaign.cpp). */
int cmd_campaign(int argc, char** argv);

/** Options of `abft demo`. */
struct DemoOptions {
  uint64_t seed = 42;
  bool quick = false;
  bool verbose = false;
  bool gemm = true;       ///< run the GEMM part (--only fft|attention clears it)
  bool fft = true;        ///< run the FFT part (--only gemm|attention clears it)
  bool attention = true;  ///< run the attention part (--only gemm|fft clears it)
};

/** Protected calls of one demo part: run, matching the clean run, and of those
 *  the matches only within the checksum bound (MASKED). */
struct DemoTally {
  int runs = 0, matches = 0, masked = 0;
};

/** The FFT part of `abft demo` (cmd_demo_fft.cpp): protected FFT plans on `prot`
 *  (policy correct) with faults from a seeded injector it attaches for the part,
 *  each run compared bitwise with a clean run of the same plan. Prints its table. */
void demo_fft(const DemoOptions& opt, abft::Handle& prot, DemoTally& tally);

/** The attention part of `abft demo` (cmd_demo_attention.cpp): protected forward and
 *  backward calls on `prot` (policy correct) with faults from a seeded injector it attaches
 *  for the part, each compared bitwise with a clean run of the same call. Prints its table. */
void demo_attention(const DemoOptions& opt, abft::Handle& prot, DemoTally& tally);

/** Usage text of the whole tool. */
void print_usage(std::FILE* out);

/** Parse a whole decimal (or 0x-prefixed hex) unsigned integer; false on any junk,
 *  sign or overflow, so that bad arguments are reported rather than misread. */
bool parse_u64(const char* text, uint64_t* out);

/** Parse a whole, finite floating-point number (strtod syntax, no blanks, no "nan"/"inf",
 *  no overflow); false on anything else. */
bool parse_double(const char* text, double* out);

/** "ABFT_STATUS_FAULT_DETECTED: ..." -> "FAULT_DETECTED" (for one-line tables). */
std::string short_status(int status);

}  // namespace abft::cli
