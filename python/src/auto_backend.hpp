// backend="auto" in the Python API: the cost model's choice for each call (what the command
// line's --backend auto does for each job), not "the GPU whenever one is present". A Python
// user calls us in loops, one read, one primer, one pair at a time: there CUDA's start-up
// (~0.3 s) and a GPU call's launch and copies (~tens of us) cost far more than the CPU's
// answer, which the library's own `automatic` (the GPU when present) would pay.
//
// A long-lived caller meets a choice the command line never does: whether to start CUDA at all.
// Starting it pays off only over many calls, none of which alone would pay for it. The rule is
// ski rental: CUDA starts once the time the GPU would have saved so far (each call's CPU
// estimate minus its GPU estimate with CUDA already running) reaches the start-up's cost, which
// is never more than twice the better choice made with hindsight. Where CUDA already runs in
// the process (any GPU work through this module), a call goes to whichever backend the model
// says is faster for it.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "warpmatch/common.hpp"
#include "warpmatch/cost_model.hpp"

namespace warpmatch::python {

/// Whether calls under `backend` choose their backend one by one: "auto", no device list, and
/// a GPU present by the driver's files (CUDA is not initialised to find out). Otherwise the
/// library resolves the backend once, as before (a device list means the GPUs).
bool chooses_per_call(const std::string& backend, const std::vector<int>& devices);

/// The backend for one call of `job` under per-call auto (job.cuda_running is filled in here),
/// and the ski-rental account above. Process-wide: CUDA's start-up is the process's.
Backend choose_per_call(JobShape job);

/// Records that this process has started CUDA through the module (a GPU matcher compiled, a
/// GPU call made): later choices pay no start-up.
void note_cuda_running();

/// The compiled forms behind one Python matcher and the choice between them for each call.
/// The main form is compiled at construction: the CPU's under per-call auto, else the one the
/// library resolved. Under per-call auto the GPU's form is compiled on its first use (once,
/// under a lock); a compile that fails (no usable GPU after all) leaves the matcher on the CPU
/// for good. `backend()` and `last()` tell the last call's choice, the main form's before any.
template <class Form>
class PerCallForms {
 public:
  /// Once, in the matcher's constructor (the forms are not movable: a lock and an atomic).
  void init(Form main, bool per_call) {
    main_.emplace(std::move(main));
    per_call_ = per_call;
    if (main_->backend() == Backend::cuda) note_cuda_running();
    last_ = main_->backend();
  }

  const Form& main() const { return *main_; }
  bool per_call() const { return per_call_; }

  /// The form for GPU-resident text: the GPU's (compiled with `compile_gpu` on first use).
  template <class CompileGpu>
  const Form& for_device(CompileGpu&& compile_gpu) const {
    if (!per_call_) return *main_;
    const Form* gpu = gpu_form(compile_gpu);
    if (!gpu) throw BackendUnavailable("GPU-resident text needs the cuda backend, which failed to start here");
    last_.store(Backend::cuda, std::memory_order_relaxed);
    return *gpu;
  }

  /// The form for host bytes: the cost model's choice for the job `make_job()` describes
  /// (called only under per-call auto: building the shape costs a pass over the patterns).
  template <class MakeJob, class CompileGpu>
  const Form& for_host(MakeJob&& make_job, CompileGpu&& compile_gpu) const {
    if (!per_call_) return *main_;
    const Form* gpu = choose_per_call(make_job()) == Backend::cuda ? gpu_form(compile_gpu) : nullptr;
    last_.store(gpu ? Backend::cuda : Backend::cpu, std::memory_order_relaxed);
    return gpu ? *gpu : *main_;
  }

  Backend backend() const { return last_.load(std::memory_order_relaxed); }
  /// The form the last call ran on (for its algorithm's name).
  const Form& last() const {
    if (backend() == Backend::cuda && per_call_) {
      std::lock_guard lock(mutex_);
      if (gpu_) return *gpu_;
    }
    return *main_;
  }

 private:
  template <class CompileGpu>
  const Form* gpu_form(CompileGpu& compile_gpu) const {
    std::lock_guard lock(mutex_);
    if (!tried_) {
      tried_ = true;
      try {
        gpu_.emplace(compile_gpu());
        note_cuda_running();
      } catch (const DeviceError&) {
      } catch (const BackendUnavailable&) {
      }
    }
    return gpu_ ? &*gpu_ : nullptr;
  }

  std::optional<Form> main_;
  bool per_call_ = false;
  mutable std::mutex mutex_;  // guards tried_ and gpu_
  mutable bool tried_ = false;
  mutable std::optional<Form> gpu_;
  mutable std::atomic<Backend> last_{Backend::cpu};
};

}  // namespace warpmatch::python
