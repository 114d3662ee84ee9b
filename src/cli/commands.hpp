/** \file commands.hpp
 *  \brief Sub-commands of the `abft` command-line tool and the small helpers they share.
 */
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace abft::cli {

/** `abft info`: version, CPU features, GEMM kernels, threads, policy, CUDA devices.
 *  argv holds the arguments after the command name. Returns the process exit code. */
int cmd_info(int argc, char** argv);

/** `abft demo`: protected GEMMs with injected faults, compared with clean runs. */
int cmd_demo(int argc, char** argv);

/** Usage text of the whole tool. */
void print_usage(std::FILE* out);

/** Parse a whole decimal (or 0x-prefixed hex) unsigned integer; false on any junk,
 *  sign or overflow, so that bad arguments are reported rather than misread. */
bool parse_u64(const char* text, uint64_t* out);

/** "ABFT_STATUS_FAULT_DETECTED: ..." -> "FAULT_DETECTED" (for one-line tables). */
std::string short_status(int status);

}  // namespace abft::cli
