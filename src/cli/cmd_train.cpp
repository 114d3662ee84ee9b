/** \file cmd_train.cpp
 *  \brief `abft train`: training a transformer on the protected kernels, optionally with
 *  injected faults, on the corpus shipped in the repository (README.md and docs/, read as
 *  bytes) or on given files.
 *
 *  Every step prints one line (loss, gradient norm, tokens/s and the step's fault counters),
 *  or, on a terminal, redraws a progress bar in place (a step that left a fault unrepaired
 *  still gets its line). At the end: the error statistics of the whole run, optionally a checkpoint
 *  (--save), a generation from the trained model (--generate) and a JSON report (--json).
 *
 *  Exit status: 0; 1 when a fault stayed unrepaired (uncorrectable, or detected under policy
 *  detect), when a step failed (a non-finite gradient, as faults under policy off can cause)
 *  or on a runtime error; 2 on a bad command line.
 */
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "abft/transformer/config.hpp"
#include "abft/transformer/error.hpp"
#include "abft/transformer/generate.hpp"
#include "abft/transformer/injection.hpp"
#include "abft/transformer/tokenizer.hpp"
#include "abft/transformer/train.hpp"
#include "commands.hpp"
#include "runtime/json.hpp"
#include "runtime_args.hpp"

#ifndef ABFT_SOURCE_DIR
#define ABFT_SOURCE_DIR "."
#endif

namespace abft::cli {

namespace {

namespace tr = abft::transformer;
namespace json = abft::transformer::json;

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: abft train [options]\n"
               "\n"
               "model (default: --config gpt2-demo, random weights from --seed):\n"
               "  --config PRESET       gpt2-tiny, gpt2-demo, gpt2-small, llama-tiny, llama-demo,\n"
               "                        llama-small\n"
               "  --model DIR           start from a Hugging Face checkpoint directory\n"
               "  --load FILE           start from these safetensors weights\n"
               "  --seed N              initialization and data order (default 1)\n"
               "data (default: the shipped corpus, README.md and docs/*.md as bytes):\n"
               "  --data FILE...        train on these files instead (as bytes)\n"
               "  --corpus-root DIR     the source tree to read the corpus from\n"
               "                        (default " ABFT_SOURCE_DIR ")\n"
               "optimization:\n"
               "  --steps N             optimizer steps (default 100)\n"
               "  --batch B --seq T     sequences and tokens per micro-batch (default 8, 64)\n"
               "  --accum A             micro-batches per step (default 1)\n"
               "  --lr X                peak learning rate (default 3e-3)\n"
               "  --weight-decay X      AdamW decoupled weight decay (default 0.1)\n"
               "  --clip X              gradient norm limit, 0: none (default 1)\n"
               "  --warmup N            linear warmup steps (default 0)\n"
               "protection and output:\n"
               "  --policy P            off | detect | correct (default correct)\n"
               "  --engine E            cpu | gpu: the whole pass on the CUDA engine, resident on\n"
               "                        the device (needs a GPU build and a device)\n"
               "  --inject SPEC         rate=R,per=call|flop,model=M,bit=B,sites=S+S..,seed=N\n"
               "  --check-time          estimate the time spent checking (sampled shadow runs)\n"
               "  --json FILE           report: settings, per-step losses and counters, statistics\n"
               "  --per-layer           statistics per layer (default: per op)\n"
               "  --save DIR            write config.json + model.safetensors after training\n"
               "  --generate N          then generate N tokens from --prompt (default \"The \")\n"
               "  --temperature T --top-k K   sampling of that generation (default greedy)\n"
               "  --threads N           OpenMP threads (default: all)\n"
               "  --quiet               no per-step output\n"
               "exit status: 0; 1 if a fault stayed unrepaired, a step failed or on an error;\n"
               "             2 on bad options\n");
}

struct TrainCli {
  ModelSource model;
  tr::TrainOptions train;
  std::vector<std::string> data;
  std::string corpus_root = ABFT_SOURCE_DIR;
  std::string save_dir;
  abft::Policy policy = abft::Policy::Correct;
  abft::transformer::Engine engine = abft::transformer::Engine::Cpu;
  tr::InjectionSettings injection;
  std::string json_path;
  bool per_layer = false, check_time = false, quiet = false, help = false;
  int64_t generate = 0;
  std::string prompt = "The ";
  double temperature = 0.0;
  int64_t top_k = 0;
  int threads = 0;
};

