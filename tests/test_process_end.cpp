// The CLI's release helper (cli/process_end.cpp): a process that starts one and then ends has its
// address space and file table held by the helper, which ends after it. A child process of the
// test starts the helper and opens a file and a mapping after it; the test sees both in the
// helper's /proc entries (shared, not copied), lets the child end without closing a pipe, and
// reads the pipe's end of file only once the helper has ended too.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli_test_support.hpp"
#include "process_end.hpp"

namespace {

using warpmatch_test::read_file;

// The target of /proc/PID/fd/FD, "" when there is none.
std::string fd_target(int pid, int fd) {
  char buf[4096];
  const std::string link = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

struct ChildReport {
  int helper = -1;
  int late_fd = -1;         // opened after the helper started
  unsigned long mapping = 0;  // mapped after the helper started
};

TEST(ProcessEnd, ReleaseHelperHoldsTheProcessMemoryAndFilesUntilAfterItEnds) {
  int report[2];
  int go[2];
  int held[2];
  ASSERT_EQ(::pipe(report), 0);
  ASSERT_EQ(::pipe(go), 0);
  ASSERT_EQ(::pipe(held), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(report[0]);
    ::close(go[1]);
    ::close(held[0]);
    ChildReport r;
    r.helper = warpmatch::cli::start_release_helper();
    r.late_fd = ::open("/dev/null", O_RDONLY);
    void* m = ::mmap(nullptr, 1 << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    r.mapping = m == MAP_FAILED ? 0 : reinterpret_cast<unsigned long>(m);
    if (::write(report[1], &r, sizeof r) != sizeof r) std::_Exit(3);
    char c;
    if (::read(go[0], &c, 1) != 1) std::_Exit(4);
    std::_Exit(0);  // held[1] still open: the helper holds it now
  }
  ::close(report[1]);
  ::close(go[0]);
  ::close(held[1]);
  ChildReport r;
  ASSERT_EQ(::read(report[0], &r, sizeof r), static_cast<ssize_t>(sizeof r));
  ASSERT_GT(r.helper, 0) << "no helper started (a kernel before Linux 5.3 has no pidfd)";
  ASSERT_NE(r.helper, child);
  ASSERT_GE(r.late_fd, 0);
  ASSERT_NE(r.mapping, 0u);

  // The helper is a process of its own whose file table and address space are the child's.
  EXPECT_NE(read_file("/proc/" + std::to_string(r.helper) + "/status").find("Tgid:\t" + std::to_string(r.helper)), std::string::npos);
  EXPECT_EQ(fd_target(r.helper, r.late_fd), "/dev/null");
  char range[64];
  std::snprintf(range, sizeof range, "%lx-", r.mapping);
  EXPECT_NE(read_file("/proc/" + std::to_string(r.helper) + "/maps").find(range), std::string::npos)
      << "the mapping made after the helper started is not in its address space";

  // It reaches its wait for the child's end and stays there (asleep) while the child lives. It
  // may still be running its first instructions when first looked at: looked at again until
  // asleep, for at most 30 s (a guard against a helper that never waits, not a timing).
  const std::string status_path = "/proc/" + std::to_string(r.helper) + "/status";
  std::string state = read_file(status_path);
  for (int i = 0; i < 3000 && state.find("State:\tS") == std::string::npos; ++i) {
    ::usleep(10000);
    state = read_file(status_path);
  }
  EXPECT_NE(state.find("State:\tS"), std::string::npos) << state.substr(0, 200);

  // The child ends; the pipe's write end it never closed is the helper's until the helper ends.
  ASSERT_EQ(::write(go[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  pollfd p{held[0], POLLIN, 0};
  // A guard against a helper that never ends, not a timing: it ends within milliseconds.
  ASSERT_EQ(::poll(&p, 1, 30000), 1) << "the helper did not end after the process it serves";
  char c;
  EXPECT_EQ(::read(held[0], &c, 1), 0);  // end of file: no writer is left
  ::close(report[0]);
  ::close(go[1]);
  ::close(held[0]);
}

}  // namespace
