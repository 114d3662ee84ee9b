/** \file cuda_emu_runtime.cpp
 *  \brief The CUDA emulator's scheduler and runtime (cuda_emu.hpp): one launch at a time, the
 *  threads of a block as fibers on the launching host thread (a register switch of a few
 *  instructions on x86-64; ucontext elsewhere, a system call per switch), rendezvous for
 *  barriers and warp collectives, and the CUDA runtime API calls the engine and its tests make,
 *  on host memory: one device, every stream and event synchronous, errors kept per host thread
 *  as cudaGetLastError reports them (cuBLAS's and cuFFT's parts: cublas_emu.cpp, cufft_emu.cpp).
 *  The tensor-core instructions of cuda/warp_mma.cuh (mma.sync m16n8k16, ldmatrix) are one warp
 *  rendezvous each (WarpOp::Matrix, resolve_matrix): every lane's registers gathered by the PTX
 *  fragment layouts, the warp's result computed once, each lane's share scattered back. Its
 *  cp.async copies land as late as the PTX allows: the destination reads as NaN bytes from the
 *  issue until a cp.async.wait_group of the issuing thread releases the copy's group. */
#include "cuda_emu.hpp"

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#include <deque>
#include <map>

#include <sys/mman.h>
#include <signal.h>
#include <ucontext.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#if defined(__x86_64__)
// abft_emu_switch(&from_sp, to_sp): saves the callee-saved registers and the stack pointer of the
// running context in *from_sp and resumes the one saved at to_sp (System V x86-64: everything
// else is caller-saved across the call; the kernels leave the SSE and x87 control words alone,
// so they are not switched).
extern "C" void abft_emu_switch(void** from_sp, void* to_sp);
asm(R"(
.text
.globl abft_emu_switch
.type abft_emu_switch,@function
abft_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
.size abft_emu_switch, .-abft_emu_switch
.section .note.GNU-stack,"",@progbits
.text
)");
#endif

