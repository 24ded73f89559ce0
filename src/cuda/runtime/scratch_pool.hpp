// Per-scan mutable state of a compiled CUDA matcher, kept for the next scan (Hyperscan's
// database / scratch split): the compiled object (device tables, immutable) owns a pool of
// scratches — streams, device buffers, pinned staging — and a scan takes one, grows what it
// needs and gives it back. A thread that finds every scratch in use makes another, so scans
// from several threads at once never wait on each other, and a matcher scanned once per FASTA
// record allocates on its first record only (and when a larger record needs more room).
// The pool is a member of the compiled object, freed with it on its device (DeviceOwner in
// device_runtime.cuh); a lease keeps no reference to the object, so the object must outlive its
// scans (the API's matchers hold it by shared_ptr). Plain C++ (no CUDA types): the scratch type
// is defined in the .cu file that uses it.
#pragma once

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace warpmatch::cuda::detail {

template <class Scratch>
class ScratchPool {
 public:
  /// A scratch taken from the pool; goes back to it on destruction.
  class Lease {
   public:
    Lease(ScratchPool& pool, std::unique_ptr<Scratch> scratch) : pool_(&pool), scratch_(std::move(scratch)) {}
    ~Lease() {
      if (scratch_) pool_->give_back(std::move(scratch_));
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Scratch& operator*() const { return *scratch_; }
    Scratch* operator->() const { return scratch_.get(); }

   private:
    ScratchPool* pool_;
    std::unique_ptr<Scratch> scratch_;
  };

  /// A free scratch, or make() -> std::unique_ptr<Scratch> when all are in use.
  template <class Make>
  Lease take(Make&& make) {
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<Scratch> s = std::move(free_.back());
        free_.pop_back();
        return Lease(*this, std::move(s));
      }
    }
    return Lease(*this, make());
  }

 private:
  void give_back(std::unique_ptr<Scratch> s) {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(s));
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<Scratch>> free_;
};

}  // namespace warpmatch::cuda::detail
