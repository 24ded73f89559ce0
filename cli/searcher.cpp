#include "searcher.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <future>
#include <limits>
#include <map>
#include <thread>
#include <utility>

#include "api/multi_device.hpp"
#include "core/parallel.hpp"
#include "cuda/runtime/devices.hpp"
#include "file_jobs.hpp"
#include "input_walk.hpp"
#include "io/input.hpp"
#include "sequence_options.hpp"
#include "word_match.hpp"

namespace warpmatch::cli {
namespace {

// The hits of one scan of records together (Searcher::search_records) are held up to this
// many, past which its records are searched one by one.
constexpr std::size_t kRecordsTogetherHits = std::size_t{1} << 20;

// Searcher::search_records_apart's runs: whole records of at most 16 KiB (a record's own scan
// then stays on its thread), at most 256 KiB of them (their hits are held until the run ends).
constexpr std::uint64_t kApartRecordBytes = std::uint64_t{16} << 10, kApartRunBytes = std::uint64_t{256} << 10;

// Searcher::search_record_runs: runs of records together of at most this many bytes (a run's
// scan then stays on its thread: below the CPU matchers' threading thresholds for a few
// patterns), up to this many runs per thread scanned at once.
constexpr std::uint64_t kParallelRunBytes = std::uint64_t{128} << 10;
constexpr std::size_t kParallelRunsPerThread = 4;

// Hits printed in parts (Searcher::print_hit_batch): gathered up to kHitBatch (then printed,
// so a batch's hits and output are what is held), at least kMinPartHits a part (fewer: one
// after the other on the searcher's thread).
constexpr std::size_t kHitBatch = std::size_t{1} << 14;
constexpr std::size_t kMinPartHits = 1024;

// Inputs searched ahead (SearchPlan::file_threads, cli/file_jobs.hpp): files of at most this
// many bytes (a larger one is searched in its turn, on all threads: the CPU matchers start
// threads from ~1 MiB a thread), up to this many batches queued per thread, each file
// printing at most kFileJobOutputBytes into memory and a batch's files kFileBatchOutputBytes
// (more: printed in their turn instead).
constexpr std::uint64_t kFileJobBytes = std::uint64_t{2} << 20;
constexpr std::size_t kFileBatchesPerThread = 4;
constexpr std::size_t kFileJobOutputBytes = std::size_t{1} << 20;
constexpr std::size_t kFileBatchOutputBytes = std::size_t{2} << 20;

/// FASTA, FASTQ: the format as users write it.
std::string lines_format_name(io::Format format) {
  std::string name(io::format_name(format));
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Advances the progress line from a thread of its own while one window is scanned, by the
/// matcher's ScanProgress (cells: window bytes x patterns), between the stored offsets
/// before and after the window. stop() before any hit is printed.
class ScanTicker {
 public:
  ScanTicker(Progress& progress, const ScanProgress& scan, std::uint64_t cells, std::uint64_t from,
             std::uint64_t to)
      : progress_(progress), scan_(scan), cells_(cells), from_(from), to_(to) {
    if (progress_.active() && cells_ > 0 && to_ > from_) thread_ = std::thread([this] { run(); });
  }
  ~ScanTicker() { stop(); }
  void stop() {
    running_ = false;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    while (running_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const double done = static_cast<double>(std::min(scan_.done.load(std::memory_order_relaxed), cells_));
      progress_.advance_to(from_ + static_cast<std::uint64_t>((to_ - from_) * (done / static_cast<double>(cells_))));
    }
  }
  Progress& progress_;
  const ScanProgress& scan_;
  std::uint64_t cells_, from_, to_;
  std::atomic<bool> running_{true};
  std::thread thread_;
};

}  // namespace

int Searcher::run(const WindowScanner& scanner, const Summarize& summarize, bool stats) {
  // grep -m 0: read nothing, match nothing (with -L every input that opens is listed).
  if (plan_.max_per_input == 0 && plan_.list_files != ListFiles::without_match) return 1;
  const auto t0 = std::chrono::steady_clock::now();
  sink_.begin();
  // Small files searched ahead on the CPU's threads, when there may be several inputs; then an
  // eighth as many threads list -r's directories ahead of the walk.
  const bool files_ahead = plan_.file_threads > 1 && (plan_.recursive || plan_.inputs.size() > 1);
  const int listing_threads = files_ahead ? plan_.file_threads / 8 : 0;
  InputWalk walk(plan_.inputs, plan_.recursive, listing_threads, plan_.names, plan_.follow_links);
  std::vector<std::unique_ptr<Sink>> ahead_sinks;
  std::vector<std::unique_ptr<Searcher>> ahead_searchers;
  std::optional<FileJobs> ahead;
  if (files_ahead) {
    // Threads of their own, the walk's, the listing ones and this one (which searches while
    // it waits) make file_threads: one a core (with more, a thread the others wait for is put
    // aside for a time slice; on the H200 host's 16 cores, 2 listing threads and 12 of their
    // own took 48-62 ms over /usr/include and a 50,000-file tree, 4 and 14 took 54-68 ms).
    // A searcher and a capturing printer for each of them and for this one.
    const int search_threads = std::max(1, plan_.file_threads - 2 - listing_threads);
    for (int t = 0; t <= search_threads; ++t) {
      std::unique_ptr<Sink> capturing = sink_.make_capturing(kFileJobOutputBytes);
      if (!capturing) break;  // (a printer that cannot: one input after the other)
      ahead_searchers.push_back(std::unique_ptr<Searcher>(new Searcher(Ahead{}, plan_, *capturing)));
      ahead_sinks.push_back(std::move(capturing));
    }
    // The walk on a thread of its own (a file of /usr/include costs about as much to list as
    // to search): its inputs, and its directories that cannot be read, told in their turn.
    auto next = [&]() -> std::optional<FileJob> {
      FileJob job;
      try {
        std::optional<std::string> path = walk.next();
        if (!path) return std::nullopt;
        job.path = std::move(*path);
        job.regular = walk.last_is_regular();
      } catch (const WalkLoop& e) {  // a warning: the status stays
        if (!plan_.no_messages) job.errors = input_error_text({}, e);
        job.settled = true;
      } catch (const io::InputError& e) {
        if (!plan_.no_messages) job.errors = input_error_text({}, e);
        job.totals.errors = 1;
        job.settled = true;
      }
      return job;
    };
    if (ahead_searchers.size() == static_cast<std::size_t>(search_threads) + 1)
      ahead.emplace(next, search_threads, kFileBatchesPerThread * static_cast<std::size_t>(plan_.file_threads),
                    kFileBatchOutputBytes,
                    [&](int t, FileJob& job) { ahead_searchers[static_cast<std::size_t>(t)]->search_ahead(job, scanner); });
  }
  while (!stop_all_) {
    std::optional<std::string> path;
    if (ahead) {
      std::optional<FileJob> job = ahead->take_first();
      if (!job) break;
      if (!job->again) {
        hand_on(*job);
        continue;
      }
      path = std::move(job->path);
    } else {
      try {
        path = walk.next();
      } catch (const io::InputError& e) {  // a directory of -r that cannot be read; the walk goes on
        sink_.flush();
        report_error({}, e);  // what() names the directory
        if (!dynamic_cast<const WalkLoop*>(&e)) ++totals_.errors;  // -R's loop: a warning
        continue;
      }
      if (!path) break;
    }
    ++totals_.inputs;
    search_path(*path, scanner);
  }
  const bool searched_ahead = ahead.has_value();
  const FileJobs::Stats ahead_stats = ahead ? ahead->stats() : FileJobs::Stats{};
  ahead.reset();  // -q: the inputs searched ahead are dropped
  if (summarize) {
    SearchSummary summary;
    summary.totals = totals_;
    summary.seconds = seconds_since(t0);
    summarize(summary);
    sink_.summary(summary);
    if (stats) print_stats(sink_, summary);
    if (stats && searched_ahead) {
      const FileJobs::Stats& a = ahead_stats;
      std::fprintf(stderr,
                   "warpmatch stats: files searched ahead on %d threads: %llu inputs, batches of %zu: %llu by the "
                   "threads, %llu by this one while it waited, %llu taken whole; waits: this thread %.6f s, "
                   "the threads %.6f s, the walk %.6f s (walking %.6f s)\n",
                   plan_.file_threads, static_cast<unsigned long long>(a.jobs), FileJobs::kBatchJobs,
                   static_cast<unsigned long long>(a.batches_by_threads),
                   static_cast<unsigned long long>(a.batches_helped), static_cast<unsigned long long>(a.batches_taken),
                   a.caller_wait_s, a.threads_idle_s, a.walk_wait_s, a.walk_s);
    }
  }
  sink_.flush();
  // --stats: once, that device memory made the GPU scan in smaller chunks than its policy's.
  if (const std::string note = stats ? cuda::device_memory_note() : ""; !note.empty())
    std::fprintf(stderr, "warpmatch: note: %s\n", note.c_str());
  // --stats: where the host threads of a scan over several GPUs ran (near each GPU, or why not).
  if (const std::string note = stats ? multi_device::host_placement_note() : ""; !note.empty())
    std::fprintf(stderr, "warpmatch: note: host threads: %s\n", note.c_str());
  if (plan_.quiet && totals_.matches > 0) return 0;  // grep -q: a match wins over errors
  if (totals_.errors > 0) return 2;
  return totals_.matches > 0 ? 0 : 1;
}

Searcher::Searcher(Ahead, const SearchPlan& plan, Sink& capturing) : plan_(plan), sink_(capturing) {
  // One thread per input: the others are searching the next inputs.
  plan_.file_threads = 1;
  plan_.record_threads = 1;
  plan_.progress = false;
  plan_.stream.threads = 1;
  plan_.stream.read_ahead = false;
  plan_.stream.pipeline = false;
  plan_.stream.read_whole_bytes = kFileJobBytes;  // (mapping on several threads costs more)
}

void Searcher::search_path(const std::string& path, const WindowScanner& scanner, std::optional<io::TextStream> opened) {
  std::optional<io::TextStream> input;
  try {
    if (opened) input.emplace(std::move(*opened));
    else input.emplace(io::TextStream::open(path, plan_.stream));
    if ((plan_.line_numbers || plan_.lines) && input->format() != io::Format::plain)
      throw InvalidArgument(fmt::format("{0}: -n and --lines need plain text, {0} is {1} (--format plain searches it as text)",
                                        input->name(), lines_format_name(input->format())));
    search_input(*input, scanner);
  } catch (const Error& e) {
    // Hits before a corrupt or truncated part are already printed; the counts too.
    finish_input(input ? input->name() : path, /*failed=*/true);
    sink_.flush();
    report_error(path, e);
    ++totals_.errors;
  }
}

void Searcher::search_ahead(FileJob& job, const WindowScanner& scanner) {
  // Only regular files, opened once: a FIFO's writer must meet one reader (the searcher's),
  // standard input is read once, and a large file is searched on all threads in its turn.
  // (An operand is asked first; a file of a directory is known regular by its listing.)
  struct stat st {};
  if (job.path == "-" ||
      (!job.regular && (::stat(job.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
                        static_cast<std::uint64_t>(st.st_size) > kFileJobBytes))) {
    job.again = true;
    return;
  }
  totals_ = {};
  stop_all_ = false;
  printed_a_line_ = false;
  error_lines_ = &job.errors;
  std::optional<io::TextStream> input;
  try {
    input.emplace(io::TextStream::open(job.path, plan_.stream));
  } catch (const Error& e) {  // told in its turn, as search_path tells it (nothing was opened)
    report_error(job.path, e);
    ++totals_.errors;
  }
  // Larger than it was (or than the listing let us know): searched in its turn, on all threads.
  if (input && input->stored_bytes() > kFileJobBytes) {
    error_lines_ = nullptr;
    job.again = true;
    return;
  }
  if (input) search_path(job.path, scanner, std::move(input));
  error_lines_ = nullptr;
  Output& out = sink_.output();
  const bool overflowed = out.overflowed();
  std::string printed = out.take_captured();
  if (overflowed) {  // too much to hold: printed in its turn instead
    job.again = true;
    job.errors.clear();
    return;
  }
  job.output = std::move(printed);
  job.totals = totals_;
  job.printed_line = printed_a_line_;
}

void Searcher::hand_on(FileJob& job) {
  if (!job.path.empty()) ++totals_.inputs;  // (a directory that failed has none)
  // -A / -B / -C: its first group of lines set apart from the last input's.
  if (plan_.context && job.printed_line && printed_a_line_) sink_.group_break();
  printed_a_line_ = printed_a_line_ || job.printed_line;
  sink_.write_captured(job.output);
  if (!job.errors.empty()) {
    sink_.flush();
    std::fputs(job.errors.c_str(), stderr);
  }
  totals_.bytes += job.totals.bytes;
  totals_.matches += job.totals.matches;
  totals_.errors += job.totals.errors;
  totals_.scan_seconds += job.totals.scan_seconds;
  if (plan_.quiet && job.totals.matches > 0) stop_all_ = true;  // -q: the first hit ends the search
}

namespace {
/// -I: a window of a plain input holding a NUL byte makes the input binary.
bool holds_nul(const io::TextWindow& w) { return std::memchr(w.data.data(), 0, w.data.size()) != nullptr; }
}  // namespace

void Searcher::found_binary() {
  // As grep: what the windows before it printed stands (a mapped file up to 1 GiB is one
  // window: nothing), -c and -L take the input as one without a match.
  stop_input_ = true;
  if (plan_.count || plan_.list_files == ListFiles::without_match) {
    input_matches_ = 0;
    std::fill(per_pattern_.begin(), per_pattern_.end(), 0);
  }
}

void Searcher::search_input(io::TextStream& input, const WindowScanner& scanner) {
  input_open_ = true;
  per_pattern_.assign(plan_.pattern_count, 0);
  picked_ = false;  // (the last input's picks were settled at its windows' ends)
  settled_record_.reset();
  Progress progress(plan_.progress, input.stored_bytes(), plan_.work_per_byte);
  const bool fastx = input.format() != io::Format::plain;
  CircularJunction junction(plan_.circular_reach);
  stop_input_ = plan_.max_per_input == 0;  // -L -m 0: opened, not read (grep)
  if (plan_.line_numbers) line_numbers_.begin_input();
  if (plan_.lines) {
    const bool prints_lines = !plan_.count && !plan_.quiet && plan_.list_files == ListFiles::off;
    line_selector_.begin_input(prints_lines, input.is_mapped(), plan_.invert, plan_.number_lines,
                               plan_.before_context, plan_.after_context);
    hide_binary_ = plan_.hide_binary_lines && prints_lines && !fastx && !plan_.skip_binary;
    binary_from_.reset();
    count_lines_ = plan_.count && !plan_.quiet && plan_.list_files == ListFiles::off && plan_.max_per_input < 0 &&
                   !plan_.context && !bounded();
    line_counter_.begin_input(plan_.invert, plan_.stream.threads > 0 ? plan_.stream.threads : hardware_threads());
    last_printed_line_ = 0;
  }
  // Runs of whole records (a file of reads) are scanned together where the scanner allows;
  // --circular and best mode search each record by itself.
  const bool together = plan_.records_together && fastx && !plan_.circular && !plan_.best;
  const bool apart = !together && fastx && !plan_.circular && plan_.record_threads > 1;
  const std::uint64_t gap = together ? plan_.records_together->gap.bytes : 0;
  while (!stop_input_ && !stop_all_) {
    const std::span<const io::TextWindow> batch = input.next_windows();
    if (batch.empty()) break;
    for (std::size_t i = 0; i < batch.size() && !stop_input_ && !stop_all_;) {
      std::size_t j = i;
      if (together) j = i + io::RecordRun::length(batch.subspan(i), gap, io::RecordRun::kMaxBytes);
      if (apart) j = i + io::RecordRun::length(batch.subspan(i), 0, kApartRunBytes, kApartRecordBytes);
      if (j - i >= 2 && together && plan_.record_threads > 1)
        if (const std::size_t taken = search_record_runs(batch.subspan(i), input, scanner, progress, junction)) {
          i += taken;
          continue;
        }
      if (j - i >= 2 && together && search_records(batch.subspan(i, j - i), input, scanner, progress)) {
        i = j;
        continue;
      }
      if (j - i >= 2 && apart) {
        search_records_apart(batch.subspan(i, j - i), input, scanner, progress);
        i = j;
        continue;
      }
      for (const std::size_t end = std::max(j, i + 1); i < end && !stop_input_ && !stop_all_;) {
        if (plan_.skip_binary && !fastx && holds_nul(batch[i])) {
          found_binary();
          break;
        }
        // grep's buffers, here windows: a file up to 1 GiB is one, hidden whole.
        if (hide_binary_ && !binary_from_ && holds_nul(batch[i])) binary_from_ = batch[i].offset;
        take_window(batch[i++], input, scanner, progress, junction);
      }
    }
  }
  progress.finish();
  finish_input(input.name());
}

void Searcher::take_window(const io::TextWindow& w, const io::TextStream& input, const WindowScanner& scanner,
                           Progress& progress, CircularJunction& junction) {
  const bool fastx = input.format() != io::Format::plain;
  const Location where{input.name(), fastx ? std::optional<std::string_view>(w.record) : std::nullopt};
  if (plan_.line_numbers) line_numbers_.begin_window(w);
  if (plan_.lines) line_selector_.begin_window(w);
  bool lines_counted = false;  // by the LineCounter: no lines for the LineSelector to hand on
  if (plan_.circular && plan_.best) {
    search_circular_best(w, junction, where, scanner, progress, input.stored_offset());
  } else {
    lines_counted = search_window(w, where, scanner, progress, input.stored_offset());
    if (plan_.circular && !stop_input_ && !stop_all_ && junction.add(w)) search_junction(junction, where, scanner);
  }
  // -w: the next window of the record starts at offset + owned (the same offset, and so
  // the same byte before it, when this one owned nothing).
  if (w.owned > 0) byte_before_window_ = w.data[w.owned - 1];
  if (plan_.line_numbers) line_numbers_.end_window();
  if (plan_.lines && !lines_counted && !stop_input_ && !stop_all_) deliver_lines(input.name());
  totals_.bytes += searched_bytes(w);
  if (w.input_paused) sink_.flush();  // seen while a slow pipe waits (Output)
  progress.advance_to(input.stored_offset());
}

// One scan of the records laid end to end (io::RecordRun); each hit within a record is the
// record's. The hits are held and handed on record by record, each record's in the scan's
// order: the order of the record's own scan (exact search: ascending start; approx: pattern
// by pattern in one segment, which the text's size keeps it within).
bool Searcher::search_records(std::span<const io::TextWindow> records, const io::TextStream& input,
                              const WindowScanner& scanner, Progress& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  HeldHits held;
  const bool whole = scan_record_run(records, scanner, records_text_, kRecordsTogetherHits, held);
  totals_.scan_seconds += seconds_since(t0);
  if (!whole) return false;
  deliver_held(records, std::span<HeldHits>(&held, 1), input, progress);
  return true;
}

bool Searcher::scan_record_run(std::span<const io::TextWindow> records, const WindowScanner& scanner,
                               std::vector<std::uint8_t>& scratch, std::size_t most, HeldHits& held) const {
  const RecordsTogether& together = *plan_.records_together;
  const io::RecordRun run(records, together.gap, scratch);
  bool overflow = false;
  scanner.scan(run.text(), [&](const Hit& merged) {
    const auto r = run.record_of(merged.start, merged.end, together.starts_reported);
    if (!r) return true;  // across a gap: no record's
    if (held.hits.size() == most) {
      overflow = true;
      return false;
    }
    Hit hit = merged;
    hit.start = merged.start >= run.offset(*r) ? merged.start - run.offset(*r) : 0;
    hit.end -= run.offset(*r);
    held.add(hit, *r);
    return true;
  }, nullptr);
  if (overflow) return false;
  std::stable_sort(held.hits.begin(), held.hits.end(),
                   [](const HeldHits::Held& a, const HeldHits::Held& b) { return a.record < b.record; });
  return true;
}

std::size_t Searcher::search_record_runs(std::span<const io::TextWindow> windows, const io::TextStream& input,
                                         const WindowScanner& scanner, Progress& progress, CircularJunction& junction) {
  struct Run {
    std::span<const io::TextWindow> records;
    HeldHits held;
    std::vector<std::uint8_t> text;  // the records with their gaps, when they must be copied
    bool whole = false;
  };
  const std::uint64_t gap = plan_.records_together->gap.bytes;
  std::vector<Run> runs;
  std::size_t taken = 0;
  while (taken < windows.size() && runs.size() < kParallelRunsPerThread * static_cast<std::size_t>(plan_.record_threads)) {
    const std::size_t n = io::RecordRun::length(windows.subspan(taken), gap, kParallelRunBytes);
    if (n < 2) break;
    runs.push_back({windows.subspan(taken, n), {}, {}, false});
    taken += n;
  }
  if (runs.size() < 2) return 0;
  // The runs share the hits one run may hold, so a flood holds no more than one run would.
  const std::size_t most = std::max<std::size_t>(1, kRecordsTogetherHits / runs.size());
  const auto t0 = std::chrono::steady_clock::now();
  core::parallel_for(runs.size(), plan_.record_threads, [&](std::size_t r) {
    runs[r].whole = scan_record_run(runs[r].records, scanner, runs[r].text, most, runs[r].held);
  });
  totals_.scan_seconds += seconds_since(t0);
  for (Run& run : runs) {
    if (stop_input_ || stop_all_) break;
    if (run.whole) {
      deliver_held(run.records, std::span<HeldHits>(&run.held, 1), input, progress);
      continue;
    }
    for (std::size_t i = 0; i < run.records.size() && !stop_input_ && !stop_all_;)  // its hits overflowed
      take_window(run.records[i++], input, scanner, progress, junction);
  }
  return taken;
}

void Searcher::search_records_apart(std::span<const io::TextWindow> records, const io::TextStream& input,
                                    const WindowScanner& scanner, Progress& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<HeldHits> held(records.size());
  core::parallel_for(records.size(), plan_.record_threads, [&](std::size_t r) {
    scanner.scan(records[r].data, [&](const Hit& local) {
      held[r].add(local, r);
      return true;
    }, nullptr);
  });
  totals_.scan_seconds += seconds_since(t0);
  deliver_held(records, held, input, progress);
}

void Searcher::deliver_held(std::span<const io::TextWindow> records, std::span<HeldHits> held,
                            const io::TextStream& input, Progress& progress) {
  bool erased = false;
  for (HeldHits& part : held)
    for (HeldHits::Held& h : part.hits) {
      if (stop_input_ || stop_all_) break;
      if (!erased) progress.erase();  // the progress line must not mix with the output
      erased = true;
      h.hit.cigar = std::string_view(part.cigars).substr(h.cigar_at, h.cigar_size);
      const io::TextWindow& w = records[h.record];
      if (!deliver_local(w, Location{input.name(), w.record}, h.hit, {})) break;
    }
  settle_pending(records.back(), Location{input.name(), records.back().record}, false);
  for (const io::TextWindow& w : records) totals_.bytes += searched_bytes(w);
  if (records.back().input_paused) sink_.flush();
  progress.advance_to(input.stored_offset());
}

std::uint64_t Searcher::searched_bytes(const io::TextWindow& w) const {
  return plan_.owns == Ownership::starts ? w.owned : w.data.size() - w.repeated;
}

bool Searcher::deliver_local(const io::TextWindow& w, const Location& where, const Hit& local, const Keep& keep,
                             bool batched) {
  if (!owns(w, local) || (keep && !keep(local))) return true;
  if (bounded() && !bounded_hit(w, local)) return true;
  Hit hit = local;
  hit.where = where;
  hit.start += w.offset;
  hit.end += w.offset;
  hit.matched = w.data.subspan(local.start, local.end - local.start);
  if (plan_.leftmost_longest) {
    bool settle = false;
    const Pick p = pick(w.record_index, hit.start, hit.end, settle);
    const bool go_on = !settle || settle_pick(w, where, batched);
    if (go_on && p != Pick::dropped) pending_hit_ = hit;
    return go_on;
  }
  return emit_hit(hit, batched);
}

bool Searcher::emit_hit(const Hit& hit, bool batched) {
  if (!batched) return deliver(hit);
  if (!hit.cigar.empty() || hit.site) {  // they point into the scan call's own memory
    print_hit_batch();
    finish_writing_parts();
    return deliver(hit);
  }
  hit_batch_.push_back(hit);
  if (hit_batch_.size() >= kHitBatch) print_hit_batch();
  return true;
}

Searcher::Pick Searcher::pick(std::uint64_t record, std::uint64_t start, std::uint64_t end, bool& settle) {
  settle = false;
  if (picked_ && record == picked_record_ && start == picked_start_) {
    if (end <= picked_end_) return Pick::dropped;  // (an equal one: the first pattern's stays)
    picked_end_ = end;
    return Pick::replaces;
  }
  if (picked_) {  // a hit starting later: the pending pick is final
    settle = true;
    settled_record_ = picked_record_;
    settled_end_ = picked_end_;
    picked_ = false;
  }
  if (settled_record_ == record && start < settled_end_) return Pick::dropped;  // inside the last pick
  picked_ = true;
  picked_record_ = record;
  picked_start_ = start;
  picked_end_ = end;
  return Pick::next;
}

bool Searcher::settle_pick(const io::TextWindow& w, const Location& where, bool batched) {
  if (pending_match_) {
    match_batch_.push_back(*pending_match_);
    pending_match_.reset();
    if (match_batch_.size() >= kHitBatch) print_match_batch(w, where);
    return true;
  }
  if (!pending_hit_) return true;
  const Hit hit = *pending_hit_;
  pending_hit_.reset();
  return emit_hit(hit, batched);
}

void Searcher::settle_pending(const io::TextWindow& w, const Location& where, bool batched) {
  if (!plan_.leftmost_longest || !picked_) return;
  if (stop_input_ || stop_all_) {  // (-m reached: the pending pick is past it)
    picked_ = false;
    pending_hit_.reset();
    pending_match_.reset();
    return;
  }
  settled_record_ = picked_record_;
  settled_end_ = picked_end_;
  picked_ = false;
  settle_pick(w, where, batched);  // (-m's stop is set by deliver itself)
}

bool Searcher::batch_matches(const io::TextWindow& w, const Location& where, std::span<const Match> matches) {
  // Ascending starts: those from the window's owned end on are the next window's.
  const auto owned = std::partition_point(matches.begin(), matches.end(), [&](const Match& m) { return m.start < w.owned; });
  if (plan_.leftmost_longest) {  // grep -o's picks (Searcher::pick), one at a time
    for (auto m = matches.begin(); m != owned; ++m) {
      bool settle = false;
      const Pick p = pick(w.record_index, w.offset + m->start, w.offset + m->end, settle);
      if (settle) settle_pick(w, where, true);
      if (p != Pick::dropped) pending_match_ = *m;
    }
    return owned == matches.end();
  }
  for (auto from = matches.begin(); from != owned;) {
    const auto to = from + std::min<std::ptrdiff_t>(owned - from, static_cast<std::ptrdiff_t>(kHitBatch - match_batch_.size()));
    match_batch_.insert(match_batch_.end(), from, to);
    if (match_batch_.size() >= kHitBatch) print_match_batch(w, where);
    from = to;
  }
  return owned == matches.end();
}

// The window's own hits at record offsets (or, -c, only their counts).
bool Searcher::search_window(const io::TextWindow& w, const Location& where, const WindowScanner& scanner,
                             Progress& progress, std::uint64_t stored_offset, const Keep& keep) {
  const auto t0 = std::chrono::steady_clock::now();
  // -q, -l and -L stop at the first; a filter (-w too) needs every hit.
  const bool count_only = plan_.count && plan_.max_per_input < 0 && !plan_.quiet &&
                          plan_.list_files == ListFiles::off && !keep && !bounded() && !plan_.lines;
  // --lines without a per-hit test: one hit per line, the rest of a line skipped.
  const bool line_firsts = plan_.lines && !keep && !bounded();
  std::optional<std::vector<std::uint64_t>> firsts;
  bool lines_counted = false;
  if (const auto counted = count_only ? scanner.count(w, per_pattern_) : std::nullopt) {
    input_matches_ += *counted;
  } else if (line_firsts && (firsts = scanner.first_per_line(w, lines_wanted()))) {
    if (count_lines_) {
      input_matches_ += line_counter_.add_window(w, *firsts);
      lines_counted = true;
    } else {
      for (std::uint64_t& start : *firsts) start += w.offset;
      line_selector_.add_line_firsts(*firsts);
    }
  } else {
    ScanProgress scan_progress;
    const bool ticks = plan_.scan_progress && progress.active();
    ScanTicker ticker(progress, scan_progress, ticks ? w.data.size() * plan_.work_per_byte : 0,
                      progress.done(), stored_offset);
    bool first = true;
    const auto first_hit = [&] {
      if (!first) return;
      ticker.stop();  // the progress line must not mix with the output
      progress.erase();
      first = false;
    };
    // Hits printed as they are: gathered in batches printed on all threads.
    const bool batched = prints_hits_in_parts();
    try {
      // Owned by their start and kept as they are: taken a batch of matches at a time.
      const bool as_matches = batched && !keep && !bounded() && plan_.owns == Ownership::starts;
      if (!as_matches || !scanner.scan_matches(w.data, [&](std::span<const Match> matches) {
            first_hit();
            return batch_matches(w, where, matches);
          })) {
        scanner.scan(w.data, [&](const Hit& local) {
          first_hit();
          return deliver_local(w, where, local, keep, batched);
        }, ticks ? &scan_progress : nullptr);
      }
    } catch (...) {
      settle_pending(w, where, batched);
      if (batched) {  // the hits before the error are reported
        print_match_batch(w, where);
        print_hit_batch();
        finish_writing_parts();
      }
      throw;
    }
    settle_pending(w, where, batched);  // the window's last pick (the next starts no hit there)
    if (batched) {  // before the window's bytes go, and before anything else is printed
      print_match_batch(w, where);
      print_hit_batch();
      finish_writing_parts();
    }
  }
  totals_.scan_seconds += seconds_since(t0);
  return lines_counted;
}

bool Searcher::owns(const io::TextWindow& w, const Hit& local) const {
  // Exact search: a start < owned ends at most m - 1 bytes later, so with -w (overlap m) the
  // byte after it is in the window, or the window ends with its record (or before corrupt data).
  if (plan_.owns == Ownership::starts) return local.start < w.owned;
  if (!bounded()) return local.end > w.repeated;
  // -w by end: an end is decided where the byte after it is seen: a window owns the ends in
  // [repeated, size) (the record's previous window owned those up to its size, exclusive,
  // which is this one's `repeated`; an alignment ending at `repeated` still has the overlap,
  // now m + k + 1 bytes, before it), and its last byte's end only when nothing of the record
  // follows in a next window (owned == size: the record's last window, or corrupt data next).
  return local.end >= w.repeated && (local.end < w.data.size() || w.owned == w.data.size());
}

bool Searcher::bounded_hit(const io::TextWindow& w, const Hit& local) const {
  // The byte before the start: in the window, carried from the record's previous window, or
  // none at the record's start.
  if (w.offset + local.start > 0) {
    const std::uint8_t before = local.start > 0 ? w.data[local.start - 1] : byte_before_window_;
    if (!bounds_hit(plan_.bounds, before)) return false;
  }
  // The byte at the end: in the window (owns() keeps the ends before a window's last byte
  // unless nothing of the record follows), else the record's end.
  return local.end >= w.data.size() || bounds_hit(plan_.bounds, w.data[local.end]);
}

// --circular: the hits of the record followed by its head that start in the record and end
// past its end (the junction's crossing hits).
void Searcher::search_junction(const CircularJunction& junction, const Location& where,
                               const WindowScanner& scanner) {
  const ByteSpan text = junction.text();
  scanner.scan(text, [&](const Hit& local) {
    const auto at = junction.crossing(local.start, local.end);
    if (!at) return true;
    Hit hit = local;
    hit.where = where;
    hit.start = at->first;
    hit.end = at->second;
    hit.matched = text.subspan(local.start, local.end - local.start);
    return deliver(hit);
  }, nullptr);
}

// --circular --best: the best hits of the record read circularly, for each pattern and strand
// those at the smallest distance among the record's own hits and the junction's crossing hits.
// A best-mode search gives each (pattern, strand) the minimum of the text searched: the
// junction's minimum (of all its hits) is at most its crossing hits' and at least the
// circular minimum (a junction hit that does not cross is a hit of the record, or of the
// record repeated, at no smaller distance), so the record's hits are kept when their distance
// is at most the junction's minimum and the crossing hits when theirs is at most the record's.
// The junction is searched first (its hits held: at most 2 x reach per pattern), then the
// record, then the crossing hits are delivered, after the record's as in all-hits mode.
void Searcher::search_circular_best(const io::TextWindow& w, CircularJunction& junction, const Location& where,
                                    const WindowScanner& scanner, Progress& progress, std::uint64_t stored_offset) {
  // Best mode reads whole records: this window is the record's only one.
  if (!junction.add(w)) {
    search_window(w, where, scanner, progress, stored_offset);  // an empty record
    return;
  }
  using Key = std::pair<std::uint32_t, char>;  // the pattern and strand of a best-mode minimum
  std::map<Key, std::uint32_t> junction_best, record_best;
  std::vector<Hit> crossing;
  std::deque<std::string> cigars;  // the crossing hits' CIGARs (a hit's view dies with the scan's)
  const ByteSpan text = junction.text();
  scanner.scan(text, [&](const Hit& local) {
    junction_best.try_emplace(Key{local.pattern, local.strand}, local.distance.value_or(0));
    if (const auto at = junction.crossing(local.start, local.end)) {
      Hit hit = local;
      hit.where = where;
      hit.start = at->first;
      hit.end = at->second;
      hit.matched = text.subspan(local.start, local.end - local.start);
      hit.cigar = cigars.emplace_back(local.cigar);
      crossing.push_back(hit);
    }
    return true;
  }, nullptr);
  search_window(w, where, scanner, progress, stored_offset, [&](const Hit& local) {
    const std::uint32_t d = local.distance.value_or(0);
    record_best.try_emplace(Key{local.pattern, local.strand}, d);
    const auto j = junction_best.find(Key{local.pattern, local.strand});
    return j == junction_best.end() || d <= j->second;
  });
  for (const Hit& hit : crossing) {
    if (stop_input_ || stop_all_) return;
    const auto r = record_best.find(Key{hit.pattern, hit.strand});
    if (r != record_best.end() && hit.distance.value_or(0) > r->second) continue;
    if (!deliver(hit)) return;
  }
}

void note_cpu_fallback(const DeviceOutOfMemory& error) {
  std::fprintf(stderr, "warpmatch: note: %s; --backend auto goes on on the CPU (%s)\n",
               out_of_memory_summary(error).c_str(), error.what());
}

void CpuFallbackScanner::fall_back(const DeviceOutOfMemory& error) const {
  note_cpu_fallback(error);
  cpu_ = &make_cpu_();
}

void CpuFallbackScanner::scan(ByteSpan text, const Emit& emit, ScanProgress* progress) const {
  std::uint64_t given = 0;
  if (!cpu_) {
    try {
      gpu_.scan(text, [&](const Hit& hit) {
        ++given;
        return emit(hit);
      }, progress);
      return;
    } catch (const DeviceOutOfMemory& e) {
      fall_back(e);
    }
  }
  cpu_->scan(text, [&](const Hit& hit) {
    if (given == 0) return emit(hit);
    --given;  // given by the GPU before it ran out
    return true;
  }, progress);
}

std::optional<std::uint64_t> CpuFallbackScanner::count(const io::TextWindow& w, std::span<std::uint64_t> per_pattern) const {
  if (!cpu_) {
    try {
      return gpu_.count(w, per_pattern);  // adds to per_pattern only once the window is counted
    } catch (const DeviceOutOfMemory& e) {
      fall_back(e);
    }
  }
  return cpu_->count(w, per_pattern);
}

std::optional<std::vector<std::uint64_t>> CpuFallbackScanner::first_per_line(const io::TextWindow& w,
                                                                          std::uint64_t most) const {
  if (!cpu_) {
    try {
      return gpu_.first_per_line(w, most);
    } catch (const DeviceOutOfMemory& e) {
      fall_back(e);
    }
  }
  return cpu_->first_per_line(w, most);
}

// One selected hit or line counted; false when -q or -l / -L has decided (the search, or the
// input, stops there).
bool Searcher::take_selected() {
  ++input_matches_;
  if (plan_.quiet) {
    stop_all_ = true;
    return false;
  }
  if (plan_.list_files != ListFiles::off) {  // the first decides the input: no need to read on
    stop_input_ = true;
    return false;
  }
  return true;
}

std::uint64_t Searcher::lines_wanted() const {
  if (plan_.max_per_input < 0 || plan_.invert) return ~std::uint64_t{0};  // -v: the lines without a hit count
  return static_cast<std::uint64_t>(plan_.max_per_input) - std::min<std::uint64_t>(input_matches_, plan_.max_per_input);
}

bool Searcher::reached_max_per_input() const {
  return plan_.max_per_input >= 0 && static_cast<std::int64_t>(input_matches_) >= plan_.max_per_input;
}

core::WorkerPool* Searcher::print_parts() {
  const int threads = plan_.stream.threads > 0 ? plan_.stream.threads : hardware_threads();
  if (threads < 2) return nullptr;
  if (print_sinks_.empty()) {
    for (int t = 0; t < 2 * threads; ++t)
      if (std::unique_ptr<Sink> part = sink_.make_capturing(std::numeric_limits<std::size_t>::max()))
        print_sinks_.push_back(std::move(part));
    if (print_sinks_.size() == 2 * static_cast<std::size_t>(threads))
      print_pool_ = std::make_unique<core::WorkerPool>(static_cast<unsigned>(threads));
  }
  return print_pool_.get();
}

void Searcher::write_parts(std::size_t count) {
  finish_writing_parts();
  const std::size_t base = print_set_ * (print_sinks_.size() / 2);
  print_write_ = std::async(std::launch::async, [this, base, count] {
    for (std::size_t p = 0; p < count; ++p) sink_.hand_on_captured(*print_sinks_[base + p]);
  });
  print_set_ ^= 1;
}

void Searcher::finish_writing_parts() {
  if (print_write_.valid()) print_write_.get();
}

bool Searcher::prints_hits_in_parts() {
  return !plan_.lines && !plan_.count && !plan_.quiet && plan_.list_files == ListFiles::off &&
         plan_.max_per_input < 0 && print_parts();
}

namespace {
Hit hit_of(const io::TextWindow& w, const Location& where, const Match& m) {
  Hit hit;
  hit.where = where;
  hit.pattern = m.pattern;
  hit.start = m.start + w.offset;
  hit.end = m.end + w.offset;
  hit.strand = m.strand;
  hit.matched = w.data.subspan(m.start, m.end - m.start);
  return hit;
}
}  // namespace

void Searcher::print_hit_batch() {
  std::vector<Hit>& hits = hit_batch_;
  const std::size_t parts = std::min<std::size_t>(print_sinks_.size() / 2, hits.size() / kMinPartHits);
  if (parts < 2) {
    finish_writing_parts();
    for (const Hit& hit : hits) deliver(hit);  // none stops here (prints_hits_in_parts)
  } else {
    for (const Hit& hit : hits)
      if (hit.pattern < per_pattern_.size()) ++per_pattern_[hit.pattern];
    print_hits_in_parts(hits, parts, [](std::size_t, std::size_t) {});
  }
  hits.clear();
}

void Searcher::print_match_batch(const io::TextWindow& w, const Location& where) {
  const std::span<const Match> matches = match_batch_;
  const std::size_t parts = std::min<std::size_t>(print_sinks_.size() / 2, matches.size() / kMinPartHits);
  if (parts < 2) {
    finish_writing_parts();
    for (const Match& m : matches) deliver(hit_of(w, where, m));  // none stops here
  } else {
    // A Hit is ~140 bytes: formed on the parts' threads, into storage kept between batches.
    if (match_hits_.size() < kHitBatch) match_hits_.resize(kHitBatch);  // (a batch holds at most kHitBatch)
    for (const Match& m : matches)
      if (m.pattern < per_pattern_.size()) ++per_pattern_[m.pattern];
    print_hits_in_parts(std::span<Hit>(match_hits_.data(), matches.size()), parts, [&](std::size_t from, std::size_t to) {
      for (std::size_t i = from; i < to; ++i) match_hits_[i] = hit_of(w, where, matches[i]);
    });
  }
  match_batch_.clear();
}

void Searcher::print_hits_in_parts(std::span<Hit> hits, std::size_t parts,
                                   const std::function<void(std::size_t, std::size_t)>& form) {
  input_matches_ += hits.size();
  std::vector<std::size_t> cut(parts + 1);
  for (std::size_t p = 0; p <= parts; ++p) cut[p] = hits.size() * p / parts;
  const auto print = [&](std::size_t p) {
    Sink& sink = part_sink(p);
    for (std::size_t i = cut[p]; i < cut[p + 1]; ++i) sink.hit(hits[i]);
  };
  if (plan_.line_numbers) {  // numbered across the parts: formed first
    print_pool_->run(parts, [&](std::size_t p) { form(cut[p], cut[p + 1]); });
    line_numbers_.number_hits(hits, cut, *print_pool_);
    print_pool_->run(parts, print);
  } else {
    print_pool_->run(parts, [&](std::size_t p) {
      form(cut[p], cut[p + 1]);
      print(p);
    });
  }
  write_parts(parts);  // (a hit's matched bytes point into the window, which outlives the write)
}

// One hit at record coordinates; false stops the scan (-q, -m, -l, -L).
bool Searcher::deliver(Hit hit) {
  if (plan_.lines) {  // counted and printed as lines once the window is scanned
    line_selector_.add_hit(hit.start);
    return true;
  }
  if (!take_selected()) return false;
  if (hit.pattern < per_pattern_.size()) ++per_pattern_[hit.pattern];
  if (plan_.line_numbers) hit.line = line_numbers_.line_of(hit.start);
  if (!plan_.count) sink_.hit(hit);
  if (reached_max_per_input()) {
    stop_input_ = true;
    return false;
  }
  return true;
}

void Searcher::deliver_lines(std::string_view path) {
  // Lines printed as they are, none stopping the input: a window's many lines may be formed
  // and printed on all threads (each part into a capturing sink, handed on in order).
  LineSelector::Parts parts;
  const bool in_parts = plan_.max_per_input < 0 && !plan_.count &&
                        !plan_.quiet && plan_.list_files == ListFiles::off && !binary_from_;
  if (in_parts && (parts.pool = print_parts())) {
    parts.emit = [&](std::size_t p, const SelectedLine& found) {
      SelectedLine line = found;
      line.path = path;
      part_sink(p).line(line);
    };
    parts.join = [&](std::size_t count, std::uint64_t lines) {
      input_matches_ += lines;
      write_parts(count);
    };
    parts.finish = [&] { finish_writing_parts(); };
    parts.group_break = [&](std::size_t p) { part_sink(p).group_break(); };
    parts.printed_through = [&](std::uint64_t number) { last_printed_line_ = number; };
  }
  const bool more = line_selector_.end_window([&](const SelectedLine& found) {
    // A binary input's lines from its first NUL's line on: the first selected one ends it
    // with grep's note (hide_binary_lines); context lines there are not printed.
    if (binary_from_ && found.offset + found.text.size() >= *binary_from_) {
      if (found.context) return true;
      take_selected();
      message(fmt::format("warpmatch: {}: binary file matches\n", path));
      return false;
    }
    if (plan_.context) {
      // A group that does not continue the last printed line (of this input) is set apart.
      const bool continues = last_printed_line_ > 0 && found.number == last_printed_line_ + 1;
      if (printed_a_line_ && !continues) sink_.group_break();
      printed_a_line_ = true;
      last_printed_line_ = found.number;
    }
    SelectedLine line = found;
    line.path = path;
    if (found.context) {
      sink_.line(line);
      return true;
    }
    if (!take_selected()) return false;  // -v -q, -v -l / -L
    if (!plan_.count) sink_.line(line);
    if (reached_max_per_input())
      return line_selector_.select_no_more();  // -m: lines; the input goes on for the after-context only
    return true;
  }, parts.pool ? &parts : nullptr);
  if (!more) stop_input_ = true;
}

// The input's counts (-c) or name (-l / -L), then its state reset; once per input that
// opened, errors included.
void Searcher::finish_input(const std::string& name, bool failed) {
  if (!input_open_) return;
  input_open_ = false;
  totals_.matches += input_matches_;
  if (plan_.count) {
    InputCount c;
    c.path = name;
    c.total = input_matches_;
    if (plan_.count_per_pattern) c.per_pattern = per_pattern_;
    sink_.input_done(c);
  }
  const bool listed = plan_.list_files == ListFiles::with_matches    ? input_matches_ > 0
                      : plan_.list_files == ListFiles::without_match ? input_matches_ == 0 && !failed
                                                                     : false;
  if (listed) sink_.input_listed(name);
  input_matches_ = 0;
  stop_input_ = false;
}

void Searcher::message(const std::string& text) {
  if (error_lines_) {  // a file searched ahead: told in its turn
    *error_lines_ += text;
    return;
  }
  sink_.flush();  // after the lines printed before it
  std::fputs(text.c_str(), stderr);
}

void Searcher::report_error(const std::string& path, const std::exception& error) const {
  if (plan_.no_messages && dynamic_cast<const io::InputError*>(&error)) return;  // -s (grep -s)
  if (error_lines_) *error_lines_ += input_error_text(path, error);
  else report_input_error(path, error);
}

}  // namespace warpmatch::cli