namespace abft_emu {

// The emulated device: an H100 / H200's shared memory (an SM's, and a block's opt-in limit),
// and a small SM count for the occupancy queries.
constexpr size_t kSmem = 228 * 1024;
constexpr int kSmemOptin = 227 * 1024;
constexpr int kSms = 4;

namespace {

enum class Wait { None, Block, Warp, Done };

struct Fiber {
#if defined(__x86_64__)
  void* sp = nullptr;  ///< saved by abft_emu_switch
#else
  ucontext_t ctx;
#endif
  uint3 tid{0, 0, 0};
  int warp = 0;
  Wait wait = Wait::None;
  // At a rendezvous: what it brought and what it gets.
  int op = 0, pred = 0, operand = 0, width = 32;
  unsigned mma_seq = 0;  // products asked for in this block (MmaEntry)
  WarpOp wop = WarpOp::Sync;
  unsigned mask = 0;
  uint64_t value = 0, result = 0;
  // cp.async (warp_mma.cuh): this thread's copies not yet committed, then its committed groups,
  // oldest first; each lands when a wait_group releases its group.
  struct Copy {
    void* dst;
    unsigned char data[16];
  };
  std::vector<Copy> uncommitted;
  std::deque<std::vector<Copy>> groups;
};

// Per thread: the kernels keep their tiles' shares on it (a few KB at head_dim 256); small stacks
// keep a block's 128 of them in cache. Below each, a page that faults on overflow.
constexpr size_t kStack = 64 * 1024;
constexpr size_t kGuard = 4096;

struct Launch {
  Config c;
  uint3 block{0, 0, 0};
  const std::function<void()>* body = nullptr;
  std::vector<Fiber> fibers;
  std::vector<char*> stacks;  // kGuard + kStack bytes each (mmap), kept for the process
#if defined(__x86_64__)
  void* sched = nullptr;
#else
  ucontext_t sched;
#endif
  Fiber* cur = nullptr;
  std::vector<std::vector<MmaEntry>> mma;  // per warp, this block's products in order
  bool broken = false;
  std::string why;
  alignas(128) unsigned char smem[kSmem];
};

Launch* g_launch = nullptr;          // the launch running now (under launch()'s lock)
thread_local cudaError_t g_last = cudaSuccess;  // per host thread, as CUDA keeps it
thread_local bool g_launching = false;          // this thread runs a launch (nesting check)

/** Leave the running fiber for the scheduler (it resumes here when released). */
void to_scheduler(Fiber& f) {
  Launch& L = *g_launch;
#if defined(__x86_64__)
  abft_emu_switch(&f.sp, L.sched);
#else
  swapcontext(&f.ctx, &L.sched);
#endif
}

/** Run fiber f until it next yields. */
void resume(Launch& L, Fiber& f) {
  L.cur = &f;
#if defined(__x86_64__)
  abft_emu_switch(&L.sched, f.sp);
#else
  swapcontext(&L.sched, &f.ctx);
#endif
}

[[noreturn]] void fiber_main() {
  Launch& L = *g_launch;
  (*L.body)();
  L.cur->wait = Wait::Done;
  to_scheduler(*L.cur);
  std::abort();  // a finished fiber is never resumed
}

void yield_to_scheduler() { to_scheduler(*g_launch->cur); }

/** A fresh context for fiber f on `stack` that starts in fiber_main. */
void start_context(Launch& L, Fiber& f, char* stack) {
#if defined(__x86_64__)
  (void)L;
  // The frame abft_emu_switch pops: r15 ... rbp, then fiber_main as the return address, at a
  // 16-byte boundary (so fiber_main starts as if called: rsp = 8 mod 16).
  uintptr_t top = (reinterpret_cast<uintptr_t>(stack) + kStack) & ~uintptr_t(15);
  uint64_t* ret = reinterpret_cast<uint64_t*>(top - 16);
  *ret = reinterpret_cast<uint64_t>(&fiber_main);
  uint64_t* frame = ret - 6;  // six registers
  for (int i = 0; i < 6; ++i) frame[i] = 0;
  f.sp = frame;
#else
  getcontext(&f.ctx);
  f.ctx.uc_stack.ss_sp = stack;
  f.ctx.uc_stack.ss_size = kStack;
  f.ctx.uc_link = &L.sched;
  makecontext(&f.ctx, fiber_main, 0);
#endif
}

void fail(Launch& L, const std::string& why) {
  if (!L.broken) L.why = why;
  L.broken = true;
}

/* ------------------------------------------------------------------------------- the ledger
 * Device memory is mapped per allocation (whole pages, nothing else in them), so a launch can
 * protect it and count the pages its threads fault in: a read fault opens the page for reading,
 * a write fault for writing, each counted once per launch. */
constexpr size_t kPage = 4096;

struct Allocation {
  size_t mapped;   ///< whole pages
  bool device;     ///< cudaMalloc (pinned host memory, cudaMallocHost, is not counted)
};
std::mutex g_alloc_mu;
std::map<uintptr_t, Allocation> g_allocs;  // by base address

/** The allocation holding address a, or null. */
const std::pair<const uintptr_t, Allocation>* allocation_of(uintptr_t a) {
  auto it = g_allocs.upper_bound(a);
  if (it == g_allocs.begin()) return nullptr;
  --it;
  return a < it->first + it->second.mapped ? &*it : nullptr;
}

std::mutex g_ledger_mu;
Ledger* g_ledger = nullptr;        // the open ledger, or null
bool g_ledger_pages = false;       // count pages in launches
LaunchRecord* g_record = nullptr;  // the running launch's record while pages are counted
struct sigaction g_old_segv;
std::vector<char> g_alt_stack;

void on_fault(int sig, siginfo_t* si, void* ucv) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(si->si_addr);
  const auto* al = g_record ? allocation_of(a) : nullptr;
  if (!al || !al->second.device) {  // not ours: as if no handler were here (the access faults again)
    sigaction(sig, &g_old_segv, nullptr);
    return;
  }
  bool write = true;
#if defined(__x86_64__)
  write = (static_cast<ucontext_t*>(ucv)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
  (void)ucv;
#endif
  void* page = reinterpret_cast<void*>(a & ~uintptr_t(kPage - 1));
  mprotect(page, kPage, write ? PROT_READ | PROT_WRITE : PROT_READ);
  ++(write ? g_record->pages_written : g_record->pages_read);
}

/** Protect (or open again) every device allocation: a launch's start and end while pages count. */
void protect_device_memory(bool closed) {
  for (const auto& [base, al] : g_allocs)
    if (al.device) mprotect(reinterpret_cast<void*>(base), al.mapped, closed ? PROT_NONE : PROT_READ | PROT_WRITE);
}

template <class F>
void ledger_note(F&& f) {
  std::lock_guard<std::mutex> lock(g_ledger_mu);
  if (g_ledger) f(*g_ledger);
}

/* ---------------------------------------------------- tensor-core instructions (warp_mma.cuh)
 * PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type" and "ldmatrix": lane l,
 * g = l / 4, t = l % 4; a 32-bit register holds two 16-bit elements, the first in its low half.
 *   A (16 x 16): a0 = A[g][2t..2t+1], a1 = A[g+8][2t..], a2 = A[g][2t+8..], a3 = A[g+8][2t+8..]
 *   B (16 x 8, k x n): b0 = B[2t..2t+1][g], b1 = B[2t+8..2t+9][g]
 *   C, D (16 x 8, float): c0, c1 = C[g][2t], C[g][2t+1]; c2, c3 = C[g+8][2t], C[g+8][2t+1]
 *   ldmatrix: lane 8m + i gives the address of row i of matrix m (16 bytes); register m of lane
 *   l holds M_m[g][2t..2t+1], with .trans M_m[2t][g] (low) and M_m[2t+1][g] (high). */

/** The instruction of a WarpOp::Matrix rendezvous (its `operand`: every lane must agree). */
constexpr int kMmaF16 = 1, kMmaBf16 = 2;
constexpr int ldmatrix_code(int matrices, bool trans) { return 16 + 2 * matrices + (trans ? 1 : 0); }

/** One lane's registers at a WarpOp::Matrix rendezvous (on its stack until it is released). */
struct MatrixRequest {
  float* d;
  const uint32_t* a;
  const uint32_t* b;
  const float* c;
  uint32_t* r;
  const void* row;
};

/** The float value of a binary16 (exact: every binary16 is a float). */
inline float f16_bits_to_float(uint32_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {  // zero or subnormal: m 2^-24, exact
    const float v = float(m) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  const uint32_t u = sign | (e == 31 ? 0x7f800000u | (m << 13) : ((e + 112) << 23) | (m << 13));
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline float bf16_bits_to_float(uint32_t h) {
  const uint32_t u = (h & 0xffffu) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/** mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.f32 for the warp's 32 lanes: D = A B + C,
 *  each element c + a_0 b_0 + ... + a_15 b_15 by fma in order of k (16-bit inputs widened
 *  exactly); d may alias c in a lane (all of C is read before any D is written). */
void resolve_mma(const MatrixRequest* const (&q)[32], bool bf16) {
  float A[16][16], Bt[8][16], C[16][8];  // Bt[n][k] = B[k][n]
  auto lo = [bf16](uint32_t r) { return bf16 ? bf16_bits_to_float(r) : f16_bits_to_float(r & 0xffffu); };
  auto hi = [bf16](uint32_t r) { return bf16 ? bf16_bits_to_float(r >> 16) : f16_bits_to_float(r >> 16); };
  for (int l = 0; l < 32; ++l) {
    const int g = l >> 2, t = l & 3;
    const uint32_t* a = q[l]->a;
    const uint32_t* b = q[l]->b;
    const float* c = q[l]->c;
    A[g][2 * t] = lo(a[0]), A[g][2 * t + 1] = hi(a[0]);
    A[g + 8][2 * t] = lo(a[1]), A[g + 8][2 * t + 1] = hi(a[1]);
    A[g][2 * t + 8] = lo(a[2]), A[g][2 * t + 9] = hi(a[2]);
    A[g + 8][2 * t + 8] = lo(a[3]), A[g + 8][2 * t + 9] = hi(a[3]);
    Bt[g][2 * t] = lo(b[0]), Bt[g][2 * t + 1] = hi(b[0]);
    Bt[g][2 * t + 8] = lo(b[1]), Bt[g][2 * t + 9] = hi(b[1]);
    C[g][2 * t] = c[0], C[g][2 * t + 1] = c[1], C[g + 8][2 * t] = c[2], C[g + 8][2 * t + 1] = c[3];
  }
  float D[16][8];
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      float s = C[i][j];
      for (int k = 0; k < 16; ++k) s = std::fma(A[i][k], Bt[j][k], s);
      D[i][j] = s;
    }
  for (int l = 0; l < 32; ++l) {
    const int g = l >> 2, t = l & 3;
    float* d = q[l]->d;
    d[0] = D[g][2 * t], d[1] = D[g][2 * t + 1], d[2] = D[g + 8][2 * t], d[3] = D[g + 8][2 * t + 1];
  }
}

/** ldmatrix.sync.aligned.m8n8.x{matrices}{.trans}.shared.b16 for the warp's 32 lanes (false and
 *  the launch failed when a row address is not 16-byte aligned, or starts in the block's
 *  dynamic shared memory and ends past what the launch asked for). */
bool resolve_ldmatrix(Launch& L, int w, const MatrixRequest* const (&q)[32], int matrices, bool trans) {
  uint16_t M[4][8][8];
  const uintptr_t dyn = reinterpret_cast<uintptr_t>(L.smem);
  for (int l = 0; l < 8 * matrices; ++l) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(q[l]->row);
    if (p % 16) {
      fail(L, "warp " + std::to_string(w) + ": ldmatrix row address of lane " + std::to_string(l) +
                  " is not 16-byte aligned");
      return false;
    }
    if (p >= dyn && p < dyn + kSmem && p + 16 > dyn + L.c.smem) {
      fail(L, "warp " + std::to_string(w) + ": ldmatrix row of lane " + std::to_string(l) + " at byte " +
                  std::to_string(p - dyn) + " of dynamic shared memory, past the launch's " +
                  std::to_string(L.c.smem) + " bytes");
      return false;
    }
    std::memcpy(M[l / 8][l % 8], q[l]->row, 16);
  }
  for (int l = 0; l < 32; ++l) {
    const int g = l >> 2, t = l & 3;
    uint32_t* r = q[l]->r;
    for (int m = 0; m < matrices; ++m)
      r[m] = trans ? uint32_t(M[m][2 * t][g]) | uint32_t(M[m][2 * t + 1][g]) << 16
                   : uint32_t(M[m][g][2 * t]) | uint32_t(M[m][g][2 * t + 1]) << 16;
  }
  return true;
}

/** A WarpOp::Matrix rendezvous of warp w, every one of its 32 lanes at the same instruction. */
bool resolve_matrix(Launch& L, int w, Fiber* const (&lanes)[32]) {
  const MatrixRequest* q[32];
  for (int l = 0; l < 32; ++l) q[l] = reinterpret_cast<const MatrixRequest*>(uintptr_t(lanes[l]->value));
  const int op = lanes[0]->operand;
  if (op == kMmaF16 || op == kMmaBf16) {
    resolve_mma(q, op == kMmaBf16);
    return true;
  }
  for (int m : {1, 2, 4})
    for (bool trans : {false, true})
      if (op == ldmatrix_code(m, trans)) return resolve_ldmatrix(L, w, q, m, trans);
  fail(L, "warp " + std::to_string(w) + ": unknown tensor-core instruction");
  return false;
}

/** One warp rendezvous: every lane of `mask` that is still running must be at a collective of
 *  the same kind; then each gets its result. */
bool resolve_warp(Launch& L, int w) {
  const int n = int(L.fibers.size());
  Fiber* lanes[32] = {};
  unsigned at = 0, live = 0;
  for (int l = 0; l < 32; ++l) {
    const int t = w * 32 + l;
    if (t >= n) break;
    lanes[l] = &L.fibers[size_t(t)];
    if (lanes[l]->wait != Wait::Done) live |= 1u << l;
    if (lanes[l]->wait == Wait::Warp) at |= 1u << l;
  }
  if (!at) return false;
  const Fiber& first = *lanes[__builtin_ctz(at)];
  const unsigned mask = first.mask & live;
  if (first.wop == WarpOp::Matrix && (live != 0xffffffffu || first.mask != 0xffffffffu)) {
    // mma.sync / ldmatrix are .aligned: the whole warp executes them, none of it exited.
    fail(L, "warp " + std::to_string(w) + ": mma.sync or ldmatrix without all 32 lanes (lanes exited or missing)");
    return false;
  }
  if ((at & mask) != mask) return false;  // some lanes of the mask are still on their way
  for (int l = 0; l < 32; ++l)
    if ((mask >> l & 1u) && (lanes[l]->wop != first.wop || lanes[l]->mask != first.mask ||
                             (first.wop == WarpOp::Matrix && lanes[l]->operand != first.operand))) {
      fail(L, "warp " + std::to_string(w) + ": lanes at different collectives (divergent code)");
      return false;
    }
  if (first.wop == WarpOp::Matrix) {
    if (!resolve_matrix(L, w, lanes)) return false;
    for (int l = 0; l < 32; ++l) lanes[l]->wait = Wait::None;
    return true;
  }
  for (int l = 0; l < 32; ++l) {
    if (!(mask >> l & 1u)) continue;
    Fiber& f = *lanes[l];
    const int wd = f.width > 0 && f.width <= 32 ? f.width : 32;
    const int base = l & ~(wd - 1);
    int src = l;
    switch (f.wop) {
      case WarpOp::ShflIdx: src = base + (f.operand % wd + wd) % wd; break;
      case WarpOp::ShflXor: src = l ^ f.operand; break;
      case WarpOp::ShflDown: src = l + f.operand < base + wd ? l + f.operand : l; break;
      case WarpOp::ShflUp: src = l - f.operand >= base ? l - f.operand : l; break;
      default: break;
    }
    switch (f.wop) {
      case WarpOp::ShflIdx:
      case WarpOp::ShflXor:
      case WarpOp::ShflDown:
      case WarpOp::ShflUp:
        if (src < 0 || src >= 32 || !(mask >> src & 1u)) f.result = f.value;  // outside the mask: undefined; own value
        else f.result = lanes[src]->value;
        break;
      case WarpOp::Ballot:
      case WarpOp::Any:
      case WarpOp::All: {
        unsigned b = 0;
        for (int k = 0; k < 32; ++k)
          if ((mask >> k & 1u) && lanes[k]->value) b |= 1u << k;
        f.result = f.wop == WarpOp::Ballot ? b : f.wop == WarpOp::Any ? (b != 0) : (b == mask);
        break;
      }
      case WarpOp::MatchAny: {
        unsigned b = 0;
        for (int k = 0; k < 32; ++k)
          if ((mask >> k & 1u) && lanes[k]->value == f.value) b |= 1u << k;
        f.result = b;
        break;
      }
      case WarpOp::Sync:
      case WarpOp::Matrix: f.result = 0; break;
    }
  }
  for (int l = 0; l < 32; ++l)
    if (mask >> l & 1u) lanes[l]->wait = Wait::None;
  return true;
}

/** The block barrier: every running thread at it (a thread that has returned while others
 *  wait is a barrier hardware would not pass). */
bool resolve_block(Launch& L) {
  int at = 0, done = 0, count = 0, any = 0, all = 1, op = -1;
  for (Fiber& f : L.fibers) {
    if (f.wait == Wait::Done) {
      ++done;
      continue;
    }
    if (f.wait != Wait::Block) return false;
    ++at;
    if (op < 0) op = f.op;
    count += f.pred != 0, any |= f.pred != 0, all &= f.pred != 0;
  }
  if (!at) return false;
  if (done) {
    fail(L, "__syncthreads with " + std::to_string(done) + " of the block's threads returned (divergent barrier)");
    return false;
  }
  const int r = op == 1 ? any : op == 2 ? all : op == 3 ? count : 0;
  for (Fiber& f : L.fibers) f.result = uint64_t(r), f.wait = Wait::None;
  return true;
}

void run_block(Launch& L) {
  const unsigned nt = L.c.block.x * L.c.block.y * L.c.block.z;
  L.fibers.assign(nt, Fiber{});
  while (L.stacks.size() < nt) {
    void* m = mmap(nullptr, kGuard + kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      fail(L, "no memory for the threads' stacks");
      return;
    }
    mprotect(m, kGuard, PROT_NONE);
    L.stacks.push_back(static_cast<char*>(m) + kGuard);
  }
  for (unsigned t = 0; t < nt; ++t) {
    Fiber& f = L.fibers[t];
    f.tid = {t % L.c.block.x, (t / L.c.block.x) % L.c.block.y, t / (L.c.block.x * L.c.block.y)};
    f.warp = int(t / 32);
    f.uncommitted.clear();
    f.groups.clear();
    start_context(L, f, L.stacks[t]);
  }
  const int warps = int((nt + 31) / 32);
  L.mma.assign(size_t(warps), {});
  // Between two block barriers each warp runs as far as it can before the next warp starts (its
  // lanes to their next collective, the collective resolved, again, until every lane waits at a
  // block barrier or is done): the widest skew between warps the hardware may show, so that a
  // warp reading what another warp has not yet written (or copied: cp.async), or writing what
  // another still has to read, changes the results instead of passing by the luck of a
  // lockstep schedule. Blocks of odd index run their warps last to first, even ones first to
  // last, so that a hazard shows whichever warp is ahead.
  const unsigned long long index =
      L.block.x + (unsigned long long)L.c.grid.x * (L.block.y + (unsigned long long)L.c.grid.y * L.block.z);
  const bool descending = index % 2 == 1;
  for (;;) {
    bool progress = false;
    for (int wi = 0; wi < warps; ++wi) {
      const int w = descending ? warps - 1 - wi : wi;
      for (;;) {
        bool ran = false;
        for (unsigned l = 0; l < 32; ++l) {
          // (lanes too: last to first in odd blocks)
          const unsigned t = unsigned(w) * 32 + (descending ? 31 - l : l);
          if (t >= nt) continue;
          Fiber& f = L.fibers[t];
          if (f.wait != Wait::None) continue;
          resume(L, f);
          ran = true;
        }
        const bool released = resolve_warp(L, w);
        if (L.broken) return;
        if (!ran && !released) break;
        progress = true;
      }
    }
    const bool released = resolve_block(L);
    if (L.broken) return;
    if (!progress && !released) {
      bool all_done = true;
      for (Fiber& f : L.fibers) all_done &= f.wait == Wait::Done;
      if (!all_done) fail(L, "threads wait at barriers or collectives that cannot complete (deadlock)");
      return;
    }
  }
}

}  // namespace

uint3 thread_idx() { return g_launch->cur->tid; }
uint3 block_idx() { return g_launch->block; }
dim3 block_dim() { return g_launch->c.block; }
dim3 grid_dim() { return g_launch->c.grid; }
unsigned char* dynamic_smem() { return g_launch->smem; }

MmaEntry* mma_entry(unsigned& n) {
  Fiber& f = *g_launch->cur;
  n = f.mma_seq++;
  std::vector<MmaEntry>& v = g_launch->mma[size_t(f.warp)];
  return n < v.size() ? &v[n] : nullptr;
}

void mma_keep(unsigned n, const MmaEntry& e) {
  std::vector<MmaEntry>& v = g_launch->mma[size_t(g_launch->cur->warp)];
  if (n == v.size()) v.push_back(e);
}

int block_barrier(int op, int pred) {
  Fiber& f = *g_launch->cur;
  f.wait = Wait::Block, f.op = op, f.pred = pred;
  yield_to_scheduler();
  return int(f.result);
}

uint64_t warp_collective(WarpOp op, unsigned mask, uint64_t value, int operand, int width) {
  Fiber& f = *g_launch->cur;
  f.wait = Wait::Warp, f.wop = op, f.mask = mask, f.value = value, f.operand = operand, f.width = width;
  yield_to_scheduler();
  return f.result;
}

void warp_mma_16816(bool bf16, float* d, const uint32_t* a, const uint32_t* b, const float* c) {
  const MatrixRequest q{d, a, b, c, nullptr, nullptr};
  warp_collective(WarpOp::Matrix, 0xffffffffu, uint64_t(reinterpret_cast<uintptr_t>(&q)), bf16 ? kMmaBf16 : kMmaF16, 32);
}

void warp_ldmatrix(int matrices, bool trans, uint32_t* r, const void* row) {
  const MatrixRequest q{nullptr, nullptr, nullptr, nullptr, r, row};
  warp_collective(WarpOp::Matrix, 0xffffffffu, uint64_t(reinterpret_cast<uintptr_t>(&q)), ldmatrix_code(matrices, trans), 32);
}

// The value a cp.async destination holds from the issue until its group is waited for: every
// byte 0xFF, a NaN in binary16, bfloat16, float and double, so a read that comes too early (no
// wait_group, a wait that leaves the group in flight, a barrier in place of the wait) or a copy
// issued over data another thread still reads shows in the results.
constexpr unsigned char kInFlight = 0xFF;

void cp_async(void* dst, const void* src, bool full) {
  Fiber& f = *g_launch->cur;
  // cp.async.cg copies 16 bytes between 16-byte aligned addresses (PTX ISA); x86 would not trap.
  if (reinterpret_cast<uintptr_t>(dst) % 16 || (full && reinterpret_cast<uintptr_t>(src) % 16)) {
    fail(*g_launch, std::string("cp.async: ") + (reinterpret_cast<uintptr_t>(dst) % 16 ? "destination" : "source") +
                        " address not 16-byte aligned");
    return;
  }
  Fiber::Copy c{dst, {}};
  if (full) std::memcpy(c.data, src, 16);
  std::memset(dst, kInFlight, 16);
  f.uncommitted.push_back(c);
}

void cp_async_commit() {
  Fiber& f = *g_launch->cur;
  f.groups.push_back(std::move(f.uncommitted));
  f.uncommitted.clear();
}

void cp_async_wait(int pending) {
  Fiber& f = *g_launch->cur;
  while (int(f.groups.size()) > pending) {
    for (const Fiber::Copy& c : f.groups.front()) std::memcpy(c.dst, c.data, 16);
    f.groups.pop_front();
  }
}

int Ledger::launches_from(const char* part) const {
  int n = 0;
  for (const LaunchRecord& r : launches) n += std::strstr(r.file, part) != nullptr;
  return n;
}
size_t Ledger::pages_read(const char* part) const {
  size_t n = 0;
  for (const LaunchRecord& r : launches)
    if (std::strstr(r.file, part)) n += r.pages_read;
  return n;
}
size_t Ledger::pages_written(const char* part) const {
  size_t n = 0;
  for (const LaunchRecord& r : launches)
    if (std::strstr(r.file, part)) n += r.pages_written;
  return n;
}

size_t pages_spanned(const void* p, size_t bytes) {
  if (!bytes) return 0;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  return ((a + bytes - 1) / kPage) - (a / kPage) + 1;
}

void ledger_begin(bool pages) {
  std::lock_guard<std::mutex> lock(g_ledger_mu);
  delete g_ledger;
  g_ledger = new Ledger();
  if (g_ledger_pages) sigaction(SIGSEGV, &g_old_segv, nullptr);  // (a ledger begun again: one handler)
  g_ledger_pages = pages;
  if (pages) {
    if (g_alt_stack.empty()) g_alt_stack.resize(1 << 16);
    stack_t ss{};
    ss.ss_sp = g_alt_stack.data();
    ss.ss_size = g_alt_stack.size();
    sigaltstack(&ss, nullptr);
    struct sigaction sa{};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_old_segv);
  }
}

void sync_all();
Ledger ledger_end() {
  sync_all();  // what the code under test queued is part of its ledger (no wait of its own)
  std::lock_guard<std::mutex> lock(g_ledger_mu);
  Ledger out;
  if (g_ledger) out = std::move(*g_ledger);
  delete g_ledger;
  g_ledger = nullptr;
  if (g_ledger_pages) sigaction(SIGSEGV, &g_old_segv, nullptr);
  g_ledger_pages = false;
  return out;
}

void ledger_library_call(bool fft) { ledger_note([&](Ledger& l) { ++(fft ? l.fft_calls : l.blas_calls); }); }

bool launch_config_ok(const Config& c) {
  const unsigned nt = c.block.x * c.block.y * c.block.z;
  if (nt == 0 || nt > 1024 || c.grid.x == 0 || c.grid.y == 0 || c.grid.z == 0 || c.grid.y > 65535 ||
      c.grid.z > 65535) {
    g_last = cudaErrorInvalidConfiguration;
    return false;
  }
  if (c.smem > kSmem) {
    g_last = cudaErrorInvalidValue;
    return false;
  }
  if (g_launching) {  // a launch from inside a kernel: not in this engine
    g_last = cudaErrorNotSupported;
    return false;
  }
  return true;
}

void launch(const Config& c, const std::function<void()>& body) {
  if (!launch_config_ok(c)) return;
  const unsigned nt = c.block.x * c.block.y * c.block.z;
  // One launch at a time (host threads may launch at once: they take turns), on one Launch kept
  // for the process with its stacks and shared memory (neither is cleared between launches, as
  // on hardware).
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  static Launch* pool = new Launch();  // (never freed: the stacks live as long as the process)
  Launch* L = pool;
  L->c = c;
  L->body = &body;
  L->broken = false;
  L->why.clear();
  g_launch = L;
  g_launching = true;
  // Blocks run one at a time, in an order that is not the index order (an affine permutation of
  // the linear index that changes from launch to launch): results must not depend on which block
  // runs first, as on hardware, where any may.
  static unsigned long long launches = 0;
  const unsigned long long nb = (unsigned long long)c.grid.x * c.grid.y * c.grid.z;
  unsigned long long mul = (nb / 2 + 1 + launches % 7) % nb;  // coprime with nb: a bijection
  while (nb > 1 && (mul == 0 || std::gcd(mul, nb) != 1)) mul = (mul + 1) % nb;
  const unsigned long long shift = (launches++ * 0x9E3779B9ull) % nb;
  // The ledger's record of this launch, and with pages, the device memory closed until touched.
  LaunchRecord rec{c.file ? c.file : "", c.line, nb, nt, 0, 0};
  const bool counting = [&] {
    std::lock_guard<std::mutex> g(g_ledger_mu);
    return g_ledger != nullptr && g_ledger_pages;
  }();
  if (counting) {
    std::lock_guard<std::mutex> g(g_alloc_mu);
    g_record = &rec;
    protect_device_memory(true);
  }
  for (unsigned long long i = 0; i < nb && !L->broken; ++i) {
    const unsigned long long b = (i * mul + shift) % nb;
    L->block = {unsigned(b % c.grid.x), unsigned((b / c.grid.x) % c.grid.y), unsigned(b / (c.grid.x * (unsigned long long)c.grid.y))};
    // No zeroed shared memory to lean on: the launch's dynamic shared memory holds 0xFF bytes
    // (NaN in every float format) when each block starts, so a read of a byte no thread of the
    // block has written shows in the results.
    std::memset(L->smem, 0xFF, c.smem > 256 ? c.smem : 256);
    run_block(*L);
  }
  if (counting) {
    std::lock_guard<std::mutex> g(g_alloc_mu);
    protect_device_memory(false);
    g_record = nullptr;
  }
  ledger_note([&](Ledger& l) { l.launches.push_back(rec); });
  g_launch = nullptr;
  g_launching = false;
  if (L->broken) {
    std::fprintf(stderr, "abft CUDA emulator: launch of %u x %u x %u blocks of %u threads failed: %s\n", c.grid.x,
                 c.grid.y, c.grid.z, nt, L->why.c_str());
    g_last = cudaErrorLaunchFailure;
  }
}

/* ---------------------------------------------------------------- asynchrony (async_mode) */

namespace {
std::atomic<int> g_async{-1};  // -1: not yet read from ABFT_EMU_ASYNC
}
bool async_mode() {
  int v = g_async.load();
  if (v < 0) {
    const char* e = std::getenv("ABFT_EMU_ASYNC");
    v = e && *e && std::strcmp(e, "0") != 0 ? 1 : 0;
    g_async.store(v);
  }
  return v == 1;
}

namespace {
/** Queued work: an operation, or (no `run`) a wait for `count` operations of stream `on`. */
struct Op {
  std::function<void()> run;
  const void* on = nullptr;
  uint64_t count = 0;
  uint64_t seq = 0;  ///< issue order across streams
};
struct Queue {
  std::deque<Op> ops;
  uint64_t issued = 0, done = 0;  ///< operations queued and run so far
  bool blocking = true;           ///< ordered with the legacy default stream
};
std::recursive_mutex g_async_mu;
std::map<const void*, Queue> g_queues;  // by stream handle; nullptr: the legacy default stream
uint64_t g_async_seq = 0;

const void* stream_key(cudaStream_t s) {
  const auto v = reinterpret_cast<uintptr_t>(s);
  return v == 1 || v == 2 ? nullptr : s;  // cudaStreamLegacy, cudaStreamPerThread: the default
}

/** Runs one queued operation whose turn has come: waits already met are dropped; of the streams
 *  whose next operation can run, the one queued last (newest first, the order a synchronous run
 *  never takes). False when it did nothing (no wait dropped, nothing could run). */
bool run_one() {
  Queue* pick = nullptr;
  bool any_dropped = false;
  for (bool dropped = true; dropped;) {
    dropped = false;
    pick = nullptr;
    for (auto& [k, q] : g_queues) {
      if (q.ops.empty()) continue;
      const Op& o = q.ops.front();
      if (!o.run) {
        auto it = g_queues.find(o.on);
        if (it == g_queues.end() || it->second.done >= o.count) {
          q.ops.pop_front();
          dropped = any_dropped = true;
        }
        continue;
      }
      if (!pick || o.seq > pick->ops.front().seq) pick = &q;
    }
  }
  if (!pick) return any_dropped;
  Op o = std::move(pick->ops.front());
  pick->ops.pop_front();
  o.run();
  ++pick->done;
  return true;
}

/** Runs queued work until `met()`. */
template <class Met>
void run_until(Met met) {
  std::lock_guard<std::recursive_mutex> lock(g_async_mu);
  while (!met())
    if (!run_one()) {
      std::fprintf(stderr, "abft CUDA emulator: queued work waits for work that was never queued\n");
      for (const auto& [k, q] : g_queues)
        if (!q.ops.empty())
          std::fprintf(stderr, "  stream %p: %zu queued, issued %llu, done %llu; next: %s %p %llu\n", k, q.ops.size(),
                       (unsigned long long)q.issued, (unsigned long long)q.done, q.ops.front().run ? "run" : "wait on",
                       q.ops.front().on, (unsigned long long)q.ops.front().count);
      std::abort();
    }
}
}  // namespace

void enqueue(cudaStream_t s, std::function<void()> op) {
  if (!async_mode()) {
    op();
    return;
  }
  std::lock_guard<std::recursive_mutex> lock(g_async_mu);
  const void* k = stream_key(s);
  Queue& q = g_queues[k];
  // The legacy default stream's order: its work after all work queued before on blocking
  // streams, and a blocking stream's after the default stream's.
  if (!k) {
    for (auto& [kk, o] : g_queues)
      if (kk && o.blocking && o.issued > o.done) q.ops.push_back(Op{nullptr, kk, o.issued, 0});
  } else if (q.blocking) {
    const Queue& d = g_queues[nullptr];
    if (d.issued > d.done) q.ops.push_back(Op{nullptr, nullptr, d.issued, 0});
  }
  q.ops.push_back(Op{std::move(op), nullptr, 0, ++g_async_seq});
  ++q.issued;
}

/** Every queued operation run. */
void sync_all() {
  if (async_mode())
    run_until([] {
      for (const auto& kq : g_queues)
        if (!kq.second.ops.empty()) return false;
      return true;
    });
}
/** Stream s's queued operations run (and what they wait for). */
void sync_stream(cudaStream_t s) {
  if (!async_mode()) return;
  const void* k = stream_key(s);
  run_until([k] { return g_queues[k].ops.empty(); });
}
/** Where stream s's queue stands: its key and the operations queued so far. */
std::pair<const void*, uint64_t> stream_mark(cudaStream_t s) {
  std::lock_guard<std::recursive_mutex> lock(g_async_mu);
  const void* k = stream_key(s);
  return {k, g_queues[k].issued};
}
/** Run until `count` operations of the stream keyed `k` have run. */
void sync_mark(const void* k, uint64_t count) {
  if (async_mode()) run_until([k, count] { return g_queues[k].done >= count; });
}
/** Stream s queues a wait until `count` operations of the stream keyed `k` have run. */
void queue_wait(cudaStream_t s, const void* k, uint64_t count) {
  if (!async_mode()) return;
  std::lock_guard<std::recursive_mutex> lock(g_async_mu);
  g_queues[stream_key(s)].ops.push_back(Op{nullptr, k, count, 0});
}
void set_async_mode(bool on) {
  sync_all();
  g_async.store(on ? 1 : 0);
}

/** A new stream's queue (a handle may be reused after a destroy). */
void new_queue(cudaStream_t s, bool blocking) {
  std::lock_guard<std::recursive_mutex> lock(g_async_mu);
  Queue& q = g_queues[stream_key(s)];
  q.blocking = blocking;
}

}  // namespace abft_emu

