/** \file workers.cpp
 *  \brief The campaign's worker processes and watchdog (campaign.hpp: run_campaign).
 *
 *  The parent never runs a kernel: it forks `jobs` workers (before any OpenMP team exists in
 *  the parent, so fork is safe), each running trials j, j + jobs, ... in order and writing one
 *  TrialRecord per trial into a pipe. The parent polls the pipes. A worker that dies (a
 *  signal, or an exit before its last trial) turns the trial it was running into a Crash; one
 *  silent for longer than the timeout is killed and its trial becomes a Hang. Either way a new
 *  worker continues from the next trial, so one bad trial never stops the campaign.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "campaign/campaign.hpp"

namespace abft::campaign {

namespace {

using Clock = std::chrono::steady_clock;

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= size_t(w);
  }
  return true;
}

/** Worker body: never returns. Exit 3 when the kernel cannot be made (message on stderr). */
[[noreturn]] void worker_main(const Options& o, const std::vector<int64_t>& ids, size_t from, int fd) {
  std::string err;
  std::unique_ptr<TrialRunner> tr = TrialRunner::create(o, &err);
  if (!tr) {
    std::fprintf(stderr, "abft campaign: %s\n", err.c_str());
    std::fflush(stderr);
    _exit(3);
  }
  for (size_t i = from; i < ids.size(); ++i) {
    const TrialRecord r = tr->run(ids[i]);
    if (!write_all(fd, &r, sizeof r)) _exit(4);
  }
  tr.reset();
  _exit(0);
}

struct Worker {
  std::vector<int64_t> ids;
  size_t pos = 0;  ///< next trial (index into ids) without a record
  pid_t pid = -1;
  int fd = -1;
  Clock::time_point last;
  std::vector<char> buf;
};

/** Fork a child that runs body(write end of a pipe) and never returns; the parent gets the
 *  child's pid and the read end (false, nothing left open, when either cannot be made). */
template <class F>
bool fork_with_pipe(F body, pid_t* pid, int* fd) {
  int p[2];
  if (::pipe(p) != 0) return false;
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(p[0]);
    ::close(p[1]);
    return false;
  }
  if (child == 0) {
    ::close(p[0]);
    body(p[1]);
    _exit(0);
  }
  ::close(p[1]);
  *pid = child;
  *fd = p[0];
  return true;
}

bool spawn(const Options& o, Worker& w) {
  if (!fork_with_pipe([&](int fd) { worker_main(o, w.ids, w.pos, fd); }, &w.pid, &w.fd)) return false;
  w.last = Clock::now();
  w.buf.clear();
  return true;
}

/** Reap a worker that closed its pipe or was killed; returns its wait status. */
int reap(Worker& w) {
  int st = 0;
  if (w.pid > 0) ::waitpid(w.pid, &st, 0);
  if (w.fd >= 0) ::close(w.fd);
  w.pid = -1;
  w.fd = -1;
  return st;
}

class Progress {
 public:
  Progress(bool on, int64_t total) : on_(on && ::isatty(2)), total_(total), t0_(Clock::now()) {}
  void update(int64_t done, int64_t failures, bool force = false) {
    if (!on_) return;
    const auto now = Clock::now();
    if (!force && now - shown_ < std::chrono::milliseconds(200)) return;
    shown_ = now;
    const double s = std::chrono::duration<double>(now - t0_).count();
    const double rate = s > 0 ? double(done) / s : 0.0;
    const double eta = rate > 0 ? double(total_ - done) / rate : 0.0;
    const int width = 30, fill = total_ ? int(width * done / total_) : width;
    std::fprintf(stderr, "\r[%.*s%*s] %lld/%lld  %.0f trials/s  ETA %.0f s  failures %lld ", fill,
                 "##############################", width - fill, "", static_cast<long long>(done),
                 static_cast<long long>(total_), rate, eta, static_cast<long long>(failures));
    std::fflush(stderr);
  }
  void finish() {
    if (on_) std::fprintf(stderr, "\n");
  }

 private:
  bool on_;
  int64_t total_;
  Clock::time_point t0_, shown_{};
};

}  // namespace

