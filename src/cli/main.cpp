/** \file main.cpp
 *  \brief Entry point of the `abft` tool: dispatch to a sub-command, usage on bad input.
 */
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

#include "abft/abft.h"
#include "commands.hpp"

namespace abft::cli {

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "usage: abft <command> [options]\n"
               "\n"
               "commands:\n"
               "  info                 version, CPU features, GEMM and FFT kernels per type, the\n"
               "                       attention kernels, OpenMP threads, default policy, CUDA\n"
               "                       devices (or why there are none)\n"
               "  demo [--seed N] [--quick] [--verbose] [--only gemm|fft|attention]\n"
               "                       protected GEMMs, FFTs and attention (forward, backward)\n"
               "                       with faults injected at every site, each compared with a\n"
               "                       clean run; prints the statistics table; exits 1 if any\n"
               "                       result differs from the clean run\n"
               "  infer [--model DIR | --config PRESET] [--weights FILE] [--prompt TEXT]...\n"
               "        [--ids 1,2,3]... [--max-new N] [--temperature T] [--top-k K]\n"
               "        [--policy off|detect|correct] [--inject SPEC] [--logits FILE.npy]\n"
               "        [--json FILE] [--per-layer] [--seed N] [--tokenizer DIR] [--threads N]\n"
               "                       generate with a GPT-2 or Llama-style transformer whose every\n"
               "                       product and attention call is protected; prints the\n"
               "                       continuations, tokens/s and the error statistics per op\n"
               "  train [--config PRESET | --model DIR] [--steps N] [--batch B] [--seq T]\n"
               "        [--accum A] [--lr X] [--weight-decay X] [--clip X] [--warmup N]\n"
               "        [--seed N] [--data FILE]... [--corpus-root DIR] [--load FILE]\n"
               "        [--save DIR] [--policy P] [--inject SPEC] [--json FILE] [--per-layer]\n"
               "        [--check-time] [--generate N] [--prompt TEXT] [--threads N] [--quiet]\n"
               "                       train on the shipped corpus (README and docs, bytes) with\n"
               "                       protected forward and backward passes, faults optionally\n"
               "                       injected; exits 1 if a fault stayed unrepaired\n"
               "                       (`abft infer --help`, `abft train --help`: every option)\n"
               "  campaign --kernel K [--type T] [--sizes ..] [--model M] [--bit B] [--site S]\n"
               "        [--faults N] [--pattern row|col] [--trials N] [--seed S] [--jobs N] ...\n"
               "                       fault-injection campaign: every trial classified against a\n"
               "                       clean run (masked, corrected, sdc, ...), false positives,\n"
               "                       a watchdog; tables by site and bit, CSV, JSON\n"
               "                       (`abft campaign --help`: every option)\n"
               "  help, --help, -h     this text\n"
               "\n"
               "environment: ABFT_POLICY=off|detect|correct  ABFT_ISA=reference|avx2|avx512\n"
               "             ABFT_STATS=text|json  OMP_NUM_THREADS=N\n"
               "injection SPEC: rate=R,per=call|flop,model=bitflip|bitflip2|random|zero|nan|inf|-inf,\n"
               "             bit=B,sites=output+accumulator+packed_a+packed_b+attn_scores+...,seed=S\n");
}

bool parse_u64(const char* text, uint64_t* out) {
  if (!text || !*text || *text == '-' || *text == '+' || *text == ' ') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 0);
  if (errno == ERANGE || !end || *end != '\0') return false;
  *out = static_cast<uint64_t>(v);
  return true;
}

bool parse_double(const char* text, double* out) {
  if (!text || !*text || std::isspace(static_cast<unsigned char>(*text))) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (!end || *end != '\0' || !std::isfinite(v)) return false;
  if (errno == ERANGE && v != 0.0) return false;  // overflow (underflow to a tiny value is fine)
  *out = v;
  return true;
}

std::string short_status(int status) {
  std::string s = abft_status_string(static_cast<abft_status>(status));
  const size_t colon = s.find(':');
  if (colon != std::string::npos) s.resize(colon);
  const std::string prefix = "ABFT_STATUS_";
  if (s.compare(0, prefix.size(), prefix) == 0) s.erase(0, prefix.size());
  return s;
}

}  // namespace abft::cli

int main(int argc, char** argv) {
  using namespace abft::cli;
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  const char* cmd = argv[1];
  try {
    if (!std::strcmp(cmd, "info")) return cmd_info(argc - 2, argv + 2);
    if (!std::strcmp(cmd, "demo")) return cmd_demo(argc - 2, argv + 2);
    if (!std::strcmp(cmd, "infer")) return cmd_infer(argc - 2, argv + 2);
    if (!std::strcmp(cmd, "train")) return cmd_train(argc - 2, argv + 2);
    if (!std::strcmp(cmd, "campaign")) return cmd_campaign(argc - 2, argv + 2);
    if (!std::strcmp(cmd, "help") || !std::strcmp(cmd, "--help") || !std::strcmp(cmd, "-h")) {
      print_usage(stdout);
      return 0;
    }
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "abft: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "abft: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "abft: unknown command '%s'\n\n", cmd);
  print_usage(stderr);
  return 2;
}