/* ---------------------------------------------------------------- the CUDA runtime, on the host */

using abft_emu::g_last;

namespace {
cudaError_t ret(cudaError_t e) {
  if (e != cudaSuccess) g_last = e;
  return e;
}
/** An event: the host's clock when its last record ran, and (async_mode) the stream queue's
 *  key and length at the record. */
struct EventStamp {
  std::chrono::steady_clock::time_point at{};
  bool recorded = false;
  const void* key = nullptr;
  uint64_t count = 0;
};
template <class H>
cudaError_t new_handle(H* h) {
  if (!h) return ret(cudaErrorInvalidValue);
  *h = reinterpret_cast<H>(new char(1));
  return cudaSuccess;
}
template <class H>
cudaError_t free_handle(H h) {
  delete reinterpret_cast<char*>(h);
  return cudaSuccess;
}
}  // namespace

extern "C" {

cudaError_t cudaGetLastError(void) {
  const cudaError_t e = g_last;
  g_last = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError(void) { return g_last; }
const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error (abft CUDA emulator)";
    case cudaErrorMemoryAllocation: return "out of memory (abft CUDA emulator)";
    case cudaErrorLaunchFailure: return "unspecified launch failure (abft CUDA emulator: see stderr)";
    default: return "error (abft CUDA emulator)";
  }
}
const char* cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaErrorEmulated"; }