TrainCli parse(int argc, char** argv) {
  TrainCli o;
  o.model.preset = "gpt2-demo";
  ArgReader a(argc, argv);
  bool have_config = false;
  while (!a.done()) {
    a.next();
    if (a.is("--help") || a.is("-h")) {
      o.help = true;
    } else if (a.is("--config")) {
      o.model.preset = a.value("a preset name");
      have_config = true;
    } else if (a.is("--model")) {
      o.model.dir = a.value("a directory");
    } else if (a.is("--load")) {
      o.model.weights = a.value("a .safetensors file");
    } else if (a.is("--seed")) {
      o.model.seed = u64_value(a);
      o.train.seed = o.model.seed;
    } else if (a.is("--steps")) {
      o.train.steps = positive_value(a);
    } else if (a.is("--batch")) {
      o.train.batch = positive_value(a);
    } else if (a.is("--seq")) {
      o.train.seq = positive_value(a);
    } else if (a.is("--accum")) {
      o.train.accum = positive_value(a);
    } else if (a.is("--lr")) {
      o.train.adamw.lr = double_value(a);
      if (o.train.adamw.lr < 0) throw UsageError("--lr needs a number >= 0");
    } else if (a.is("--weight-decay")) {
      o.train.adamw.weight_decay = double_value(a);
      if (o.train.adamw.weight_decay < 0) throw UsageError("--weight-decay needs a number >= 0");
    } else if (a.is("--clip")) {
      o.train.adamw.clip = double_value(a);
    } else if (a.is("--warmup")) {
      o.train.adamw.warmup = int64_t(u64_value(a));
    } else if (a.is("--data")) {
      o.data.push_back(a.value("a file"));
      while (a.has_plain_next()) o.data.push_back(a.next());
    } else if (a.is("--corpus-root")) {
      o.corpus_root = a.value("a directory");
    } else if (a.is("--save")) {
      o.save_dir = a.value("a directory");
    } else if (a.is("--policy")) {
      o.policy = policy_value(a);
    } else if (a.is("--engine")) {
      o.engine = engine_value(a);
    } else if (a.is("--inject")) {
      const std::string spec = a.value("an injection spec");
      try {
        o.injection = tr::InjectionSettings::parse(spec);
      } catch (const tr::Error& e) {
        throw UsageError(std::string("--inject: ") + e.what());
      }
    } else if (a.is("--json")) {
      o.json_path = a.value("a file name");
    } else if (a.is("--per-layer")) {
      o.per_layer = true;
    } else if (a.is("--check-time")) {
      o.check_time = true;
    } else if (a.is("--generate")) {
      o.generate = int64_t(u64_value(a));
    } else if (a.is("--prompt")) {
      o.prompt = a.value("a text");
    } else if (a.is("--temperature")) {
      o.temperature = double_value(a);
      if (o.temperature < 0) throw UsageError("--temperature needs a number >= 0");
    } else if (a.is("--top-k")) {
      o.top_k = int64_t(u64_value(a));
    } else if (a.is("--threads")) {
      o.threads = int(positive_value(a));
    } else if (a.is("--quiet") || a.is("-q")) {
      o.quiet = true;
    } else {
      throw UsageError(std::string("unknown option '") + a.current() + "'");
    }
  }
  if (!o.model.dir.empty() && have_config)
    throw UsageError("--model and --config exclude each other");
  if (o.generate > (int64_t(1) << 30)) throw UsageError("--generate is too large");
  return o;
}

std::string read_files(const std::vector<std::string>& files) {
  std::string text;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) throw tr::Error(ABFT_STATUS_INVALID_VALUE, f + ": cannot open");
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw tr::Error(ABFT_STATUS_INVALID_VALUE, f + ": read failed");
    text += ss.str();
  }
  return text;
}

