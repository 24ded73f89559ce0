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

/// A matcher's GPU form, compiled on its first use (under a lock; once). A compile that
/// fails under auto (no usable GPU after all) leaves the matcher on the CPU for good.
template <class Form>
class LazyGpuForm {
 public:
  /// The form, compiling it with `compile` on first use; nullptr when that failed.
  template <class Compile>
  const Form* get(Compile&& compile) const {
    std::lock_guard lock(mutex_);
    if (!tried_) {
      tried_ = true;
      try {
        form_.emplace(compile());
        note_cuda_running();
      } catch (const DeviceError&) {
      } catch (const BackendUnavailable&) {
      }
    }
    return form_ ? &*form_ : nullptr;
  }
  /// The form if it was compiled, else nullptr (no compile).
  const Form* ready() const {
    std::lock_guard lock(mutex_);
    return form_ ? &*form_ : nullptr;
  }

 private:
  mutable std::mutex mutex_;
  mutable bool tried_ = false;
  mutable std::optional<Form> form_;
};

}  // namespace warpmatch::python