cudaError_t cudaGetDeviceCount(int* n) {
  if (!n) return ret(cudaErrorInvalidValue);
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* d) {
  if (!d) return ret(cudaErrorInvalidValue);
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : ret(cudaErrorInvalidDevice); }
cudaError_t cudaDriverGetVersion(int* v) {
  if (v) *v = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) {
  if (v) *v = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp* p, int d) {
  if (!p || d != 0) return ret(cudaErrorInvalidValue);
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "abft CUDA emulator (host fibers)");
  p->major = 9, p->minor = 0;
  p->multiProcessorCount = abft_emu::kSms;
  p->totalGlobalMem = size_t(8) << 30;
  p->sharedMemPerBlock = 48 * 1024;
  p->sharedMemPerBlockOptin = abft_emu::kSmemOptin;
  p->sharedMemPerMultiprocessor = abft_emu::kSmem;
  p->maxThreadsPerBlock = 1024;
  p->warpSize = 32;
  p->regsPerBlock = 65536;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) { return cudaGetDeviceProperties_v2(p, d); }
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int d) {
  if (!v || d != 0) return ret(cudaErrorInvalidValue);
  switch (a) {
    case cudaDevAttrMultiProcessorCount: *v = abft_emu::kSms; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = abft_emu::kSmemOptin; break;
    case cudaDevAttrComputeCapabilityMajor: *v = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *v = 0; break;
    default: *v = 0;
  }
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t* free_b, size_t* total) {
  if (free_b) *free_b = size_t(4) << 30;
  if (total) *total = size_t(8) << 30;
  return cudaSuccess;
}