/** One step's line: "step 12/100 loss 2.3456 |g| 0.812 tok/s 5123 | checks .. injected ..". */
std::string step_line(const tr::StepResult& r, int64_t steps) {
  char b[160];
  std::snprintf(b, sizeof b, "step %lld/%lld loss %.4f |g| %.3f tok/s %.0f | ",
                static_cast<long long>(r.step), static_cast<long long>(steps), r.loss,
                r.grad_norm, r.seconds > 0 ? double(r.tokens) / r.seconds : 0.0);
  return b + r.stats.summary_line();
}

/** The progress bar, redrawn in place. */
void draw_bar(const tr::StepResult& r, int64_t steps, const tr::OpCounters& run) {
  const int width = 30;
  const int filled = int(double(width) * double(r.step) / double(steps));
  std::string bar(size_t(filled), '#');
  bar.append(size_t(width - filled), '.');
  std::printf("\r[%s] %lld/%lld loss %.4f  %.0f tok/s  faults: detected %llu corrected %llu "
              "uncorrectable %llu\033[K",
              bar.c_str(), static_cast<long long>(r.step), static_cast<long long>(steps), r.loss,
              r.seconds > 0 ? double(r.tokens) / r.seconds : 0.0,
              static_cast<unsigned long long>(run.detected),
              static_cast<unsigned long long>(run.corrected),
              static_cast<unsigned long long>(run.uncorrectable));
  std::fflush(stdout);
}

std::string counters_json(const tr::OpCounters& c) {
  return "\"checks\": " + std::to_string(c.checks) + ", \"detected\": " +
         std::to_string(c.detected) + ", \"corrected\": " + std::to_string(c.corrected) +
         ", \"recomputed\": " + std::to_string(c.recomputed) + ", \"uncorrectable\": " +
         std::to_string(c.uncorrectable) + ", \"injected\": " + std::to_string(c.injected);
}

/** What the report keeps of a step: its numbers and fault counters (not its whole table). */
struct StepRecord {
  int64_t step = 0, tokens = 0;
  double loss = 0, grad_norm = 0, seconds = 0;
  tr::OpCounters totals;
};

bool unrepaired(const tr::OpCounters& t, abft::Policy p) {
  return t.uncorrectable > 0 || (p == abft::Policy::Detect && t.detected > 0);
}

