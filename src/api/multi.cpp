// Multi-pattern exact search, the public entry: validates options, builds the pattern set and
// the tables the chosen algorithm needs (timed, sized), resolves the backend once at
// compile(), then routes each scan to src/cpu or src/cuda.
#include <algorithm>
#include <chrono>
#include <type_traits>

#include "api/backend_choice.hpp"
#include "api/multi_device.hpp"
#include "api/scan_stats.hpp"
#include "api/tuning_hooks.hpp"
#include "core/device_split.hpp"
#include "core/multi_patterns.hpp"
#include "core/nucleotide.hpp"
#include "core/line_select.hpp"
#include "cpu/multi_cpu.hpp"
#include "cuda/multi/multi_cuda.hpp"
#include "warpmatch/multi.hpp"
#include "warpmatch/sequence.hpp"

namespace warpmatch {

struct MultiMatcher::Impl {
  MultiOptions options;
  core::PatternSet set;
  core::PrefixIndex index;  // fast
  core::MbndmPlan plan;     // cpu mbndm
  cpu::MultiTrie trie;      // cpu fast
  // cuda: the tables uploaded to each GPU a scan is split over (Execution::devices), in order.
  std::vector<std::shared_ptr<const cuda::MultiDeviceTables>> device_tables;
  std::vector<int> workers;  // cuda: their GPUs (device_tables[i] is on workers[i])
  Backend backend = Backend::cpu;
  std::string algorithm;
  cpu::MultiAlgorithm cpu_algorithm = cpu::MultiAlgorithm::fast;
  int threads = 1;
  std::string device_label;
  MultiCompileStats stats;
  // Sequence search (strands, IUPAC): the set holds each pattern's plain variants, user
  // pattern by pattern, '+' before '-'; a literal reports as its user pattern and strand.
  bool sequence = false;
  std::size_t user_patterns = 0;
  std::vector<std::uint32_t> literal_user;
  std::vector<char> literal_strand;

  /// compile() with the M-BNDM configuration (a member: it may call MultiMatcher's private
  /// constructor).
  static MultiMatcher compile(const std::vector<std::string>& patterns, const MultiOptions& options,
                              const tuning_hooks::MbndmGpuConfig& cfg);

  Match reported(Match m) const {
    if (sequence) {
      m.strand = literal_strand[m.pattern];
      m.pattern = literal_user[m.pattern];
    }
    return m;
  }

  cpu::MultiTables cpu_tables() const { return {&set, &index, &plan, &trie}; }

  /// The text's shares over the GPUs (one when the text is small or there is one GPU). They
  /// overlap by the longest pattern - 1 bytes, so a share also sees shorter patterns starting
  /// after its owned range: those belong to the next share.
  std::vector<core::Chunk> text_shares(ByteSpan text) const {
    return core::plan_device_shares(text.size(), device_tables.size(), set.max_length - 1,
                                    multi_device::min_share(multi_device::SplitPolicy::text_share_bytes));
  }

  /// Counts (a total, or one per pattern) over text split into `shares`, each share's count by
  /// count(tables, bytes) on its own GPU. The matches a share reads beyond its owned starts are
  /// exactly those of the bytes past its owned end alone: counted there and taken off.
  template <class Counts, class Count>
  Counts split_counts(ByteSpan text, const std::vector<core::Chunk>& shares, const Count& count) const {
    std::vector<Counts> part(shares.size());
    multi_device::run_per_device(shares.size(), [&](std::size_t i) {
      const core::Chunk& c = shares[i];
      part[i] = count(*device_tables[i], text.subspan(c.begin, c.read_end - c.begin));
      if (c.read_end == c.owned_end) return;
      const Counts beyond = count(*device_tables[i], text.subspan(c.owned_end, c.read_end - c.owned_end));
      if constexpr (std::is_integral_v<Counts>) part[i] -= beyond;
      else for (std::size_t p = 0; p < beyond.size(); ++p) part[i][p] -= beyond[p];
    }, workers);
    Counts total = part[0];
    for (std::size_t i = 1; i < part.size(); ++i)
      if constexpr (std::is_integral_v<Counts>) total += part[i];
      else for (std::size_t p = 0; p < total.size(); ++p) total[p] += part[i][p];
    return total;
  }