// Device memory: whole pages of its own per allocation (the ledger protects them while a launch
// runs), 256 bytes of slack past the end as the host stand-in always gave.
namespace {
cudaError_t map_memory(void** p, size_t n, bool device) {
  if (!p) return ret(cudaErrorInvalidValue);
  *p = nullptr;
  if (n > (size_t(8) << 30)) return ret(cudaErrorMemoryAllocation);
  const size_t mapped = (n + 256 + abft_emu::kPage - 1) / abft_emu::kPage * abft_emu::kPage;
  void* m = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return ret(cudaErrorMemoryAllocation);
  {
    std::lock_guard<std::mutex> lock(abft_emu::g_alloc_mu);
    abft_emu::g_allocs[reinterpret_cast<uintptr_t>(m)] = {mapped, device};
  }
  abft_emu::ledger_note([](abft_emu::Ledger& l) { ++l.allocations; });
  *p = m;
  return cudaSuccess;
}
cudaError_t unmap_memory(void* p) {
  if (!p) return cudaSuccess;
  size_t mapped = 0;
  {
    std::lock_guard<std::mutex> lock(abft_emu::g_alloc_mu);
    auto it = abft_emu::g_allocs.find(reinterpret_cast<uintptr_t>(p));
    if (it == abft_emu::g_allocs.end()) return ret(cudaErrorInvalidValue);
    mapped = it->second.mapped;
    abft_emu::g_allocs.erase(it);
  }
  abft_emu::ledger_note([](abft_emu::Ledger& l) { ++l.frees; });
  munmap(p, mapped);
  return cudaSuccess;
}
/** Where p is: 0 pageable host memory, 1 page-locked host memory (cudaMallocHost), 2 device. */
int memory_of(const void* p) {
  std::lock_guard<std::mutex> lock(abft_emu::g_alloc_mu);
  const auto* al = abft_emu::allocation_of(reinterpret_cast<uintptr_t>(p));
  return !al ? 0 : al->second.device ? 2 : 1;
}
/** A copy's bytes in the ledger, by where its ends are (cudaMemcpyDefault: by the pointers). A
 *  synchronous copy waits for the device; so does an asynchronous one from or to pageable host
 *  memory (CUDA's "API synchronization behavior": a copy to pageable memory returns when it is
 *  done, one from pageable memory may wait for the stream while it stages the data), not one
 *  between the device and page-locked memory. */
void note_copy(void* d, const void* s, size_t n, cudaMemcpyKind k, bool waits) {
  const int md = memory_of(d), ms = memory_of(s);
  if (k == cudaMemcpyDefault)
    k = md == 2 && ms == 2 ? cudaMemcpyDeviceToDevice : md == 2 ? cudaMemcpyHostToDevice
                                                      : ms == 2 ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost;
  if ((k == cudaMemcpyHostToDevice && ms == 0) || (k == cudaMemcpyDeviceToHost && md == 0) ||
      k == cudaMemcpyHostToHost)
    waits = true;
  abft_emu::ledger_note([&](abft_emu::Ledger& l) {
    ++l.copies;
    if (waits) ++l.host_waits;
    if (k == cudaMemcpyHostToDevice) l.bytes_h2d += n;
    else if (k == cudaMemcpyDeviceToHost) l.bytes_d2h += n;
    else if (k == cudaMemcpyDeviceToDevice) l.bytes_d2d += n;
  });
}
void note_wait() {
  abft_emu::ledger_note([](abft_emu::Ledger& l) { ++l.host_waits; });
}
}  // namespace

