#include "bench/e2e_spawner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "bench/bench_support.hpp"

extern char** environ;

namespace warpmatch::bench::e2e {

namespace fs = std::filesystem;
using support::trim;
using Clock = std::chrono::steady_clock;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Kills the process group of the child when the run outlives the timeout.
class Watchdog {
 public:
  explicit Watchdog(double timeout_s)
      : thread_([this, timeout_s] {
          std::unique_lock lock(mutex_);
          if (!cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [this] { return done_; }) &&
              pgid_ > 0) {
            ::kill(-pgid_, SIGKILL);
            fired_ = true;
          }
        }) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  void arm(pid_t pgid) {
    std::lock_guard lock(mutex_);
    pgid_ = pgid;
  }
  bool disarm() {  // returns whether it fired
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    return fired_;
  }
  ~Watchdog() { disarm(); }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false, fired_ = false;
  pid_t pgid_ = 0;
  std::thread thread_;
};

struct Reply {  // what the helper reports of one run
  double wall_s = 0;
  int status = 0;       // wait4's
  int spawn_errno = 0;  // posix_spawnp's error, 0 = started
  int timed_out = 0;
  long max_rss_kib = 0;
};

/// In the helper: runs argv (argv[0] searched in PATH) with stdin from /dev/null, stdout and
/// stderr to the given files, in its own process group (so the watchdog can kill a pipeline).
Reply spawn_and_wait(const std::vector<std::string>& argv, const std::string& out_path,
                     const std::string& err_path, double timeout_s) {
  Reply reply;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, pipe_only;
  sigemptyset(&none);
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &pipe_only);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  Watchdog watchdog(timeout_s);
  const auto t0 = Clock::now();
  pid_t pid = -1;
  reply.spawn_errno = posix_spawnp(&pid, cargv[0], &fa, &attr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (reply.spawn_errno != 0) return reply;
  watchdog.arm(pid);
  rusage ru{};
  while (::wait4(pid, &reply.status, 0, &ru) < 0 && errno == EINTR) {
  }
  reply.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  reply.timed_out = watchdog.disarm();
  reply.max_rss_kib = ru.ru_maxrss;
  return reply;
}

bool read_all(int fd, void* data, std::size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r, n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool write_all(int fd, const void* data, std::size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

Spawner::Spawner() {
  int down[2], up[2];
  if (::pipe2(down, O_CLOEXEC) != 0 || ::pipe2(up, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  helper_ = ::fork();
  if (helper_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (helper_ == 0) {
    ::close(down[1]);
    ::close(up[0]);
    serve(down[0], up[1]);
    ::_exit(0);
  }
  ::close(down[0]);
  ::close(up[1]);
  to_ = down[1];
  from_ = up[0];
}

Spawner::~Spawner() {
  ::close(to_);  // the helper sees end of file and exits
  ::close(from_);
  int status = 0;
  while (::waitpid(helper_, &status, 0) < 0 && errno == EINTR) {
  }
}

RunResult Spawner::run(const std::vector<std::string>& argv, const fs::path& scratch, double timeout_s) {
  RunResult r;
  const std::string out_path = (scratch / "stdout").string(), err_path = (scratch / "stderr").string();
  std::vector<std::string> msg{out_path, err_path};
  msg.insert(msg.end(), argv.begin(), argv.end());
  std::string req;
  auto put = [&](const void* p, std::size_t n) { req.append(static_cast<const char*>(p), n); };
  const auto count = static_cast<std::uint32_t>(msg.size());
  put(&count, sizeof count);
  for (const auto& m : msg) {
    const auto len = static_cast<std::uint32_t>(m.size());
    put(&len, sizeof len);
    put(m.data(), m.size());
  }
  put(&timeout_s, sizeof timeout_s);
  Reply reply;
  if (!write_all(to_, req.data(), req.size()) || !read_all(from_, &reply, sizeof reply))
    throw std::runtime_error("the benchmark's process-starting helper died");
  if (reply.spawn_errno != 0) {
    r.error = fmt::format("cannot run {}: {}", argv[0], std::strerror(reply.spawn_errno));
    return r;
  }
  r.wall_s = reply.wall_s;
  r.max_rss_mib = static_cast<double>(reply.max_rss_kib) / 1024.0;  // ru_maxrss is in KiB
  r.out = read_text(out_path);
  r.err = read_text(err_path);
  if (reply.timed_out) {
    r.error = fmt::format("killed after {:.0f} s (the run timeout)", timeout_s);
  } else if (WIFSIGNALED(reply.status)) {
    r.error = fmt::format("killed by signal {}", WTERMSIG(reply.status));
  } else {
    r.exit_code = WEXITSTATUS(reply.status);
    if (r.exit_code > 1) {
      std::string text = trim(r.err.empty() ? r.out : r.err);
      if (text.size() > 300) text = text.substr(0, 300) + "...";
      r.error = fmt::format("exit status {}: {}", r.exit_code, text);
    }
  }
  r.ok = r.error.empty();
  return r;
}

void Spawner::serve(int in, int out) {
  for (;;) {
    std::uint32_t count = 0;
    if (!read_all(in, &count, sizeof count)) return;
    std::vector<std::string> msg(count);
    for (auto& m : msg) {
      std::uint32_t len = 0;
      if (!read_all(in, &len, sizeof len)) return;
      m.resize(len);
      if (len && !read_all(in, m.data(), len)) return;
    }
    double timeout_s = 0;
    if (!read_all(in, &timeout_s, sizeof timeout_s) || msg.size() < 3) return;
    const Reply reply = spawn_and_wait({msg.begin() + 2, msg.end()}, msg[0], msg[1], timeout_s);
    if (!write_all(out, &reply, sizeof reply)) return;
  }
}

}  // namespace warpmatch::bench::e2e