  /// cuda: the per-pattern counts of a non-empty text.
  std::vector<std::uint64_t> cuda_count_per_pattern(ByteSpan text) const {
    const std::vector<core::Chunk> shares = text_shares(text);
    const cuda::DeviceMemoryLimitScope cap(options.device_memory_limit);
    if (shares.size() <= 1) return cuda::multi_count_per_pattern(*device_tables[0], text);
    return split_counts<std::vector<std::uint64_t>>(text, shares, [](const cuda::MultiDeviceTables& t, ByteSpan b) {
      return cuda::multi_count_per_pattern(t, b);
    });
  }

  std::uint64_t run(ByteSpan text, bool count_only, const core::MatchBatchSink& sink) const {
    if (backend != Backend::cuda) return cpu::multi_scan(cpu_tables(), text, cpu_algorithm, threads, count_only, sink);
    const cuda::DeviceMemoryLimitScope cap(options.device_memory_limit);
    const std::vector<core::Chunk> shares = text_shares(text);
    if (shares.size() <= 1) return cuda::multi_scan(*device_tables[0], text, count_only, sink);
    auto piece = [&](const core::Chunk& c, std::uint64_t from) { return text.subspan(from, c.read_end - from); };
    if (count_only)
      return split_counts<std::uint64_t>(text, shares, [](const cuda::MultiDeviceTables& t, ByteSpan b) {
        return cuda::multi_scan(t, b, true, {});
      });
    std::uint64_t delivered = 0;
    multi_device::deliver_in_share_order<Match>(
        shares.size(),
        [&](std::size_t i, const auto& out) {
          const core::Chunk& c = shares[i];
          std::vector<Match> owned;
          cuda::multi_scan(*device_tables[i], piece(c, c.begin), false, [&](std::span<const Match> batch) {
            owned.clear();
            for (Match m : batch) {
              m.start += c.begin;
              m.end += c.begin;
              if (m.start < c.owned_end) owned.push_back(m);
            }
            return out(std::span<const Match>(owned));
          });
        },
        [&](std::span<const Match> batch) {
          delivered += batch.size();
          return sink(batch);
        },
        workers);
    return delivered;
  }

  void fill_stats(ScanStats* stats, ByteSpan text, std::uint64_t matches, double seconds) const {
    api::fill_scan_stats(stats, backend, algorithm, device_label, text.size(), matches, seconds);
  }
};

namespace {

using api::seconds_since;

// The CPU baseline packs as many keywords per 64-bit word as fit (the paper's M-BNDM);
// windows are capped so that long patterns still share a word.
constexpr int kCpuMbndmWindowCap = 16;

// IUPAC expansion for exact search stops here (the literal engines take 10^6 patterns).
constexpr std::uint64_t kMaxSequenceLiterals = std::uint64_t{1} << 20;

}  // namespace

MultiMatcher MultiMatcher::compile(const std::vector<std::string>& patterns,
                                   const MultiOptions& options) {
  return Impl::compile(patterns, options, {});
}

MultiMatcher tuning_hooks::compile_multi(const std::vector<std::string>& patterns, const MultiOptions& options,
                                         const MbndmGpuConfig& mbndm) {
  return MultiMatcher::Impl::compile(patterns, options, mbndm);
}

MultiMatcher MultiMatcher::Impl::compile(const std::vector<std::string>& patterns, const MultiOptions& options,
                                         const tuning_hooks::MbndmGpuConfig& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  const int threads = core::execution_threads(options);
  if (cfg.page_bytes < 0 || cfg.threads_per_block < 0 || cfg.blocks < 0 ||
      cfg.keywords_per_thread < 0)
    throw InvalidArgument("M-BNDM GPU configuration values must be >= 0 (0 = the paper's)");
  core::check_device_list(options);
  auto impl = std::make_shared<Impl>();
  impl->options = options;
  impl->threads = threads;

  const std::string& algo = options.algorithm;
  impl->backend = core::backend_for_algorithm(options.backend, algo, {"naive"}, {});

  constexpr std::string_view kOperation = "multi-pattern search";
  cuda::MultiAlgorithm cuda_algorithm = cuda::MultiAlgorithm::fast;
  if (impl->backend == Backend::cpu) {
    using A = cpu::MultiAlgorithm;
    impl->cpu_algorithm = core::pick_algorithm<A>(
        algo, kOperation, Backend::cpu, {{"fast", A::fast}, {"mbndm", A::mbndm}, {"naive", A::naive}}, "",
        impl->algorithm);
    if (impl->cpu_algorithm == A::naive) impl->threads = 1;
  } else {
    using A = cuda::MultiAlgorithm;
    cuda_algorithm = core::pick_algorithm<A>(algo, kOperation, Backend::cuda, {{"fast", A::fast}, {"mbndm", A::mbndm}},
                                             "'naive' runs on the cpu backend", impl->algorithm);
  }

  impl->user_patterns = patterns.size();
  impl->sequence = options.iupac || options.strand != Strand::forward;
  if (impl->sequence) {
    std::vector<std::string> literals;
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      if (patterns[i].empty())
        throw InvalidArgument("pattern " + std::to_string(i) + " is empty: a pattern needs at least one byte");
      const std::string what = "pattern " + std::to_string(i);
      const std::vector<std::uint8_t> rc = reverse_complement(as_bytes(patterns[i]), what);  // checks the bytes
      for (const char strand : {'+', '-'}) {
        if ((strand == '+' && options.strand == Strand::reverse) || (strand == '-' && options.strand == Strand::forward))
          continue;
        const std::string p = strand == '+' ? patterns[i] : std::string(rc.begin(), rc.end());
        const std::size_t before = literals.size();
        if (!options.iupac) literals.push_back(p);
        else if (!core::expand_iupac(p, kMaxSequenceLiterals - before, literals))
          throw InvalidArgument(what + " and those before it stand for more than " +
                                std::to_string(kMaxSequenceLiterals) +
                                " plain sequences (IUPAC codes expanded for exact search); search it "
                                "approximately with Hamming distance 0, which matches codes directly");
        impl->literal_user.insert(impl->literal_user.end(), literals.size() - before, static_cast<std::uint32_t>(i));
        impl->literal_strand.insert(impl->literal_strand.end(), literals.size() - before, strand);
      }
    }
    impl->set = core::make_pattern_set(literals, options.case_insensitive);
  } else {
    impl->set = core::make_pattern_set(patterns, options.case_insensitive);
  }
  std::uint64_t memory = impl->set.bytes.size() + impl->set.offsets.size() * 8;
  const bool needs_index = impl->backend == Backend::cuda ? cuda_algorithm == cuda::MultiAlgorithm::fast
                                                          : impl->cpu_algorithm == cpu::MultiAlgorithm::fast;
  if (needs_index) {
    impl->index = core::build_prefix_index(impl->set, /*long_key=*/true);
    memory += impl->index.memory_bytes();
  }
  if (impl->backend == Backend::cpu && impl->cpu_algorithm == cpu::MultiAlgorithm::fast) {
    impl->trie = cpu::build_multi_trie(impl->set);
    memory += impl->trie.memory_bytes();
  }
  if (impl->backend == Backend::cpu && impl->cpu_algorithm == cpu::MultiAlgorithm::mbndm) {
    impl->plan = core::build_mbndm_plan(impl->set, 64, kCpuMbndmWindowCap);
    memory += impl->plan.memory_bytes();
  }