bool probe_kernel(const Options& o, std::string* desc, std::string* error) {
  pid_t pid = -1;
  int fd = -1;
  const bool forked = fork_with_pipe(
      [&](int out) {
        std::string err;
        std::unique_ptr<TrialRunner> tr = TrialRunner::create(o, &err);
        const std::string msg = tr ? "+" + tr->kernel().describe() : "-" + err;
        write_all(out, msg.data(), msg.size());
      },
      &pid, &fd);
  if (!forked) {
    *error = "could not start a process";
    return false;
  }
  std::string msg;
  char buf[4096];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    msg.append(buf, size_t(got));
  }
  ::close(fd);
  int st = 0;
  ::waitpid(pid, &st, 0);
  if (msg.empty()) {
    *error = "the kernel could not be set up (the probe process died)";
    return false;
  }
  if (msg[0] == '-') {
    *error = msg.substr(1);
    return false;
  }
  *desc = msg.substr(1);
  return true;
}

std::vector<TrialRecord> run_campaign(const Options& o, std::string* error) {
  std::vector<TrialRecord> out;
  if (o.trials <= 0) return out;
  int jobs = o.jobs;
  if (jobs <= 0) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    jobs = std::max(1, int(hw) / std::max(1, o.kernel.threads));
  }
  jobs = int(std::min<int64_t>(jobs, o.trials));
  std::vector<Worker> ws(static_cast<size_t>(jobs));
  for (int64_t t = 0; t < o.trials; ++t) ws[size_t(t % jobs)].ids.push_back(t);
  signal(SIGPIPE, SIG_IGN);
  for (Worker& w : ws)
    if (!spawn(o, w)) {
      *error = "could not start a worker process";
      for (Worker& x : ws)
        if (x.pid > 0) {
          ::kill(x.pid, SIGKILL);
          reap(x);
        }
      return {};
    }
  Progress bar(o.progress, o.trials);
  int64_t failures = 0;
  out.reserve(size_t(o.trials));
  const auto timeout = std::chrono::duration<double>(o.timeout_s);
  auto lost = [&](Worker& w, Outcome oc, int sig) {
    TrialRecord r;
    r.id = w.ids[w.pos];
    r.outcome = oc;
    r.signal = sig;
    r.ms = std::chrono::duration<double, std::milli>(Clock::now() - w.last).count();
    out.push_back(r);
    ++failures;
    ++w.pos;
  };
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Worker*> who;
    for (Worker& w : ws)
      if (w.fd >= 0) {
        fds.push_back({w.fd, POLLIN, 0});
        who.push_back(&w);
      }
    if (fds.empty()) break;
    const int n = ::poll(fds.data(), nfds_t(fds.size()), 100);
    if (n < 0 && errno != EINTR) {
      *error = std::string("poll: ") + std::strerror(errno);
      break;
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      Worker& w = *who[i];
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char chunk[1 << 14];
        const ssize_t got = ::read(w.fd, chunk, sizeof chunk);
        if (got > 0) {
          w.buf.insert(w.buf.end(), chunk, chunk + got);
          while (w.buf.size() >= sizeof(TrialRecord)) {
            TrialRecord r;
            std::memcpy(&r, w.buf.data(), sizeof r);
            w.buf.erase(w.buf.begin(), w.buf.begin() + sizeof r);
            failures += outcome_is_failure(r.outcome) || r.clean == CleanOutcome::FalsePositive ||
                        r.clean == CleanOutcome::Mismatch;
            out.push_back(r);
            ++w.pos;
            w.last = Clock::now();
          }
          continue;
        }
        if (got < 0 && errno == EINTR) continue;
        // End of stream: the worker finished, or died.
        const int st = reap(w);
        if (w.pos < w.ids.size()) {
          if (WIFEXITED(st) && WEXITSTATUS(st) == 3 && out.empty()) {
            *error = "the kernel could not be set up (see the message above)";
            for (Worker& x : ws)
              if (x.pid > 0) {
                ::kill(x.pid, SIGKILL);
                reap(x);
              }
            return {};
          }
          lost(w, Outcome::Crash, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
          if (w.pos < w.ids.size() && !spawn(o, w)) {
            *error = "could not restart a worker process";
            return out;
          }
        }
      } else if (w.pos < w.ids.size() && Clock::now() - w.last > timeout) {
        ::kill(w.pid, SIGKILL);
        reap(w);
        lost(w, Outcome::Hang, 0);
        if (w.pos < w.ids.size() && !spawn(o, w)) {
          *error = "could not restart a worker process";
          return out;
        }
      }
    }
    bar.update(int64_t(out.size()), failures);
  }
  bar.update(int64_t(out.size()), failures, true);
  bar.finish();
  std::sort(out.begin(), out.end(), [](const TrialRecord& a, const TrialRecord& b) { return a.id < b.id; });
  return out;
}

}  // namespace abft::campaign
