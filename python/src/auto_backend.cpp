// backend="auto" chosen call by call (see auto_backend.hpp).
#include "auto_backend.hpp"

#include <atomic>

#include "core/cost_model_tuning.hpp"

namespace warpmatch::python {

namespace {

std::atomic<bool> g_cuda_running{false};
std::mutex g_rental_mutex;
double g_gpu_would_have_saved = 0;  // seconds, over the calls that stayed on the CPU

// The model's estimates without its reason line (a call's choice costs tens of nanoseconds),
// for the environment's rates and a GPU that chooses_per_call() has already seen.
BackendChoice estimate(const JobShape& job) {
  return core::estimate_backends(job, core::loaded_cost_model(), /*gpu_visible=*/true, /*with_reason=*/false);
}

}  // namespace

bool chooses_per_call(const std::string& backend, const std::vector<int>& devices) {
  if (backend != "auto" || !devices.empty()) return false;
  static const bool gpu = gpu_visible_without_init();  // reads the driver's files once
  return gpu;
}

void note_cuda_running() { g_cuda_running.store(true, std::memory_order_relaxed); }

Backend choose_per_call(JobShape job) {
  job.cuda_running = g_cuda_running.load(std::memory_order_relaxed);
  const BackendChoice now = estimate(job);
  if (now.backend == Backend::cuda || job.cuda_running) return now.backend;
  // CUDA is not running and this call alone would not pay for starting it. Would the GPU be
  // faster once running? Then count what it would have saved, and start it when that reaches
  // the start-up's cost (the difference of the two estimates).
  JobShape warm = job;
  warm.cuda_running = true;
  const BackendChoice running = estimate(warm);
  if (running.backend != Backend::cuda) return Backend::cpu;
  const double start_up = now.cuda_seconds - running.cuda_seconds;
  std::lock_guard lock(g_rental_mutex);
  g_gpu_would_have_saved += running.cpu_seconds - running.cuda_seconds;
  if (g_gpu_would_have_saved < start_up) return Backend::cpu;
  g_gpu_would_have_saved = 0;
  return Backend::cuda;
}

}  // namespace warpmatch::python