  impl->workers = core::execution_devices(options, impl->backend);
  const std::vector<int>& workers = impl->workers;
  if (impl->backend == Backend::cuda) {
    impl->device_label = core::cuda_devices_label(workers);
    cuda::MultiLaunch launch;
    if (cfg.page_bytes) launch.page_bytes = cfg.page_bytes;
    if (cfg.threads_per_block) launch.threads_per_block = cfg.threads_per_block;
    launch.blocks = cfg.blocks;
    if (cfg.keywords_per_thread) launch.keywords_per_thread = cfg.keywords_per_thread;
    const cuda::DeviceMemoryLimitScope cap(options.device_memory_limit);
    for (const int device : workers)
      impl->device_tables.push_back(
          cuda::multi_upload(impl->set, needs_index ? &impl->index : nullptr, cuda_algorithm, launch, device));
    impl->stats.device_memory_bytes = cuda::multi_device_bytes(*impl->device_tables[0]);  // per GPU
  } else {
    impl->device_label = core::cpu_device_label(impl->threads);
  }

  auto& st = impl->stats;
  st.patterns = impl->set.size();
  st.pattern_bytes = impl->set.bytes.size();
  st.min_length = impl->set.min_length;
  st.max_length = impl->set.max_length;
  st.memory_bytes = memory;
  st.filter_key_bytes = !needs_index                  ? 0
                        : impl->index.long_key_scan() ? impl->index.long_key_bytes
                        : impl->index.key8_scan()     ? 8
                                                      : 4;
  st.seconds = seconds_since(t0);
  return MultiMatcher(std::move(impl));
}

std::uint64_t MultiMatcher::count(ByteSpan text, ScanStats* stats) const {
  const auto t0 = api::clock_for(stats);
  const std::uint64_t n = text.empty() ? 0 : impl_->run(text, /*count_only=*/true, {});
  impl_->fill_stats(stats, text, n, api::seconds_for(stats, t0));
  return n;
}

