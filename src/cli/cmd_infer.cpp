/** \file cmd_infer.cpp
 *  \brief `abft infer`: generation with a transformer whose products and attention calls run
 *  on the protected kernels (policy off / detect / correct), optionally with injected faults.
 *
 *  The model comes from a Hugging Face directory (config.json + model.safetensors), or a
 *  preset with random weights from a seed, or a preset with a safetensors file. Prompts are
 *  text (GPT-2 BPE when the tokenizer directory has vocab.json and merges.txt, else bytes) or
 *  token ids. Prints each continuation (text and ids), prefill and decode tokens/s and the
 *  error statistics per op; --json writes them as a report, --logits the logits each new
 *  token was drawn from as a float32 .npy of [prompts x new tokens, vocab].
 *
 *  Exit status: 0; 1 when a fault stayed unrepaired (uncorrectable, or detected under policy
 *  detect) or on a runtime error; 2 on a bad command line.
 */
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "abft/transformer/config.hpp"
#include "abft/transformer/error.hpp"
#include "abft/transformer/generate.hpp"
#include "abft/transformer/injection.hpp"
#include "abft/transformer/tokenizer.hpp"
#include "commands.hpp"
#include "runtime/json.hpp"
#include "runtime_args.hpp"

namespace abft::cli {

namespace {

namespace tr = abft::transformer;
namespace json = abft::transformer::json;

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: abft infer [options]\n"
               "\n"
               "model (default: --config gpt2-demo, random weights from --seed):\n"
               "  --model DIR           Hugging Face checkpoint: config.json, model.safetensors\n"
               "                        (and vocab.json + merges.txt for GPT-2's tokenizer)\n"
               "  --config PRESET       a preset (gpt2-tiny, gpt2-demo, gpt2-small, llama-tiny,\n"
               "                        llama-demo, llama-small) with random weights\n"
               "  --weights FILE        safetensors weights for the preset (or the directory)\n"
               "  --seed N              random initialization and sampling seed (default 1)\n"
               "prompts (default: --prompt \"The \"):\n"
               "  --prompt TEXT         a text prompt (repeat for a batch)\n"
               "  --ids 1,2,3           a prompt as token ids (repeat for a batch)\n"
               "  --tokenizer DIR       vocab.json + merges.txt (else --model DIR's, else bytes)\n"
               "generation:\n"
               "  --max-new N           new tokens per prompt (default 32)\n"
               "  --temperature T       0: greedy (default); > 0: sampling\n"
               "  --top-k K             sample among the K most likely (0: all)\n"
               "protection and output:\n"
               "  --policy P            off | detect | correct (default correct)\n"
               "  --engine E            cpu | gpu: the whole pass on the CUDA engine, resident on\n"
               "                        the device (needs a GPU build and a device)\n"
               "  --inject SPEC         rate=R,per=call|flop,model=M,bit=B,sites=S+S..,seed=N\n"
               "  --check-time          estimate the time spent checking (sampled shadow runs)\n"
               "  --logits FILE.npy     the logits of every new token, float32 [rows, vocab]\n"
               "  --json FILE           report: settings, tokens, timing, statistics\n"
               "  --per-layer           statistics per layer (default: per op)\n"
               "  --threads N           OpenMP threads (default: all)\n"
               "exit status: 0; 1 if a fault stayed unrepaired or on an error; 2 on bad options\n");
}

struct InferOptions {
  ModelSource model;
  std::string tokenizer_dir;
  std::vector<std::string> texts;                 // prompts in command-line order:
  std::vector<std::vector<int32_t>> id_prompts;   // each entry of `order` says which list
  std::vector<bool> order_is_ids;
  tr::SampleOptions sample;
  abft::Policy policy = abft::Policy::Correct;
  abft::transformer::Engine engine = abft::transformer::Engine::Cpu;
  tr::InjectionSettings injection;
  bool check_time = false;
  std::string logits_path, json_path;
  bool per_layer = false;
  int threads = 0;
  bool help = false;
};