cudaError_t cudaMalloc(void** p, size_t n) { return map_memory(p, n, true); }
// Freeing waits for the device (queued work may still use the memory).
cudaError_t cudaFree(void* p) {
  abft_emu::sync_all();
  return unmap_memory(p);
}
cudaError_t cudaMallocHost(void** p, size_t n) { return map_memory(p, n, false); }
cudaError_t cudaHostAlloc(void** p, size_t n, unsigned) { return map_memory(p, n, false); }
cudaError_t cudaFreeHost(void* p) {
  abft_emu::sync_all();
  return unmap_memory(p);
}
namespace {
/** A copy of h rows of w bytes (pitches dp, sp), synchronous (`stream` unused) or queued on
 *  `stream` (async_mode): a copy to pageable memory waits for its stream and runs at once, one
 *  from pageable memory takes its source now (CUDA stages it), any other reads and writes its
 *  ends when it runs. */
cudaError_t copy_rows(void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h, cudaMemcpyKind k, bool sync,
                      cudaStream_t stream) {
  note_copy(d, s, w * h, k, sync);
  if (!w || !h) return cudaSuccess;
  auto rows = [=](const char* src, size_t pitch) {
    for (size_t r = 0; r < h; ++r) std::memmove(static_cast<char*>(d) + r * dp, src + r * pitch, w);
  };
  if (!abft_emu::async_mode()) {
    rows(static_cast<const char*>(s), sp);
    return cudaSuccess;
  }
  const int md = memory_of(d), ms = memory_of(s);
  if (sync || md == 0 && ms == 0) {
    abft_emu::sync_all();
    rows(static_cast<const char*>(s), sp);
  } else if (md == 0) {
    abft_emu::sync_stream(stream);
    rows(static_cast<const char*>(s), sp);
  } else if (ms == 0) {
    std::vector<char> staged(w * h);
    for (size_t r = 0; r < h; ++r) std::memcpy(staged.data() + r * w, static_cast<const char*>(s) + r * sp, w);
    abft_emu::enqueue(stream, [rows, staged = std::move(staged), w] { rows(staged.data(), w); });
  } else {
    abft_emu::enqueue(stream, [rows, s, sp] { rows(static_cast<const char*>(s), sp); });
  }
  return cudaSuccess;
}
cudaError_t copy(void* d, const void* s, size_t n, cudaMemcpyKind k, bool sync, cudaStream_t stream = nullptr) {
  if (n && (!d || !s)) return ret(cudaErrorInvalidValue);
  return copy_rows(d, n, s, n, n, 1, k, sync, stream);
}
cudaError_t copy2d(void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h, cudaMemcpyKind k, bool sync,
                   cudaStream_t stream = nullptr) {
  if (w > dp || w > sp) return ret(cudaErrorInvalidPitchValue);
  return copy_rows(d, dp, s, sp, w, h, k, sync, stream);
}
cudaError_t fill(void* p, int v, size_t n, bool sync, cudaStream_t stream = nullptr) {
  if (n && !p) return ret(cudaErrorInvalidValue);
  abft_emu::ledger_note([](abft_emu::Ledger& l) { ++l.memsets; });
  if (!n) return cudaSuccess;
  if (sync) abft_emu::sync_all();
  if (sync || !abft_emu::async_mode()) std::memset(p, v, n);
  else abft_emu::enqueue(stream, [p, v, n] { std::memset(p, v, n); });
  return cudaSuccess;
}
}  // namespace
// A synchronous copy waits for the device (the host's ledger counts it as a wait); an
// asynchronous one does not.
cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind k) { return copy(d, s, n, k, true); }
cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind k, cudaStream_t st) {
  return copy(d, s, n, k, false, st);
}
cudaError_t cudaMemcpy2D(void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h, cudaMemcpyKind k) {
  return copy2d(d, dp, s, sp, w, h, k, true);
}
cudaError_t cudaMemcpy2DAsync(void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h, cudaMemcpyKind k,
                              cudaStream_t st) {
  return copy2d(d, dp, s, sp, w, h, k, false, st);
}
cudaError_t cudaMemset(void* p, int v, size_t n) { return fill(p, v, n, true); }
cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t st) { return fill(p, v, n, false, st); }

