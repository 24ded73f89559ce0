#include "searcher.hpp"

#include <atomic>
#include <chrono>
#include <thread>

#include "sequence_options.hpp"

namespace warpmatch::cli {
namespace {

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
  if (plan_.max_per_input == 0) return 1;  // grep -m 0: read nothing, match nothing
  const auto t0 = std::chrono::steady_clock::now();
  sink_.begin();
  for (const std::string& path : plan_.inputs) {
    if (stop_all_) break;
    ++totals_.inputs;
    try {
      io::TextStream input = io::TextStream::open(path, plan_.stream);
      search_input(input, scanner);
    } catch (const Error& e) {
      // Hits before a corrupt or truncated part are already printed; the counts too.
      finish_input(path);
      sink_.flush();
      report_input_error(path, e);
      ++totals_.errors;
    }
  }
  if (summarize) {
    SearchSummary summary;
    summary.totals = totals_;
    summary.seconds = seconds_since(t0);
    summarize(summary);
    sink_.summary(summary);
    if (stats) print_stats(sink_, summary);
  }
  sink_.flush();
  if (plan_.quiet && totals_.matches > 0) return 0;  // grep -q: a match wins over errors
  if (totals_.errors > 0) return 2;
  return totals_.matches > 0 ? 0 : 1;
}

void Searcher::search_input(io::TextStream& input, const WindowScanner& scanner) {
  input_open_ = true;
  per_pattern_.assign(plan_.pattern_count, 0);
  Progress progress(plan_.progress, input.stored_bytes(), plan_.work_per_byte);
  const bool fastx = input.format() != io::Format::plain;
  CircularJunction junction(plan_.circular_reach);
  for (io::TextWindow w; !stop_input_ && !stop_all_ && input.next(w);) {
    const Location where{input.name(), fastx ? std::optional<std::string_view>(w.record) : std::nullopt};
    search_window(w, where, scanner, progress, input.stored_offset());
    if (plan_.circular && !stop_input_ && !stop_all_ && junction.add(w)) search_junction(junction, where, scanner);
    totals_.bytes += plan_.owns == Ownership::starts ? w.owned : w.data.size() - w.repeated;
    if (w.input_paused) sink_.flush();  // seen while a slow pipe waits (Output)
    progress.advance_to(input.stored_offset());
  }
  progress.finish();
  finish_input(input.name());
}

// The window's own hits at record offsets (or, -c, only their counts).
void Searcher::search_window(const io::TextWindow& w, const Location& where, const WindowScanner& scanner,
                             Progress& progress, std::uint64_t stored_offset) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool count_only = plan_.count && plan_.max_per_input < 0 && !plan_.quiet;  // -q stops at the first
  if (const auto counted = count_only ? scanner.count(w, per_pattern_) : std::nullopt) {
    input_matches_ += *counted;
  } else {
    ScanProgress scan_progress;
    const bool ticks = plan_.scan_progress && progress.active();
    ScanTicker ticker(progress, scan_progress, ticks ? w.data.size() * plan_.work_per_byte : 0,
                      progress.done(), stored_offset);
    bool first = true;
    scanner.scan(w.data, [&](const Hit& local) {
      const bool owned = plan_.owns == Ownership::starts ? local.start < w.owned : local.end > w.repeated;
      if (!owned) return true;
      if (first) {
        ticker.stop();  // the progress line must not mix with the output
        progress.erase();
        first = false;
      }
      Hit hit = local;
      hit.where = where;
      hit.start += w.offset;
      hit.end += w.offset;
      hit.matched = w.data.subspan(local.start, local.end - local.start);
      return deliver(hit);
    }, ticks ? &scan_progress : nullptr);
  }
  totals_.scan_seconds += seconds_since(t0);
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

// One hit at record coordinates; false stops the scan (-q, -m).
bool Searcher::deliver(const Hit& hit) {
  ++input_matches_;
  if (plan_.quiet) {
    stop_all_ = true;
    return false;
  }
  if (hit.pattern < per_pattern_.size()) ++per_pattern_[hit.pattern];
  if (!plan_.count) sink_.hit(hit);
  if (plan_.max_per_input >= 0 && static_cast<std::int64_t>(input_matches_) >= plan_.max_per_input) {
    stop_input_ = true;
    return false;
  }
  return true;
}

// The input's counts (-c), then its state reset; once per input, errors included.
void Searcher::finish_input(const std::string& name) {
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
  input_matches_ = 0;
  stop_input_ = false;
}

}  // namespace warpmatch::cli