std::vector<int32_t> parse_ids(const std::string& v) {
  std::vector<int32_t> ids;
  size_t start = 0;
  for (;;) {
    const size_t comma = v.find(',', start);
    const std::string item = v.substr(start, comma == std::string::npos ? std::string::npos
                                                                        : comma - start);
    uint64_t id = 0;
    if (!parse_u64(item.c_str(), &id) || id > 0x7fffffffull)
      throw UsageError("--ids needs comma-separated token ids, got '" + v + "'");
    ids.push_back(int32_t(id));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ids;
}

InferOptions parse(int argc, char** argv) {
  InferOptions o;
  o.model.preset = "gpt2-demo";
  o.sample.max_new_tokens = 32;
  ArgReader a(argc, argv);
  bool have_config = false;
  while (!a.done()) {
    a.next();
    if (a.is("--help") || a.is("-h")) {
      o.help = true;
    } else if (a.is("--model")) {
      o.model.dir = a.value("a directory");
    } else if (a.is("--config")) {
      o.model.preset = a.value("a preset name");
      have_config = true;
    } else if (a.is("--weights")) {
      o.model.weights = a.value("a .safetensors file");
    } else if (a.is("--seed")) {
      o.model.seed = u64_value(a);
      o.sample.seed = o.model.seed;
    } else if (a.is("--prompt")) {
      o.texts.push_back(a.value("a text"));
      o.order_is_ids.push_back(false);
    } else if (a.is("--ids")) {
      o.id_prompts.push_back(parse_ids(a.value("comma-separated token ids")));
      o.order_is_ids.push_back(true);
    } else if (a.is("--tokenizer")) {
      o.tokenizer_dir = a.value("a directory");
    } else if (a.is("--max-new")) {
      o.sample.max_new_tokens = int64_t(u64_value(a));
    } else if (a.is("--temperature")) {
      o.sample.temperature = double_value(a);
      if (o.sample.temperature < 0) throw UsageError("--temperature needs a number >= 0");
    } else if (a.is("--top-k")) {
      o.sample.top_k = int64_t(u64_value(a));
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
    } else if (a.is("--check-time")) {
      o.check_time = true;
    } else if (a.is("--logits")) {
      o.logits_path = a.value("a file name");
    } else if (a.is("--json")) {
      o.json_path = a.value("a file name");
    } else if (a.is("--per-layer")) {
      o.per_layer = true;
    } else if (a.is("--threads")) {
      o.threads = int(positive_value(a));
    } else {
      throw UsageError(std::string("unknown option '") + a.current() + "'");
    }
  }
  if (!o.model.dir.empty() && have_config)
    throw UsageError("--model and --config exclude each other");
  if (o.order_is_ids.empty()) {
    o.texts.push_back("The ");
    o.order_is_ids.push_back(false);
  }
  if (o.sample.max_new_tokens > (int64_t(1) << 30))
    throw UsageError("--max-new is too large");
  return o;
}

std::string settings_json(const InferOptions& o, const tr::Model& m, const std::string& tok) {
  std::string s = "{";
  s += "\"model\": " + json::quote(o.model.describe());
  s += ", \"arch\": " + json::quote(tr::arch_name(m.config().arch));
  s += ", \"layers\": " + std::to_string(m.config().layers);
  s += ", \"d_model\": " + std::to_string(m.config().d_model);
  s += ", \"vocab\": " + std::to_string(m.config().vocab);
  s += ", \"parameters\": " + std::to_string(m.config().parameter_count());
  s += ", \"tokenizer\": " + json::quote(tok);
  s += ", \"policy\": " + json::quote(policy_name(o.policy));
  s += ", \"engine\": " + json::quote(engine_name(o.engine));
  s += ", \"injection\": " + (o.injection.enabled() ? json::quote(o.injection.describe()) : "null");
  s += ", \"max_new_tokens\": " + std::to_string(o.sample.max_new_tokens);
  s += ", \"temperature\": " + json::number(o.sample.temperature);
  s += ", \"top_k\": " + std::to_string(o.sample.top_k);
  s += ", \"seed\": " + std::to_string(o.sample.seed);
  s += ", \"threads\": " + std::to_string(o.threads);
  return s + "}";
}

double per_second(int64_t n, double s) { return s > 0 ? double(n) / s : 0.0; }

int run(const InferOptions& o) {
  set_threads(o.threads);
  tr::ModelOptions mo;
  mo.policy = o.policy;
  mo.engine = o.engine;
  mo.threads = o.threads;
  mo.check_timing = o.check_time;
  const std::unique_ptr<tr::Model> model = load_model(o.model, mo);
  tr::Model& m = *model;
  m.set_injection(o.injection);
  const tr::Config& cfg = m.config();

  std::string tdir = o.tokenizer_dir;
  if (tdir.empty() && !o.model.dir.empty()) tdir = o.model.dir;
  const std::unique_ptr<tr::Tokenizer> tok =
      tdir.empty() ? tr::make_byte_tokenizer() : tr::load_tokenizer(tdir);

  // Prompts in command-line order.
  std::vector<std::vector<int32_t>> prompts;
  std::vector<std::string> prompt_text;
  size_t ti = 0, ii = 0;
  for (bool is_ids : o.order_is_ids) {
    if (is_ids) {
      prompts.push_back(o.id_prompts[ii++]);
      prompt_text.push_back(tok->decode(prompts.back()));
    } else {
      prompt_text.push_back(o.texts[ti]);
      prompts.push_back(encode_for(*tok, o.texts[ti++], cfg.vocab, "infer"));
    }
  }
  for (size_t i = 0; i < prompts.size(); ++i) {
    const std::string which = "prompt " + std::to_string(i);
    if (prompts[i].empty()) throw UsageError(which + " is empty");
    for (int32_t id : prompts[i])
      if (id >= cfg.vocab)
        throw UsageError(which + ": token id " + std::to_string(id) +
                         " is outside the model's vocabulary [0, " + std::to_string(cfg.vocab) +
                         ")");
    if (int64_t(prompts[i].size()) + o.sample.max_new_tokens > cfg.context)
      throw UsageError(which + " (" + std::to_string(prompts[i].size()) + " tokens) + --max-new " +
                       std::to_string(o.sample.max_new_tokens) +
                       " exceed the model's context of " + std::to_string(cfg.context));
  }

  std::printf("abft infer: %s %s, %lld layers, d_model %lld, %.2f M parameters (%s)\n",
              tr::arch_name(cfg.arch), o.model.dir.empty() ? o.model.preset.c_str() : "model",
              static_cast<long long>(cfg.layers), static_cast<long long>(cfg.d_model),
              double(cfg.parameter_count()) * 1e-6, o.model.describe().c_str());
  char sampling[96] = "greedy";
  if (o.sample.temperature > 0)
    std::snprintf(sampling, sizeof sampling, "temperature %g, top-k %lld", o.sample.temperature,
                  static_cast<long long>(o.sample.top_k));
  std::printf("policy %s, injection %s, tokenizer %s, %s\n\n", policy_name(o.policy),
              o.injection.enabled() ? o.injection.describe().c_str() : "off",
              tok->name().c_str(),
              sampling);

  const bool keep = !o.logits_path.empty();
  const tr::Generation g = tr::generate(m, prompts, o.sample, keep);

  for (size_t i = 0; i < prompts.size(); ++i) {
    std::printf("[%zu] prompt \"%s\" (%zu tokens)\n", i, printable(prompt_text[i]).c_str(),
                prompts[i].size());
    std::printf("    text: \"%s\"\n", printable(tok->decode(g.tokens[i])).c_str());
    std::printf("    ids:  %s\n", ids_text(g.tokens[i]).c_str());
  }
  std::printf("\nprefill %lld tokens in %.3f s (%.0f tokens/s), decode %lld tokens in %.3f s "
              "(%.0f tokens/s)\n\n",
              static_cast<long long>(g.prefill_tokens), g.prefill_seconds,
              per_second(g.prefill_tokens, g.prefill_seconds),
              static_cast<long long>(g.decode_tokens), g.decode_seconds,
              per_second(g.decode_tokens, g.decode_seconds));

  const tr::RunStats& st = m.stats();
  const tr::OpCounters t = st.total();
  const bool failed = t.uncorrectable > 0 || (o.policy == abft::Policy::Detect && t.detected > 0);
  std::printf("error statistics (policy %s):\n%s", policy_name(o.policy),
              st.table(o.per_layer).c_str());
  std::printf("faults: %s -> %s\n", st.summary_line().c_str(),
              failed ? "UNREPAIRED" : "ok");

  if (keep) {
    std::vector<float> rows;
    for (const auto& l : g.logits) rows.insert(rows.end(), l.begin(), l.end());
    const int64_t n = int64_t(rows.size()) / cfg.vocab;
    write_npy(o.logits_path, n, cfg.vocab, rows.data());
    std::printf("logits [%lld, %lld] written to %s\n", static_cast<long long>(n),
                static_cast<long long>(cfg.vocab), o.logits_path.c_str());
  }
  if (!o.json_path.empty()) {
    std::string j = "{\"command\": \"infer\", \"settings\": " + settings_json(o, m, tok->name());
    j += ", \"prompts\": [";
    for (size_t i = 0; i < prompts.size(); ++i) {
      if (i) j += ", ";
      j += "{\"ids\": " + ids_json(prompts[i]);
      j += ", \"text\": " + json::quote(utf8_clean(prompt_text[i]));
      j += ", \"new_ids\": " + ids_json(g.tokens[i]);
      j += ", \"new_text\": " + json::quote(utf8_clean(tok->decode(g.tokens[i]))) + "}";
    }
    j += "], \"timing\": {\"prefill_tokens\": " + std::to_string(g.prefill_tokens);
    j += ", \"prefill_seconds\": " + json::number(g.prefill_seconds);
    j += ", \"prefill_tokens_per_second\": " +
         json::number(per_second(g.prefill_tokens, g.prefill_seconds));
    j += ", \"decode_tokens\": " + std::to_string(g.decode_tokens);
    j += ", \"decode_seconds\": " + json::number(g.decode_seconds);
    j += ", \"decode_tokens_per_second\": " +
         json::number(per_second(g.decode_tokens, g.decode_seconds)) + "}";
    j += ", \"stats\": " + st.json();
    j += std::string(", \"ok\": ") + (failed ? "false" : "true") + "}\n";
    write_file(o.json_path, j);
    std::printf("report written to %s\n", o.json_path.c_str());
  }
  return failed ? 1 : 0;
}

}  // namespace

int cmd_infer(int argc, char** argv) {
  return guarded_command("infer", [&] {
    const InferOptions o = parse(argc, argv);
    if (o.help) {
      usage(stdout);
      return 0;
    }
    return run(o);
  });
}

}  // namespace abft::cli
