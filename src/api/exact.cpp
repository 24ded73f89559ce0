// Exact search, the public entry: validates options, resolves the backend and algorithm
// once at compile(), then routes each scan to src/cpu or src/cuda and turns the backends'
// start offsets into Match values for the caller's sink.
#include <chrono>

#include "api/backend_choice.hpp"
#include "api/multi_device.hpp"
#include "api/scan_stats.hpp"
#include "core/device_split.hpp"
#include "core/exact_pattern.hpp"
#include "core/line_select.hpp"
#include "cpu/exact_cpu.hpp"
#include "cuda/exact/exact_cuda.hpp"
#include "warpmatch/exact.hpp"

namespace warpmatch {

struct ExactMatcher::Impl {
  ExactOptions options;
  core::ExactPattern pattern;
  Backend backend = Backend::cpu;
  std::string algorithm;  // resolved name
  cpu::ExactAlgorithm cpu_algorithm = cpu::ExactAlgorithm::fast;
  cuda::ExactAlgorithm cuda_algorithm = cuda::ExactAlgorithm::fast;
  int threads = 1;
  std::vector<int> workers;  // cuda: the GPUs a scan is split over (Execution::devices)
  std::string device_label;  // the GPU's name or "cpu (N threads)"
  // cuda: the pattern uploaded at compile to each GPU a scan is split over (workers, in
  // order; one for a single device); scans reuse their scratches.
  std::vector<std::shared_ptr<const cuda::ExactDevicePattern>> device_patterns;

  /// A text of at least the pattern's length.
  std::uint64_t run(ByteSpan text, bool count_only, const core::StartsSink& sink) const {
    if (backend != Backend::cuda) return cpu::exact_scan(pattern, text, cpu_algorithm, threads, count_only, sink);
    const cuda::DeviceMemoryLimitScope cap(options.device_memory_limit);
    // Shares overlap by m - 1 bytes: a share reads exactly the starts it owns.
    const std::vector<core::Chunk> shares = core::plan_device_shares(
        text.size(), workers.size(), pattern.size() - 1,
        multi_device::min_share(multi_device::SplitPolicy::text_share_bytes));
    if (shares.size() <= 1) return cuda::exact_scan(*device_patterns[0], text, count_only, sink);
    auto piece = [&](std::size_t i) { return text.subspan(shares[i].begin, shares[i].read_end - shares[i].begin); };
    if (count_only) {
      std::vector<std::uint64_t> counts(shares.size(), 0);
      multi_device::run_per_device(shares.size(), [&](std::size_t i) {
        if (piece(i).size() >= pattern.size())
          counts[i] = cuda::exact_scan(*device_patterns[i], piece(i), true, {});
      }, workers);
      std::uint64_t total = 0;
      for (const std::uint64_t c : counts) total += c;
      return total;
    }
    std::uint64_t delivered = 0;
    multi_device::deliver_in_share_order<std::uint64_t>(
        shares.size(),
        [&](std::size_t i, const auto& out) {
          if (piece(i).size() < pattern.size()) return;
          std::vector<std::uint64_t> absolute;
          cuda::exact_scan(*device_patterns[i], piece(i), false, [&](std::span<const std::uint64_t> starts) {
            absolute.assign(starts.begin(), starts.end());
            for (auto& s : absolute) s += shares[i].begin;
            return out(std::span<const std::uint64_t>(absolute));
          });
        },
        [&](std::span<const std::uint64_t> starts) {
          delivered += starts.size();
          return sink(starts);
        },
        workers);
    return delivered;
  }

