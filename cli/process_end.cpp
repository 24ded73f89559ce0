// The release helper (process_end.hpp). It runs on the parent's thread-local storage and
// memory: it makes raw system calls only, no libc call that could touch errno or a lock.
#include "process_end.hpp"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace warpmatch::cli {
namespace {

// The pidfd of this process: readable once the whole thread group has ended (Linux 5.3).
int parent_pidfd = -1;
alignas(64) char helper_stack[64 * 1024];

// Not instrumented by the sanitizers: their run-time state is per thread, and the helper has none.
__attribute__((no_sanitize("address", "undefined"))) int release_helper_main(void*) {
  pollfd parent{parent_pidfd, POLLIN, 0};
  // Signals are all blocked (start_release_helper), so only the parent's end wakes it. A failed
  // wait (an interruption; no other error is expected of a valid pidfd) is tried again, but not
  // forever: a helper that gives up only returns the release to the parent's end, while one
  // that spun would hold the GPU and a core.
  for (int tries = 0; tries < 1000 && ::syscall(SYS_ppoll, &parent, 1, nullptr, nullptr, sizeof(sigset_t)) < 0; ++tries) {
  }
  ::syscall(SYS_exit, 0);
  return 0;
}

}  // namespace

int start_release_helper() {
  if (parent_pidfd < 0) parent_pidfd = static_cast<int>(::syscall(SYS_pidfd_open, ::getpid(), 0));
  if (parent_pidfd < 0) return -1;  // a kernel before 5.3
  // Every signal blocked in the helper from its first instruction: it inherits this thread's mask.
  sigset_t all;
  sigset_t old;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  // SIGCHLD: an ordinary child, reaped by whoever inherits it once this process has ended.
  const int pid = ::clone(release_helper_main, helper_stack + sizeof helper_stack, CLONE_VM | CLONE_FILES | SIGCHLD, nullptr);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return pid;
}

void end_process_after_cuda(int status) {
  std::fflush(nullptr);
  const char* release = std::getenv("WARPMATCH_GPU_RELEASE");
  if (!(release != nullptr && std::strcmp(release, "inline") == 0) && start_release_helper() > 0) {
    // The helper shares the file table: a pipe we write to ends when these close, not when it ends.
    ::close(0);
    ::close(1);
    ::close(2);
  }
  std::_Exit(status);
}

}  // namespace warpmatch::cli