int run(const TrainCli& o) {
  set_threads(o.threads);
  tr::ModelOptions mo;
  mo.policy = o.policy;
  mo.engine = o.engine;
  mo.threads = o.threads;
  mo.check_timing = o.check_time;
  const std::unique_ptr<tr::Model> model = load_model(o.model, mo);
  tr::Model& m = *model;
  const tr::Config& cfg = m.config();
  if (o.train.seq > cfg.context)
    throw UsageError("--seq " + std::to_string(o.train.seq) + " exceeds the model's context of " +
                     std::to_string(cfg.context));

  // The token stream: bytes (folded into a vocabulary smaller than 256).
  const std::string text = o.data.empty() ? tr::read_corpus(o.corpus_root) : read_files(o.data);
  const std::unique_ptr<tr::Tokenizer> tok = tr::make_byte_tokenizer();
  std::vector<int32_t> stream = encode_for(*tok, text, cfg.vocab, "train");
  if (int64_t(stream.size()) < o.train.seq + 1)
    throw UsageError("the training text has " + std::to_string(stream.size()) +
                     " tokens; --seq " + std::to_string(o.train.seq) + " needs at least " +
                     std::to_string(o.train.seq + 1));
  const size_t corpus_tokens = stream.size();

  std::vector<int32_t> prompt_ids;
  if (o.generate > 0) {
    prompt_ids = encode_for(*tok, o.prompt, cfg.vocab, "train");
    if (prompt_ids.empty()) throw UsageError("--prompt is empty");
    if (int64_t(prompt_ids.size()) + o.generate > cfg.context)
      throw UsageError("--prompt (" + std::to_string(prompt_ids.size()) + " tokens) + --generate " +
                       std::to_string(o.generate) + " exceed the model's context of " +
                       std::to_string(cfg.context));
  }

  m.set_injection(o.injection);
  tr::TokenLoader loader(std::move(stream), o.train.seed);
  tr::Trainer trainer(m, loader, o.train);

  std::printf("abft train: %s %s, %lld layers, d_model %lld, %.2f M parameters (%s)\n",
              tr::arch_name(cfg.arch), o.model.dir.empty() ? o.model.preset.c_str() : "model",
              static_cast<long long>(cfg.layers), static_cast<long long>(cfg.d_model),
              double(cfg.parameter_count()) * 1e-6, o.model.describe().c_str());
  std::printf("data: %s, %zu tokens (bytes)\n",
              o.data.empty() ? ("corpus of " + o.corpus_root).c_str() : "given files",
              corpus_tokens);
  std::printf("%lld steps x %lld micro-batches of %lld x %lld tokens, lr %g (warmup %lld), "
              "weight decay %g, clip %g, seed %llu\n",
              static_cast<long long>(o.train.steps), static_cast<long long>(o.train.accum),
              static_cast<long long>(o.train.batch), static_cast<long long>(o.train.seq),
              o.train.adamw.lr, static_cast<long long>(o.train.adamw.warmup),
              o.train.adamw.weight_decay, o.train.adamw.clip,
              static_cast<unsigned long long>(o.train.seed));
  std::printf("policy %s, injection %s\n\n", policy_name(o.policy),
              o.injection.enabled() ? o.injection.describe().c_str() : "off");
  std::fflush(stdout);

  const bool tty = !o.quiet && isatty(fileno(stdout));
  std::vector<StepRecord> results;
  std::string step_error;
  tr::OpCounters running;
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t s = 0; s < o.train.steps; ++s) {
    tr::StepResult r;
    try {
      r = trainer.step();
    } catch (const tr::Error& e) {
      step_error = "step " + std::to_string(s + 1) + ": " + e.what();
      if (tty) std::printf("\n");
      std::fprintf(stderr, "abft train: %s; training stopped\n", step_error.c_str());
      break;
    }
    const tr::OpCounters st = r.stats.total();
    running.add(st);
    if (tty) {
      // A step that left a fault unrepaired keeps its line above the bar.
      if (unrepaired(st, o.policy)) std::printf("\r%s\033[K\n", step_line(r, o.train.steps).c_str());
      draw_bar(r, o.train.steps, running);
    } else if (!o.quiet) {
      std::printf("%s\n", step_line(r, o.train.steps).c_str());
      std::fflush(stdout);
    }
    results.push_back({r.step, r.tokens, r.loss, r.grad_norm, r.seconds, st});
  }
  if (tty) std::printf("\n");
  const double total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int64_t total_tokens = 0;
  for (const StepRecord& r : results) total_tokens += r.tokens;

  const tr::RunStats train_stats = m.stats();
  const tr::OpCounters tt = train_stats.total();
  bool failed = unrepaired(tt, o.policy) || !step_error.empty();
  std::printf("\n%zu steps in %.2f s, %.0f tokens/s", results.size(), total_seconds,
              total_seconds > 0 ? double(total_tokens) / total_seconds : 0.0);
  if (!results.empty())
    std::printf(", loss %.4f -> %.4f", results.front().loss, results.back().loss);
  std::printf("\n\nerror statistics of training (policy %s):\n%s", policy_name(o.policy),
              train_stats.table(o.per_layer).c_str());

  if (!o.save_dir.empty() && step_error.empty()) {
    m.save_pretrained(o.save_dir);
    std::printf("model saved to %s\n", o.save_dir.c_str());
  }

  std::string gen_json;
  if (o.generate > 0 && step_error.empty()) {
    m.stats().reset();
    tr::SampleOptions so;
    so.max_new_tokens = o.generate;
    so.temperature = o.temperature;
    so.top_k = o.top_k;
    so.seed = o.model.seed;
    const tr::Generation g = tr::generate(m, {prompt_ids}, so);
    const std::string out = tok->decode(g.tokens[0]);
    std::printf("\ngeneration (%lld tokens, %s, %.0f tokens/s):\n\"%s\" -> \"%s\"\n",
                static_cast<long long>(o.generate), o.temperature > 0 ? "sampled" : "greedy",
                g.decode_seconds > 0 ? double(g.decode_tokens) / g.decode_seconds : 0.0,
                printable(o.prompt).c_str(), printable(out).c_str());
    const tr::OpCounters gt = m.stats().total();
    std::printf("generation faults: %s\n", m.stats().summary_line().c_str());
    failed = failed || unrepaired(gt, o.policy);
    gen_json = "{\"prompt\": " + json::quote(utf8_clean(o.prompt)) + ", \"ids\": " +
               ids_json(g.tokens[0]) + ", \"text\": " + json::quote(utf8_clean(out)) +
               ", \"decode_seconds\": " + json::number(g.decode_seconds) +
               ", \"stats\": " + m.stats().json() + "}";
  }

  std::printf("\nfaults: %s -> %s\n", train_stats.summary_line().c_str(),
              failed ? (step_error.empty() ? "UNREPAIRED" : "FAILED") : "ok");

  if (!o.json_path.empty()) {
    std::string j = "{\"command\": \"train\", \"settings\": {";
    j += "\"model\": " + json::quote(o.model.describe());
    j += ", \"arch\": " + json::quote(tr::arch_name(cfg.arch));
    j += ", \"layers\": " + std::to_string(cfg.layers);
    j += ", \"d_model\": " + std::to_string(cfg.d_model);
    j += ", \"parameters\": " + std::to_string(cfg.parameter_count());
    j += ", \"data\": " + json::quote(o.data.empty() ? o.corpus_root : "files");
    j += ", \"corpus_tokens\": " + std::to_string(corpus_tokens);
    j += ", \"steps\": " + std::to_string(o.train.steps);
    j += ", \"batch\": " + std::to_string(o.train.batch);
    j += ", \"seq\": " + std::to_string(o.train.seq);
    j += ", \"accum\": " + std::to_string(o.train.accum);
    j += ", \"lr\": " + json::number(o.train.adamw.lr);
    j += ", \"weight_decay\": " + json::number(o.train.adamw.weight_decay);
    j += ", \"clip\": " + json::number(o.train.adamw.clip);
    j += ", \"warmup\": " + std::to_string(o.train.adamw.warmup);
    j += ", \"seed\": " + std::to_string(o.train.seed);
    j += ", \"policy\": " + json::quote(policy_name(o.policy));
    j += ", \"engine\": " + json::quote(engine_name(o.engine));
    j += ", \"injection\": " +
         (o.injection.enabled() ? json::quote(o.injection.describe()) : std::string("null"));
    j += ", \"threads\": " + std::to_string(o.threads) + "}";
    j += ", \"steps\": [";
    for (size_t i = 0; i < results.size(); ++i) {
      const StepRecord& r = results[i];
      if (i) j += ", ";
      j += "{\"step\": " + std::to_string(r.step) + ", \"loss\": " + json::number(r.loss) +
           ", \"grad_norm\": " + json::number(r.grad_norm) +
           ", \"seconds\": " + json::number(r.seconds) +
           ", \"tokens\": " + std::to_string(r.tokens) + ", " +
           counters_json(r.totals) + "}";
    }
    j += "]";
    j += ", \"final_loss\": " + (results.empty() ? std::string("null") : json::number(results.back().loss));
    j += ", \"seconds\": " + json::number(total_seconds);
    j += ", \"tokens_per_second\": " +
         json::number(total_seconds > 0 ? double(total_tokens) / total_seconds : 0.0);
    j += ", \"stats\": " + train_stats.json();
    if (!gen_json.empty()) j += ", \"generation\": " + gen_json;
    if (!step_error.empty()) j += ", \"error\": " + json::quote(step_error);
    j += std::string(", \"ok\": ") + (failed ? "false" : "true") + "}\n";
    write_file(o.json_path, j);
    std::printf("report written to %s\n", o.json_path.c_str());
  }
  return failed ? 1 : 0;
}

}  // namespace

int cmd_train(int argc, char** argv) {
  return guarded_command("train", [&] {
    const TrainCli o = parse(argc, argv);
    if (o.help) {
      usage(stdout);
      return 0;
    }
    return run(o);
  });
}

}  // namespace abft::cli