// Streams: handles (distinct, non-null); their work is done when each call returns, or with
// async_mode queued (abft_emu::enqueue) until something waits for it.
cudaError_t cudaStreamCreate(cudaStream_t* s) {
  const cudaError_t e = new_handle(s);
  if (e == cudaSuccess) abft_emu::new_queue(*s, true);
  return e;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
  const cudaError_t e = new_handle(s);
  if (e == cudaSuccess) abft_emu::new_queue(*s, (flags & cudaStreamNonBlocking) == 0);
  return e;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  abft_emu::sync_stream(s);  // (CUDA lets queued work finish after the destroy)
  return free_handle(s);
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  note_wait();
  abft_emu::sync_stream(s);
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) {
  note_wait();
  abft_emu::sync_all();
  return cudaSuccess;
}
// An event holds the host's clock when its record ran: the work before it is done by then, so
// the time between two events is the emulator's time for the work between them (not a GPU's);
// with async_mode, also where its stream's queue stood when it was recorded. A handle owns a
// share of its stamp, a queued record another, so an event destroyed before its record runs is
// still there to stamp.
namespace {
struct EventHandle {
  std::shared_ptr<EventStamp> stamp = std::make_shared<EventStamp>();
};
EventStamp* stamp_of(cudaEvent_t e) { return reinterpret_cast<EventHandle*>(e)->stamp.get(); }
}  // namespace
cudaError_t cudaEventCreate(cudaEvent_t* e) {
  if (!e) return ret(cudaErrorInvalidValue);
  *e = reinterpret_cast<cudaEvent_t>(new EventHandle{});
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) { return cudaEventCreate(e); }
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete reinterpret_cast<EventHandle*>(e);
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (!e) return ret(cudaErrorInvalidResourceHandle);
  std::shared_ptr<EventStamp> t = reinterpret_cast<EventHandle*>(e)->stamp;
  t->recorded = true;
  abft_emu::enqueue(s, [t] { t->at = std::chrono::steady_clock::now(); });
  const auto mark = abft_emu::stream_mark(s);
  t->key = mark.first, t->count = mark.second;
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned) {
  if (!e) return ret(cudaErrorInvalidResourceHandle);
  const EventStamp* t = stamp_of(e);
  if (t->recorded) abft_emu::queue_wait(s, t->key, t->count);
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  note_wait();
  if (!e) return ret(cudaErrorInvalidResourceHandle);
  const EventStamp* t = stamp_of(e);
  if (t->recorded) abft_emu::sync_mark(t->key, t->count);
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  if (!ms || !a || !b) return ret(cudaErrorInvalidValue);
  const EventStamp* t0 = stamp_of(a);
  const EventStamp* t1 = stamp_of(b);
  if (!t0->recorded || !t1->recorded) return ret(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(t1->at - t0->at).count();
  return cudaSuccess;
}
cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute a, int v) {
  if (a == cudaFuncAttributeMaxDynamicSharedMemorySize && v > abft_emu::kSmemOptin) return ret(cudaErrorInvalidValue);
  return cudaSuccess;
}

}  // extern "C"