std::vector<std::uint64_t> MultiMatcher::count_per_pattern(ByteSpan text) const {
  std::vector<std::uint64_t> counts(impl_->set.size(), 0);
  if (impl_->backend == Backend::cpu) {
    counts = cpu::multi_count_per_pattern(impl_->cpu_tables(), text, impl_->cpu_algorithm, impl_->threads);
  } else if (!text.empty()) {
    counts = impl_->cuda_count_per_pattern(text);
  }
  if (!impl_->sequence) return counts;
  std::vector<std::uint64_t> per_user(impl_->user_patterns, 0);  // both strands, every variant
  for (std::size_t i = 0; i < counts.size(); ++i) per_user[impl_->literal_user[i]] += counts[i];
  return per_user;
}

std::uint64_t MultiMatcher::scan(ByteSpan text, const MatchSink& sink, ScanStats* stats) const {
  return api::scan_one_at_a_time(sink, stats, [&](const MatchBatchSink& batches) { scan_batches(text, batches, stats); });
}

std::uint64_t MultiMatcher::scan_batches(ByteSpan text, const MatchBatchSink& sink, ScanStats* stats) const {
  const auto t0 = api::clock_for(stats);
  std::uint64_t delivered = 0;
  if (!text.empty()) {
    std::vector<Match> reported;  // a sequence search's literals as the user's patterns and strands
    impl_->run(text, /*count_only=*/false, [&](std::span<const Match> batch) {
      for (std::size_t i = 0; i < batch.size(); i += api::kMatchBatch) {
        std::span<const Match> part = batch.subspan(i, std::min(api::kMatchBatch, batch.size() - i));
        if (impl_->sequence) {
          reported.resize(part.size());
          for (std::size_t j = 0; j < part.size(); ++j) reported[j] = impl_->reported(part[j]);
          part = reported;
        }
        delivered += part.size();
        if (!sink(part)) return false;
      }
      return true;
    });
  }
  impl_->fill_stats(stats, text, delivered, api::seconds_for(stats, t0));
  return delivered;
}

std::uint64_t MultiMatcher::count_device_text(DeviceSpan text, ScanStats* stats) const {
  return count(core::device_resident_text(text, impl_->options, impl_->backend, "multi-pattern search"),
               stats);
}

std::vector<std::uint64_t> MultiMatcher::count_per_pattern_device_text(DeviceSpan text) const {
  return count_per_pattern(
      core::device_resident_text(text, impl_->options, impl_->backend, "multi-pattern search"));
}

std::uint64_t MultiMatcher::scan_device_text(DeviceSpan text, const MatchSink& sink, ScanStats* stats) const {
  return scan(core::device_resident_text(text, impl_->options, impl_->backend, "multi-pattern search"),
              sink, stats);
}

std::vector<std::uint64_t> MultiMatcher::first_match_per_line(ByteSpan text, std::uint64_t starts_below, std::uint64_t most) const {
  if (text.empty()) return {};
  if (impl_->backend != Backend::cuda)
    return cpu::multi_first_per_line(impl_->cpu_tables(), text, starts_below, most, impl_->cpu_algorithm, impl_->threads);
  core::LineFirsts firsts(text, starts_below, most);
  impl_->run(text, /*count_only=*/false, [&](std::span<const Match> batch) { return firsts.take(batch); });
  return std::move(firsts.firsts());
}

std::vector<Match> MultiMatcher::find_all(ByteSpan text) const {
  std::vector<Match> out;
  scan_batches(text, [&](std::span<const Match> batch) {
    out.insert(out.end(), batch.begin(), batch.end());
    return true;
  });
  return out;
}

std::size_t MultiMatcher::pattern_count() const { return impl_->user_patterns; }
std::size_t MultiMatcher::max_pattern_length() const { return impl_->set.max_length; }
Backend MultiMatcher::backend() const { return impl_->backend; }
const std::string& MultiMatcher::algorithm() const { return impl_->algorithm; }
const std::string& MultiMatcher::device_label() const { return impl_->device_label; }
const MultiCompileStats& MultiMatcher::compile_stats() const { return impl_->stats; }
const MultiOptions& MultiMatcher::options() const { return impl_->options; }

MultiMatcher::MultiMatcher(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
MultiMatcher::MultiMatcher(MultiMatcher&&) noexcept = default;
MultiMatcher& MultiMatcher::operator=(MultiMatcher&&) noexcept = default;
MultiMatcher::~MultiMatcher() = default;

}  // namespace warpmatch