  void fill_stats(ScanStats* stats, ByteSpan text, std::uint64_t matches, double seconds) const {
    api::fill_scan_stats(stats, backend, algorithm, device_label, text.size(), matches, seconds);
  }
};

namespace {

using api::kMatchBatch;
using api::seconds_since;

}  // namespace

ExactMatcher ExactMatcher::compile(ByteSpan pattern, const ExactOptions& options) {
  if (pattern.empty()) throw InvalidArgument("empty pattern: exact search needs at least one byte");
  core::check_device_list(options);
  auto impl = std::make_shared<Impl>();
  impl->options = options;
  impl->pattern.case_insensitive = options.case_insensitive;
  impl->pattern.bytes.assign(pattern.begin(), pattern.end());
  if (options.case_insensitive)
    for (auto& c : impl->pattern.bytes) c = core::fold_ascii(c);
  impl->threads = core::execution_threads(options);

  const std::string& algo = options.algorithm;
  impl->backend = core::backend_for_algorithm(options.backend, algo, {"naive"},
                                              {"bf", "firstlast", "prefix"});

  constexpr std::string_view kOperation = "exact search";
  if (impl->backend == Backend::cpu) {
    using A = cpu::ExactAlgorithm;
    impl->cpu_algorithm = core::pick_algorithm<A>(algo, kOperation, Backend::cpu, {{"fast", A::fast}, {"naive", A::naive}},
                                                  "'bf' runs on the cuda backend", impl->algorithm);
    if (impl->cpu_algorithm == A::naive) impl->threads = 1;
  } else {
    using A = cuda::ExactAlgorithm;
    impl->cuda_algorithm = core::pick_algorithm<A>(
        algo, kOperation, Backend::cuda,
        {{"fast", A::fast}, {"firstlast", A::first_last}, {"prefix", A::prefix}, {"bf", A::bf}},
        "'naive' runs on the cpu backend", impl->algorithm);
  }
  impl->workers = core::execution_devices(options, impl->backend);
  if (impl->backend == Backend::cuda) {
    impl->device_label = core::cuda_devices_label(impl->workers);
    const cuda::DeviceMemoryLimitScope cap(options.device_memory_limit);
    for (const int device : impl->workers)
      impl->device_patterns.push_back(cuda::exact_upload(impl->pattern, impl->cuda_algorithm, device));
  } else {
    impl->device_label = core::cpu_device_label(impl->threads);
  }
  return ExactMatcher(std::move(impl));
}

std::uint64_t ExactMatcher::count(ByteSpan text, ScanStats* stats) const {
  const auto t0 = api::clock_for(stats);
  const std::uint64_t n =
      text.size() < impl_->pattern.size() ? 0 : impl_->run(text, /*count_only=*/true, {});
  impl_->fill_stats(stats, text, n, api::seconds_for(stats, t0));
  return n;
}

std::uint64_t ExactMatcher::scan(ByteSpan text, const MatchSink& sink, ScanStats* stats) const {
  return api::scan_one_at_a_time(sink, stats, [&](const MatchBatchSink& batches) { scan_batches(text, batches, stats); });
}

std::uint64_t ExactMatcher::scan_batches(ByteSpan text, const MatchBatchSink& sink, ScanStats* stats) const {
  const auto t0 = api::clock_for(stats);
  const std::uint64_t m = impl_->pattern.size();
  std::uint64_t delivered = 0;
  if (text.size() >= m) {
    // The scan hands on starts; they become matches a bounded batch at a time.
    std::vector<Match> batch;
    impl_->run(text, /*count_only=*/false, [&](std::span<const std::uint64_t> starts) {
      for (std::size_t i = 0; i < starts.size(); i += kMatchBatch) {
        const std::span<const std::uint64_t> part = starts.subspan(i, std::min(kMatchBatch, starts.size() - i));
        batch.resize(part.size());
        for (std::size_t j = 0; j < part.size(); ++j) batch[j] = Match{.pattern = 0, .start = part[j], .end = part[j] + m};
        delivered += batch.size();
        if (!sink(batch)) return false;
      }
      return true;
    });
  }
  impl_->fill_stats(stats, text, delivered, api::seconds_for(stats, t0));
  return delivered;
}

std::uint64_t ExactMatcher::count_device_text(DeviceSpan text, ScanStats* stats) const {
  return count(core::device_resident_text(text, impl_->options, impl_->backend, "exact search"), stats);
}

std::uint64_t ExactMatcher::scan_device_text(DeviceSpan text, const MatchSink& sink, ScanStats* stats) const {
  return scan(core::device_resident_text(text, impl_->options, impl_->backend, "exact search"), sink,
              stats);
}

std::vector<std::uint64_t> ExactMatcher::first_match_per_line(ByteSpan text, std::uint64_t starts_below, std::uint64_t most) const {
  if (text.size() < impl_->pattern.size()) return {};
  if (impl_->backend != Backend::cuda)
    return cpu::exact_first_per_line(impl_->pattern, text, starts_below, most, impl_->cpu_algorithm, impl_->threads);
  core::LineFirsts firsts(text, starts_below, most);
  impl_->run(text, /*count_only=*/false, [&](std::span<const std::uint64_t> starts) { return firsts.take(starts); });
  return std::move(firsts.firsts());
}

std::vector<Match> ExactMatcher::find_all(ByteSpan text) const {
  std::vector<Match> out;
  scan_batches(text, [&](std::span<const Match> batch) {
    out.insert(out.end(), batch.begin(), batch.end());
    return true;
  });
  return out;
}

std::size_t ExactMatcher::pattern_length() const { return impl_->pattern.size(); }
Backend ExactMatcher::backend() const { return impl_->backend; }
const std::string& ExactMatcher::algorithm() const { return impl_->algorithm; }
const ExactOptions& ExactMatcher::options() const { return impl_->options; }
const std::string& ExactMatcher::device_label() const { return impl_->device_label; }

ExactMatcher::ExactMatcher(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
ExactMatcher::ExactMatcher(ExactMatcher&&) noexcept = default;
ExactMatcher& ExactMatcher::operator=(ExactMatcher&&) noexcept = default;
ExactMatcher::~ExactMatcher() = default;

}  // namespace warpmatch
