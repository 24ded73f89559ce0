// ExactMatcher (one pattern: warpmatch::ExactMatcher; a sequence: warpmatch::MultiMatcher) and
// ApproxMatcher: compiled once with the GIL released, immutable, shared freely between threads;
// scans with the GIL released; hits out as NumPy structured arrays.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "auto_backend.hpp"
#include "binding.hpp"
#include "core/parallel.hpp"
#include "io/input_estimate.hpp"
#include "io/record_run.hpp"
#include "io/text_stream.hpp"
#include "warpmatch/approx.hpp"
#include "warpmatch/exact.hpp"
#include "warpmatch/multi.hpp"
#include "warpmatch/sequence.hpp"

namespace warpmatch::python {

using namespace nb::literals;

namespace {

// ---- result rows (the NumPy dtypes below describe these layouts) ------------------------
static_assert(sizeof(Match) == 24 && offsetof(Match, pattern) == 0 && offsetof(Match, start) == 8 &&
              offsetof(Match, end) == 16 && offsetof(Match, strand) == 4);

// strand: b'+' or b'-' (a hit of the pattern's reverse complement, forward coordinates).
struct ApproxRow {
  std::uint32_t pattern;
  std::uint32_t distance;
  std::uint64_t start;
  std::uint64_t end;
  char strand;
};
static_assert(sizeof(ApproxRow) == 32);

// A hit of a file search: which record (FASTA/FASTQ; 0 for plain text), at record offsets.
struct FileRow {
  std::uint64_t record;
  std::uint32_t pattern;
  std::uint32_t distance;
  std::uint64_t start;
  std::uint64_t end;
  char strand;
};
static_assert(sizeof(FileRow) == 40);

nb::handle exact_dtype() {
  static nb::handle d =
      struct_dtype({{"pattern", "<u4", 0}, {"strand", "S1", 4}, {"start", "<u8", 8}, {"end", "<u8", 16}}, 24).release();
  return d;
}
nb::handle approx_dtype() {
  static nb::handle d = struct_dtype({{"pattern", "<u4", 0},
                                      {"strand", "S1", 24},
                                      {"start", "<u8", 8},
                                      {"end", "<u8", 16},
                                      {"distance", "<u4", 4}},
                                     32)
                            .release();
  return d;
}
// FileRow as a NumPy dtype: its first field is the record (find_file) or the text's index in
// the sequence given (find_many); approximate hits add the distance.
enum class RowOf { record, text };
nb::object file_row_dtype(RowOf of, bool distance) {
  const char* first = of == RowOf::record ? "record" : "text";
  if (!distance)
    return struct_dtype(
        {{first, "<u8", 0}, {"pattern", "<u4", 8}, {"strand", "S1", 32}, {"start", "<u8", 16}, {"end", "<u8", 24}}, 40);
  return struct_dtype({{first, "<u8", 0},
                       {"pattern", "<u4", 8},
                       {"strand", "S1", 32},
                       {"start", "<u8", 16},
                       {"end", "<u8", 24},
                       {"distance", "<u4", 12}},
                      40);
}
nb::handle exact_file_dtype() {
  static nb::handle d = file_row_dtype(RowOf::record, false).release();
  return d;
}
nb::handle approx_file_dtype() {
  static nb::handle d = file_row_dtype(RowOf::record, true).release();
  return d;
}
nb::handle exact_many_dtype() {
  static nb::handle d = file_row_dtype(RowOf::text, false).release();
  return d;
}
nb::handle approx_many_dtype() {
  static nb::handle d = file_row_dtype(RowOf::text, true).release();
  return d;
}

/// "+", "-" or "both" (warpmatch::parse_strand's names), as a ValueError otherwise.
Strand strand_arg(const std::string& s) {
  try {
    return parse_strand(s);
  } catch (const InvalidArgument& e) {
    throw nb::value_error(e.what());
  }
}

/// ", devices=[0, 1]" for a repr when a device list is in use, else "".
std::string devices_repr(const std::vector<int>& devices) {
  if (devices.empty()) return "";
  std::string out = ", devices=[";
  for (std::size_t i = 0; i < devices.size(); ++i) out += (i ? ", " : "") + std::to_string(devices[i]);
  return out + "]";
}

nb::list bytes_list(const std::vector<std::string>& v) {
  nb::list out;
  for (const auto& s : v) out.append(nb::bytes(s.data(), s.size()));
  return out;
}

// The input of a file search: a path (str or os.PathLike) or the file's content (bytes-like).
struct FileSource {
  std::optional<std::string> path;
  std::optional<BytesArg> content;
  FileSource(nb::handle source) {
    if (PyUnicode_Check(source.ptr()) || nb::hasattr(source, "__fspath__")) {
      nb::object p = nb::steal(PyOS_FSPath(source.ptr()));
      if (!p.is_valid()) throw nb::python_error();
      if (!PyUnicode_Check(p.ptr())) throw nb::type_error("source: a bytes path is not supported; pass str");
      path = nb::cast<std::string>(p);
    } else {
      content.emplace(source, "source");
    }
  }
  io::TextStream open(const io::StreamOptions& o) const {
    return path ? io::TextStream::open(*path, o) : io::TextStream::from_bytes("(buffer)", content->span(), o);
  }
  /// Its bytes to search and what bounds their rate, for the cost model (per-call auto).
  io::InputEstimate estimate(int threads) const {
    return path ? io::estimate_input(*path, threads) : io::estimate_input(content->span(), threads);
  }
};

io::StreamOptions stream_options(const std::string& format, std::uint64_t window_bytes) {
  io::StreamOptions o;
  o.format = io::parse_format(format);
  if (window_bytes > 0) o.window_bytes = o.mapped_window_bytes = window_bytes;
  return o;
}

// Streams a file through the input layer (windows with `overlap`): each window to
// scan_window(window), except runs of short whole records, which go to scan_run(records,
// run) as one text when `gap` is set (one scan call per thousands of reads); record names
// collected in order.
template <class ScanWindow, class ScanRun>
std::vector<std::string> stream_file(const FileSource& source, io::StreamOptions o, std::optional<io::RecordGap> gap,
                                     ScanWindow&& scan_window, ScanRun&& scan_run) {
  std::vector<std::string> records;
  std::vector<std::uint8_t> scratch;
  io::TextStream stream = source.open(o);
  if (stream.format() == io::Format::plain) gap.reset();  // one record
  for (std::span<const io::TextWindow> batch; !(batch = stream.next_windows()).empty();) {
    for (std::size_t i = 0; i < batch.size();) {
      const std::size_t n = gap ? io::RecordRun::length(batch.subspan(i), gap->bytes, io::RecordRun::kMaxBytes) : 0;
      if (n >= 2) {
        const std::span<const io::TextWindow> run_records = batch.subspan(i, n);
        for (const io::TextWindow& w : run_records) records.emplace_back(w.record);
        scan_run(run_records, io::RecordRun(run_records, *gap, scratch));
        i += n;
        continue;
      }
      const io::TextWindow& w = batch[i++];
      if (w.first) records.emplace_back(w.record);
      scan_window(w);
    }
  }
  return records;
}

// Texts in memory (find_many, count_many) searched as a file of reads is: each text one
// whole record (its index the record index), short ones laid end to end in runs (as
// stream_file's). Each unit (a text alone or a run) gives its results into an Out of its own,
// returned in the texts' order; on the CPU the units are scanned on `threads` threads (one
// run is one segment of a scan: one thread's work), on the GPU one after another. Texts are
// taken kSlice at a time, so the windows describing them stay a few MiB for millions of reads.
template <class Out, class ScanWindow, class ScanRun>
std::vector<Out> scan_texts(const std::vector<BytesArg>& texts, const std::optional<io::RecordGap>& gap, Backend backend,
                            int threads, ScanWindow&& scan_window, ScanRun&& scan_run) {
  constexpr std::size_t kSlice = std::size_t{1} << 16;
  struct Unit {
    std::size_t first, count;  // in the slice's windows; count 0: windows[first] alone
  };
  const int workers = backend == Backend::cpu ? (threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency())) : 1;
  std::vector<Out> out;
  std::vector<io::TextWindow> windows;
  windows.reserve(std::min(kSlice, texts.size()));
  std::vector<Unit> units;
  std::vector<std::uint8_t> scratch;
  for (std::size_t base = 0; base < texts.size(); base += kSlice) {
    windows.clear();  // each window written once (an assign's fill, then the fields, was 13 %)
    for (std::size_t i = base; i < std::min(texts.size(), base + kSlice); ++i) {
      const ByteSpan data = texts[i].span();
      windows.push_back({.record_index = i, .data = data, .owned = data.size(), .first = true, .last = true});
    }
    const std::span<const io::TextWindow> all(windows);
    units.clear();
    for (std::size_t i = 0; i < windows.size();) {
      const std::size_t n = gap ? io::RecordRun::length(all.subspan(i), gap->bytes, io::RecordRun::kMaxBytes) : 0;
      units.push_back({i, n >= 2 ? n : 0});
      i += n >= 2 ? n : 1;
    }
    const std::size_t first_out = out.size();
    out.resize(first_out + units.size());
    const auto scan_unit = [&](std::size_t u, std::vector<std::uint8_t>& buffer) {
      Out& into = out[first_out + u];
      if (units[u].count == 0) return scan_window(windows[units[u].first], into);
      const std::span<const io::TextWindow> records = all.subspan(units[u].first, units[u].count);
      scan_run(records, io::RecordRun(records, *gap, buffer), into);
    };
    if (workers <= 1 || units.size() <= 1) {
      for (std::size_t u = 0; u < units.size(); ++u) scan_unit(u, scratch);
    } else {
      core::parallel_for(units.size(), workers, [&](std::size_t u) {
        std::vector<std::uint8_t> buffer;
        scan_unit(u, buffer);
      });
    }
  }
  return out;
}

/// The texts of find_many / count_many: a sequence of texts (a single text is refused: it
/// would be searched as a sequence of one, likely not what was meant).
std::vector<BytesArg> many_texts_arg(nb::handle obj) {
  if (is_single_text(obj))
    throw nb::type_error(("texts: expected a sequence of texts (a list of str or bytes-like objects), got one " +
                          std::string(nb::type_name(obj.type()).c_str()) + "; use find/count for one text")
                             .c_str());
  bool multi = true;
  return texts_arg(obj, "texts", multi);
}

std::uint64_t total_bytes(const std::vector<BytesArg>& texts) {
  std::uint64_t n = 0;
  for (const auto& t : texts) n += t.span().size();
  return n;
}

nb::object file_hits(nb::object array, const std::vector<std::string>& records) {
  nb::list names;
  for (const auto& r : records) names.append(nb::str(r.data(), r.size()));
  return as_hits(array, names, nb::none());
}

// The GIL released for a scan of `t`, except for host texts under 4 KiB: releasing and
// re-taking it (~35 ns) was a quarter of a count in a 150-byte read, whose scan ends before
// another thread could use it.
class GilReleasedFor {
 public:
  static constexpr std::size_t kKeptBelow = 4096;
  explicit GilReleasedFor(const TextArg& t) {
    if (t.on_device() || t.host().size() >= kKeptBelow) release_.emplace();
  }

 private:
  std::optional<nb::gil_scoped_release> release_;
};

// ---- ExactMatcher -------------------------------------------------------------------------
// One compiled form of an ExactMatcher's patterns: the single-pattern engine, or a set
// (MultiMatcher) for several patterns, strands or IUPAC codes; the same calls on either.
struct ExactForm {
  std::optional<ExactMatcher> single;
  std::optional<MultiMatcher> set;

  std::uint64_t count(const TextArg& t) const {
    if (t.on_device()) return single ? single->count_device_text(t.device()) : set->count_device_text(t.device());
    return count(t.host());
  }
  std::uint64_t count(ByteSpan text) const { return single ? single->count(text) : set->count(text); }
  std::vector<std::uint64_t> counts(const TextArg& t) const {
    if (single) return {t.on_device() ? single->count_device_text(t.device()) : single->count(t.host())};
    return t.on_device() ? set->count_per_pattern_device_text(t.device()) : set->count_per_pattern(t.host());
  }
  void scan_device_text(DeviceSpan text, const MatchSink& sink) const {
    single ? single->scan_device_text(text, sink) : set->scan_device_text(text, sink);
  }
  void scan_batches(ByteSpan text, const MatchBatchSink& sink) const {
    single ? single->scan_batches(text, sink) : set->scan_batches(text, sink);
  }
  Backend backend() const { return single ? single->backend() : set->backend(); }
  std::string algorithm() const { return single ? single->algorithm() : set->algorithm(); }

  // A window's hits as rows of its record, at record offsets (starts it owns).
  void window_rows(const io::TextWindow& w, RowBlocks<FileRow>& rows) const {
    scan_batches(w.data, [&](std::span<const Match> batch) {
      for (const Match& x : batch) {
        if (x.start >= w.owned) return false;  // ascending starts: the rest are the next window's
        rows.push_back({w.record_index, x.pattern, 0, x.start + w.offset, x.end + w.offset, x.strand});
      }
      return true;
    });
  }
  // A run's hits as rows of the record holding each whole (ascending starts: record by record).
  void run_rows(std::span<const io::TextWindow> records, const io::RecordRun& run, RowBlocks<FileRow>& rows) const {
    scan_batches(run.text(), [&](std::span<const Match> batch) {
      for (const Match& x : batch)
        if (const auto r = run.record_of(x.start, x.end))
          rows.push_back({records[*r].record_index, x.pattern, 0, x.start - run.offset(*r), x.end - run.offset(*r), x.strand});
      return true;
    });
  }
};

class PyExactMatcher {
 public:
  PyExactMatcher(nb::handle pattern_or_patterns, bool ignore_case, const std::string& backend, int threads,
                 int device, const std::string& strand, bool iupac, nb::handle devices) {
    std::vector<BytesArg> args = texts_arg(pattern_or_patterns, "pattern", multi_);
    for (const auto& a : args) patterns_.push_back(a.str());
    ignore_case_ = ignore_case;
    strand_ = strand;
    strand_value_ = strand_arg(strand);
    iupac_ = iupac;
    backend_ = backend;
    threads_ = threads;
    device_ = device;
    devices_ = devices_arg(devices, backend, device);
    devices_requested_ = nb::borrow(devices);
    const bool per_call = chooses_per_call(backend, devices_);
    nb::gil_scoped_release release;
    forms_.init(compile(per_call ? Backend::cpu : backend_arg(backend_)), per_call);
  }

  // Host or GPU-resident text (TextArg): the library's ByteSpan or DeviceSpan overloads.
  std::uint64_t count(nb::handle text) const {
    TextArg t(text, "text");
    GilReleasedFor release(t);
    return form_for(t).count(t);
  }

  nb::object counts(nb::handle text) const {
    TextArg t(text, "text");
    std::vector<std::uint64_t> c;
    {
      GilReleasedFor release(t);
      c = form_for(t).counts(t);
    }
    return numpy_array(plain_dtype("<u8"), c.data(), c.size());
  }

  nb::object find(nb::handle text, std::uint64_t max_matches) const {
    TextArg t(text, "text");
    std::vector<Match> hits;                 // GPU-resident text
    std::vector<std::vector<Match>> blocks;  // host text: a block a batch
    {
      GilReleasedFor release(t);
      const ExactForm& form = form_for(t);
      if (t.on_device()) {
        const MatchSink sink = [&](const Match& x) {
          hits.push_back(x);
          return max_matches == 0 || hits.size() < max_matches;
        };
        form.scan_device_text(t.device(), sink);
      } else {
        // A batch at a time: a call a match cost more than the scan on texts with millions.
        std::uint64_t taken = 0;
        const MatchBatchSink sink = [&](std::span<const Match> batch) {
          const std::size_t take =
              max_matches == 0 ? batch.size() : std::min<std::size_t>(batch.size(), max_matches - taken);
          blocks.emplace_back(batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(take));
          taken += take;
          return max_matches == 0 || taken < max_matches;
        };
        form.scan_batches(t.host(), sink);
      }
    }
    return t.on_device() ? numpy_array(exact_dtype(), hits.data(), hits.size()) : numpy_array(exact_dtype(), blocks);
  }

  nb::object find_file(nb::handle source_obj, const std::string& format, std::uint64_t window_bytes) const {
    FileSource source(source_obj);
    io::StreamOptions o = stream_options(format, window_bytes);
    o.threads = threads_;
    o.overlap = longest() - 1;
    RowBlocks<FileRow> rows;
    std::vector<std::string> records;
    {
      nb::gil_scoped_release release;
      const io::InputEstimate input = source.estimate(threads_);
      const ExactForm& form = form_for_bytes(input.bytes, input.source);
      records = stream_file(
          source, o, io::RecordGap{}, [&](const io::TextWindow& w) { form.window_rows(w, rows); },
          [&](std::span<const io::TextWindow> run_records, const io::RecordRun& run) { form.run_rows(run_records, run, rows); });
    }
    return file_hits(numpy_array(exact_file_dtype(), rows.blocks()), records);
  }

  // Many texts in one call: short ones (reads) laid end to end and scanned at once, as a file
  // of reads is; per-call auto weighs all their bytes.
  nb::object find_many(nb::handle texts_obj) const {
    const std::vector<BytesArg> texts = many_texts_arg(texts_obj);
    std::vector<RowBlocks<FileRow>> units;  // a unit's rows (see scan_texts)
    {
      nb::gil_scoped_release release;
      const ExactForm& form = form_for_bytes(total_bytes(texts), TextSource::memory);
      units = scan_texts<RowBlocks<FileRow>>(
          texts, io::RecordGap{}, form.backend(), threads_,
          [&](const io::TextWindow& w, RowBlocks<FileRow>& rows) { form.window_rows(w, rows); },
          [&](std::span<const io::TextWindow> run_records, const io::RecordRun& run, RowBlocks<FileRow>& rows) {
            form.run_rows(run_records, run, rows);
          });
    }
    std::vector<std::span<const std::byte>> blocks;
    std::size_t count = 0;
    for (const auto& unit : units)
      for (const auto& b : unit.blocks()) blocks.push_back(std::as_bytes(std::span<const FileRow>(b))), count += b.size();
    return numpy_array(exact_many_dtype(), blocks, count);
  }

  nb::object count_many(nb::handle texts_obj) const {
    const std::vector<BytesArg> texts = many_texts_arg(texts_obj);
    std::vector<std::uint64_t> counts(texts.size());  // each unit writes its own texts' counts
    {
      nb::gil_scoped_release release;
      const ExactForm& form = form_for_bytes(total_bytes(texts), TextSource::memory);
      scan_texts<char>(
          texts, io::RecordGap{}, form.backend(), threads_,
          [&](const io::TextWindow& w, char&) { counts[w.record_index] = form.count(w.data); },
          [&](std::span<const io::TextWindow> run_records, const io::RecordRun& run, char&) {
            form.scan_batches(run.text(), [&](std::span<const Match> batch) {
              for (const Match& x : batch)
                if (const auto r = run.record_of(x.start, x.end)) ++counts[run_records[*r].record_index];
              return true;
            });
          });
    }
    return numpy_array(plain_dtype("<u8"), counts.data(), counts.size());
  }

  std::size_t longest() const {
    std::size_t m = 0;
    for (const auto& p : patterns_) m = std::max(m, p.size());
    return m;
  }

  nb::object patterns() const { return multi_ ? nb::object(bytes_list(patterns_)) : nb::object(nb::bytes(patterns_[0].data(), patterns_[0].size())); }
  std::size_t pattern_count() const { return patterns_.size(); }
  // Under per-call auto: the backend (and algorithm) of the last scan, the CPU's before any.
  std::string backend() const { return std::string(backend_name(forms_.backend())); }
  std::string algorithm() const { return forms_.last().algorithm(); }
  bool ignore_case() const { return ignore_case_; }
  const std::string& strand() const { return strand_; }
  bool iupac() const { return iupac_; }

  nb::tuple state() const {
    return nb::make_tuple(patterns(), ignore_case_, backend_, threads_, device_, strand_, iupac_, devices_requested_);
  }
  std::string repr() const {
    return "warpmatch.ExactMatcher(" + std::to_string(patterns_.size()) + " pattern" +
           (patterns_.size() == 1 ? "" : "s") + ", ignore_case=" + (ignore_case_ ? "True" : "False") +
           (strand_ != "+" ? ", strand='" + strand_ + "'" : "") + (iupac_ ? ", iupac=True" : "") +
           ", backend='" + backend() + "', algorithm='" + algorithm() + "'" + devices_repr(devices_) + ")";
  }

 private:
  ExactForm compile(Backend b) const {
    ExactForm form;
    // One pattern on one strand: the single-pattern engine; strands and IUPAC codes expand
    // into a set (MultiMatcher), even for one pattern.
    if (multi_ || strand_value_ != Strand::forward || iupac_) {
      MultiOptions o;
      o.backend = b;
      o.case_insensitive = ignore_case_;
      o.strand = strand_value_;
      o.iupac = iupac_;
      o.threads = threads_;
      o.device = device_;
      o.devices = devices_;
      form.set.emplace(MultiMatcher::compile(patterns_, o));
    } else {
      ExactOptions o;
      o.backend = b;
      o.case_insensitive = ignore_case_;
      o.threads = threads_;
      o.device = device_;
      o.devices = devices_;
      form.single.emplace(ExactMatcher::compile(as_bytes(patterns_[0]), o));
    }
    return form;
  }

  // The form a call runs on: the compiled one, or under per-call auto the cost model's choice
  // for this text (GPU-resident text always goes to the GPU form).
  const ExactForm& form_for(const TextArg& t) const {
    if (t.on_device()) return forms_.for_device([&] { return compile(Backend::cuda); });
    return form_for_bytes(t.host().size(), TextSource::memory);
  }
  const ExactForm& form_for_bytes(std::uint64_t bytes, TextSource source) const {
    return forms_.for_host([&] {
      JobShape job;
      job.operation = forms_.main().single ? Operation::exact : Operation::multi;
      job.text_bytes = bytes;
      job.source = source;
      job.patterns = forms_.main().single ? 1 : forms_.main().set->pattern_count();
      job.pattern_length = longest();
      job.threads = threads_;
      return job;
    }, [&] { return compile(Backend::cuda); });
  }

  std::vector<std::string> patterns_;
  bool multi_ = false;
  bool ignore_case_ = false;
  std::string strand_ = "+";
  Strand strand_value_ = Strand::forward;
  bool iupac_ = false;
  std::string backend_ = "auto";  // as requested: a pickled "auto" matcher resolves again where it lands
  int threads_ = 0;
  int device_ = 0;
  std::vector<int> devices_;         // resolved (Execution::devices)
  nb::object devices_requested_;     // as given: a pickled "all" resolves again where it lands
  // Backend "auto" with a GPU present: the CPU's form, the GPU's when a call first chooses it.
  PerCallForms<ExactForm> forms_;
};

// ---- ApproxMatcher ------------------------------------------------------------------------
class PyApproxMatcher {
 public:
  PyApproxMatcher(nb::handle pattern_or_patterns, nb::object k, bool best, bool cigar, bool ignore_case,
                  const std::string& backend, int threads, int device, const std::string& strand, bool iupac,
                  bool hamming, nb::handle devices) {
    std::vector<BytesArg> args = texts_arg(pattern_or_patterns, "pattern", multi_);
    for (const auto& a : args) patterns_.emplace_back(a.span().begin(), a.span().end());
    k_arg_ = k;
    backend_ = backend;
    opt_.k = optional_bound(k, "k");
    opt_.best = best;
    opt_.report = cigar ? Report::cigar : Report::starts;
    opt_.case_insensitive = ignore_case;
    strand_ = strand;
    opt_.strand = strand_arg(strand);
    opt_.iupac = iupac;
    opt_.hamming = hamming;
    opt_.backend = backend_arg(backend);
    opt_.threads = threads;
    opt_.device = device;
    opt_.devices = devices_arg(devices, backend, device);
    devices_requested_ = nb::borrow(devices);
    const bool per_call = chooses_per_call(backend, opt_.devices);
    if (per_call) opt_.backend = Backend::cpu;  // the GPU's form when a call first chooses it
    nb::gil_scoped_release release;
    forms_.init(ApproxMatcher::compile(patterns_, opt_), per_call);
  }

  // Host or GPU-resident text (TextArg): the library's scan or scan_device_text.
  nb::object find(nb::handle text) const {
    TextArg t(text, "text");
    RowBlocks<ApproxRow> rows;
    std::vector<std::string> cigars;
    {
      nb::gil_scoped_release release;
      const ApproxSink sink = [&](const ApproxMatch& h) {
        rows.push_back({h.pattern, h.distance, h.start, h.end, h.strand});
        if (cigar()) cigars.push_back(h.cigar);
        return true;
      };
      if (t.on_device()) form_for_device().scan_device_text(t.device(), sink);
      else form_for_bytes(t.host().size(), TextSource::memory).scan(t.host(), sink);
    }
    nb::object array = numpy_array(approx_dtype(), rows.blocks());
    if (!cigar()) return array;
    nb::list c;
    for (const auto& s : cigars) c.append(nb::str(s.data(), s.size()));
    return as_hits(array, nb::none(), c);
  }

  nb::object find_file(nb::handle source_obj, const std::string& format, std::uint64_t window_bytes) const {
    FileSource source(source_obj);
    io::StreamOptions o = stream_options(format, window_bytes);
    o.threads = opt_.threads;
    o.overlap = overlap();
    // Best mode compares hits across a whole record: whole records as windows, also when a
    // pipe's writer pauses.
    if (opt_.best) {
      o.window_bytes = o.mapped_window_bytes = std::uint64_t{1} << 62;
      o.end_window_on_pause = false;
    }
    std::vector<FileRow> rows;
    std::vector<std::string> records;
    {
      nb::gil_scoped_release release;
      const io::InputEstimate input = source.estimate(opt_.threads);
      const ApproxMatcher& form = form_for_bytes(input.bytes, input.source);
      records = stream_file(
          source, o, run_gap(), [&](const io::TextWindow& w) { window_rows(form, w, rows, nullptr); },
          [&](std::span<const io::TextWindow> run_records, const io::RecordRun& run) {
            run_rows(form, run_records, run, rows, nullptr);
          });
    }
    return file_hits(numpy_array(approx_file_dtype(), rows.data(), rows.size()), records);
  }

  // Many texts in one call, as ExactMatcher.find_many: rows text by text, each text's hits in
  // the order find(text) gives them.
  nb::object find_many(nb::handle texts_obj) const {
    const std::vector<BytesArg> texts = many_texts_arg(texts_obj);
    struct Unit {  // a unit's rows and CIGARs (see scan_texts)
      std::vector<FileRow> rows;
      std::vector<std::string> cigars;
    };
    std::vector<Unit> units;
    const bool cigars = cigar();
    {
      nb::gil_scoped_release release;
      const ApproxMatcher& form = form_for_bytes(total_bytes(texts), TextSource::memory);
      units = scan_texts<Unit>(
          texts, run_gap(), form.backend(), opt_.threads,
          [&](const io::TextWindow& w, Unit& u) { window_rows(form, w, u.rows, cigars ? &u.cigars : nullptr); },
          [&](std::span<const io::TextWindow> run_records, const io::RecordRun& run, Unit& u) {
            run_rows(form, run_records, run, u.rows, cigars ? &u.cigars : nullptr);
          });
    }
    std::vector<std::span<const std::byte>> blocks;
    std::size_t count = 0;
    for (const auto& u : units) blocks.push_back(std::as_bytes(std::span<const FileRow>(u.rows))), count += u.rows.size();
    nb::object array = numpy_array(approx_many_dtype(), blocks, count);
    if (!cigars) return array;
    nb::list c;
    for (const auto& u : units)
      for (const auto& x : u.cigars) c.append(nb::str(x.data(), x.size()));
    return as_hits(array, nb::none(), c);
  }

  // A window's hits as rows of its record (ends it owns), with their CIGARs when `cigars`.
  void window_rows(const ApproxMatcher& form, const io::TextWindow& w, std::vector<FileRow>& rows,
                   std::vector<std::string>* cigars) const {
    form.scan(w.data, [&](const ApproxMatch& h) {
      if (h.end <= w.repeated) return true;  // the previous window's end
      rows.push_back({w.record_index, h.pattern, h.distance, h.start + w.offset, h.end + w.offset, h.strand});
      if (cigars) cigars->push_back(h.cigar);
      return true;
    });
  }
  // A run's hits as rows of the record holding each whole; regrouped record by record, each in
  // its own scan's order (a run's hits come pattern by pattern).
  void run_rows(const ApproxMatcher& form, std::span<const io::TextWindow> records, const io::RecordRun& run,
                std::vector<FileRow>& rows, std::vector<std::string>* cigars) const {
    const std::size_t first = rows.size();
    const bool starts = form.options().report != Report::ends;
    form.scan(run.text(), [&](const ApproxMatch& h) {
      if (const auto r = run.record_of(h.start, h.end, starts)) {
        rows.push_back({records[*r].record_index, h.pattern, h.distance,
                        h.start >= run.offset(*r) ? h.start - run.offset(*r) : 0, h.end - run.offset(*r), h.strand});
        if (cigars) cigars->push_back(h.cigar);
      }
      return true;
    });
    const auto by_record = [](const FileRow& a, const FileRow& b) { return a.record < b.record; };
    if (!cigars) {
      std::stable_sort(rows.begin() + static_cast<std::ptrdiff_t>(first), rows.end(), by_record);
      return;
    }
    std::vector<std::size_t> order(rows.size() - first);  // the same permutation for both
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = first + i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return by_record(rows[a], rows[b]); });
    std::vector<FileRow> sorted_rows;
    std::vector<std::string> sorted_cigars;
    for (const std::size_t i : order) sorted_rows.push_back(rows[i]), sorted_cigars.push_back(std::move((*cigars)[i]));
    std::copy(sorted_rows.begin(), sorted_rows.end(), rows.begin() + static_cast<std::ptrdiff_t>(first));
    std::move(sorted_cigars.begin(), sorted_cigars.end(), cigars->begin() + static_cast<std::ptrdiff_t>(first));
  }

  // Reads searched as one text: k + 1 gap bytes that no pattern holds (io::approx_record_gap);
  // not in best mode, which takes the minimum over a whole record.
  std::optional<io::RecordGap> run_gap() const {
    if (opt_.best || opt_.best_of_cluster) return std::nullopt;
    std::vector<std::string_view> views;
    for (const auto& p : patterns_) views.emplace_back(reinterpret_cast<const char*>(p.data()), p.size());
    return io::approx_record_gap(views, forms_.main().k());
  }

  // Every alignment ending in a window's own ends lies within m + k bytes before its end.
  std::uint64_t overlap() const {
    std::uint64_t overlap = 0;
    for (std::size_t i = 0; i < forms_.main().pattern_count(); ++i) {
      const std::uint64_t m = forms_.main().pattern_length(i);
      const std::uint64_t k =
          forms_.main().k() < 0 ? m : std::min<std::uint64_t>(m, static_cast<std::uint64_t>(forms_.main().k()));
      overlap = std::max(overlap, m + k);
    }
    return overlap;
  }

  nb::object patterns() const {
    nb::list out;
    for (const auto& p : patterns_) out.append(nb::bytes(p.data(), p.size()));
    return multi_ ? nb::object(out) : nb::object(out[0]);
  }
  std::size_t pattern_count() const { return patterns_.size(); }
  nb::object k() const { return k_arg_; }
  bool best() const { return opt_.best; }
  bool cigar() const { return opt_.report == Report::cigar; }
  const std::string& strand() const { return strand_; }
  bool iupac() const { return opt_.iupac; }
  bool hamming() const { return opt_.hamming; }
  // Under per-call auto: the backend (and algorithm) of the last scan, the CPU's before any.
  std::string backend() const { return std::string(backend_name(forms_.backend())); }
  std::string algorithm() const { return forms_.last().algorithm(); }
  nb::tuple state() const {
    return nb::make_tuple(patterns(), k_arg_, opt_.best, cigar(), opt_.case_insensitive, backend_,
                          opt_.threads, opt_.device, strand_, opt_.iupac, opt_.hamming, devices_requested_);
  }
  std::string repr() const {
    return "warpmatch.ApproxMatcher(" + std::to_string(patterns_.size()) + " pattern" +
           (patterns_.size() == 1 ? "" : "s") + ", k=" + (k_arg_.is_none() ? "None" : std::to_string(opt_.k)) +
           ", best=" + (opt_.best ? "True" : "False") + (strand_ != "+" ? ", strand='" + strand_ + "'" : "") +
           (opt_.iupac ? ", iupac=True" : "") + (opt_.hamming ? ", hamming=True" : "") + ", backend='" + backend() +
           "'" + devices_repr(opt_.devices) + ")";
  }

 private:
  std::vector<std::vector<std::uint8_t>> patterns_;
  bool multi_ = false;
  nb::object k_arg_;
  std::string strand_ = "+";
  std::string backend_ = "auto";
  nb::object devices_requested_;  // as given (see PyExactMatcher)
  ApproxOptions opt_;
  PerCallForms<ApproxMatcher> forms_;  // as ExactMatcher's

  ApproxMatcher compile_gpu() const {
    ApproxOptions o = opt_;
    o.backend = Backend::cuda;
    return ApproxMatcher::compile(patterns_, o);
  }
  const ApproxMatcher& form_for_device() const { return forms_.for_device([&] { return compile_gpu(); }); }
  // The form a scan of `bytes` runs on: under per-call auto the cost model's choice, with the
  // command line's job shape (approx_command.cpp).
  const ApproxMatcher& form_for_bytes(std::uint64_t bytes, TextSource source) const {
    return forms_.for_host([&] {
      JobShape job;
      job.operation = Operation::approx;
      job.text_bytes = bytes;
      job.source = source;
      job.patterns = forms_.main().pattern_count();
      job.threads = opt_.threads;
      std::uint64_t shortest = ~std::uint64_t{0};
      for (const auto& p : patterns_) {
        job.pattern_length = std::max<std::uint64_t>(job.pattern_length, p.size());
        shortest = std::min<std::uint64_t>(shortest, p.size());
      }
      if (!opt_.best && !opt_.iupac && opt_.k >= 0) {  // the seed filter's shape
        job.seed_k = opt_.k;
        job.shortest_pattern = shortest;
      }
      return job;
    }, [&] { return compile_gpu(); });
  }
};

constexpr const char* kExactDoc = R"(Exact search of one pattern or a set of patterns, compiled once.

ExactMatcher(pattern_or_patterns, ignore_case=False, backend="auto", threads=0, device=0,
             strand="+", iupac=False, devices=None)

pattern_or_patterns: one pattern (str as UTF-8, or any bytes-like object) or a sequence of
    them. Every byte value is a character (NUL included). A set reports every occurrence of
    every pattern, overlapping ones included, in ascending (start, pattern) order; duplicate
    patterns each keep their own index.
ignore_case: ASCII letters only; other bytes compare exactly.
backend: "auto", "cpu" or "cuda". "auto" chooses for each call by the cost model (the command
    line's --backend auto): the CPU for short texts and where its scan is faster, the GPU where
    it wins once CUDA runs; CUDA starts only once the time the GPU would have saved reaches its
    start-up (~0.3 s), so calls on single reads never start it. GPU-resident text goes to the
    GPU. `backend` then tells the last call's choice. With a devices list "auto" means the GPUs.
threads: CPU threads (0 = all). device: CUDA device ordinal.
devices: several GPUs for each scan: None (device alone), "all" (every GPU warpmatch.devices()
    lists; none on a machine without one, where backend "auto" runs on the CPU) or a sequence
    of ordinals (one may repeat). The text is split over them with the patterns' overlap and
    the results merged in the one-GPU order, identical to one GPU's; a text too small to gain
    runs on the first. With backend "cpu" (which takes threads instead), with device != 0, an
    empty sequence or an ordinal no GPU has: InvalidArgument (a ValueError); TypeError for a
    value that is neither None, a str nor a sequence of ints.
strand: "+" (the patterns as given), "-" (their reverse complements) or "both"; a '-' hit has
    strand b'-' and forward coordinates (start < end). Patterns must then be nucleotides or
    IUPAC codes. iupac: pattern IUPAC codes (N R Y S W K M B D H V) match their bases; a text
    N only a pattern N; with ignore_case soft-masked (lowercase) bases too.

The matcher is immutable: share it between threads. Scans release the GIL and read the text
in place (bytes, bytearray, memoryview, mmap, NumPy uint8 arrays; str as UTF-8). On the cuda
backend, count/counts/find also take text already in GPU memory without a host round trip:
any object with __cuda_array_interface__ (CuPy, Numba, PyTorch CUDA tensors) or CUDA DLPack,
C-contiguous with single-byte items, on the matcher's device.

>>> m = warpmatch.ExactMatcher(["he", "she", "hers"])
>>> m.count("ushers")
3
>>> m.find("ushers")[["pattern", "start", "end"]].tolist()
[(1, 1, 4), (0, 2, 4), (2, 2, 6)]
>>> warpmatch.ExactMatcher("GGNA", strand="both", iupac=True).find("TACCGGTA").tolist()
[(0, b'-', 0, 4), (0, b'+', 4, 8)]
>>> m.counts(b"ushers").tolist()
[1, 1, 1]
)";

constexpr const char* kApproxDoc = R"(Approximate search: every end position within k edits, or the best ones.

ApproxMatcher(pattern_or_patterns, k=None, best=False, cigar=False, ignore_case=False,
              backend="auto", threads=0, device=0, strand="+", iupac=False, hamming=False,
              devices=None)

Semi-global Levenshtein distance (edlib's HW mode): a hit is an end e (exclusive) with
dist(e) = min over s of ED(pattern, text[s:e]) <= k; start is the largest s reaching that
distance. best=True reports only the ends with the smallest distance (within k when given;
k=None means no bound). k is required unless best=True; k >= len(pattern) is capped at it.
cigar=True also recovers each alignment ('=' match, 'X' mismatch, 'I' a pattern byte absent
from the text, 'D' a text byte absent from the pattern): find() then returns a Hits array
whose .cigars lists them row by row.

strand and iupac: as for ExactMatcher (a '-' hit's CIGAR is in the forward direction).
backend, threads, device and devices: as for ExactMatcher; over several GPUs the text's ends
are split (all-hits mode) with an overlap of m + k; best mode runs on the first listed GPU.
On the cuda backend find() also takes text already in GPU memory (__cuda_array_interface__ or
CUDA DLPack, as ExactMatcher): the kernels copy it device-to-device; starts and CIGARs are
recovered on the host from only the m + k bytes before each hit's end.
hamming=True: substitutions only (no indels): every window of len(pattern) bytes with at most
k mismatches, distance = mismatches.

Hits come pattern by pattern (in the given order; with strand="both" a pattern's '+' hits, then
its '-' hits), each pattern's in ascending end.

>>> m = warpmatch.ApproxMatcher("GATTACA", k=1)
>>> m.find("xxGATACAxx")[["start", "end", "distance"]].tolist()
[(2, 8, 1)]
>>> warpmatch.ApproxMatcher("ACGTT", k=1, hamming=True, strand="both").find("AACGTA")[["strand", "start"]].tolist()
[(b'+', 1), (b'-', 0)]
>>> warpmatch.ApproxMatcher("GATTACA", best=True, cigar=True).find("xxGATACAxx").cigars
['2=1I4=']
)";

}  // namespace

void bind_matchers(nb::module_& m) {
  nb::class_<PyExactMatcher>(m, "ExactMatcher", kExactDoc)
      .def(nb::init<nb::handle, bool, const std::string&, int, int, const std::string&, bool, nb::handle>(),
           "pattern_or_patterns"_a, "ignore_case"_a = false, "backend"_a = "auto", "threads"_a = 0, "device"_a = 0,
           "strand"_a = "+", "iupac"_a = false, "devices"_a.none() = nb::none())
      .def("count", &PyExactMatcher::count, "text"_a,
           "Number of occurrences of all patterns, overlapping ones included.\n\n"
           ">>> warpmatch.ExactMatcher('aa').count('aaaa')\n3")
      .def("counts", &PyExactMatcher::counts, "text"_a,
           "Occurrences per pattern as a uint64 array (one element for a single pattern).\n\n"
           ">>> warpmatch.ExactMatcher(['a', 'b', 'a']).counts('abca').tolist()\n[2, 1, 2]")
      .def("find", &PyExactMatcher::find, "text"_a, "max_matches"_a = 0,
           "Every occurrence as a structured array with fields pattern (u4), strand (S1: b'+' or b'-'),\n"
           "start (u8), end (u8) ([start, end) byte offsets), in ascending (start, pattern) order.\n"
           "max_matches > 0 stops\n"
           "after that many.\n\n"
           ">>> warpmatch.ExactMatcher('ab').find(b'abab')['start'].tolist()\n[0, 2]")
      .def("find_file", &PyExactMatcher::find_file, "source"_a, "format"_a = "auto", "window_bytes"_a = 0,
           "Every occurrence in a file, streamed through the library's input layer in bounded\n"
           "memory: source is a path (plain, FASTA, FASTQ; gzip, BGZF or zstd inside) or a\n"
           "bytes-like object holding such a file. format: 'auto', 'plain', 'fasta' or 'fastq'.\n"
           "Returns a Hits array with fields record (u8), pattern, strand, start, end, offsets within the\n"
           "record; .records lists the record names (FASTA/FASTQ header's first word; '' for plain).\n"
           "window_bytes > 0 bounds the text searched per window (default: the input layer's).\n\n"
           ">>> h = warpmatch.ExactMatcher('GAT').find_file(b'>r1\\nGA\\nTT\\n>r2\\nGATGAT\\n')\n"
           ">>> [(h.records[r], s) for r, _, _, s, _ in h.tolist()]\n[('r1', 0), ('r2', 0), ('r2', 3)]")
      .def("find_many", &PyExactMatcher::find_many, "texts"_a,
           "Every occurrence in each of a sequence of texts (str or bytes-like), in one call: a\n"
           "structured array with fields text (u8, the text's index), pattern, strand, start, end,\n"
           "text by text, each text's as find gives them. Short texts (reads) are searched together\n"
           "(one scan per MiB), far faster than a loop of find calls.\n\n"
           ">>> warpmatch.ExactMatcher('ab').find_many([b'abab', b'', 'xab'])[['text', 'start']].tolist()\n"
           "[(0, 0), (0, 2), (2, 1)]")
      .def("count_many", &PyExactMatcher::count_many, "texts"_a,
           "count(text) for each of a sequence of texts, in one call, as a uint64 array.\n\n"
           ">>> warpmatch.ExactMatcher('aa').count_many(['aaaa', 'ba', 'aab']).tolist()\n[3, 0, 1]")
      .def_prop_ro("patterns", &PyExactMatcher::patterns, "The pattern (bytes), or the list of patterns as given.")
      .def_prop_ro(
          "overlap", [](const PyExactMatcher& self) { return self.longest() - 1; },
          "Bytes a window must repeat from the one before (the longest pattern's length - 1).")
      .def_prop_ro("pattern_count", &PyExactMatcher::pattern_count)
      .def_prop_ro("ignore_case", &PyExactMatcher::ignore_case)
      .def_prop_ro("strand", &PyExactMatcher::strand)
      .def_prop_ro("iupac", &PyExactMatcher::iupac)
      .def_prop_ro("backend", &PyExactMatcher::backend,
                   "The resolved backend, 'cpu' or 'cuda' (under backend 'auto': the last call's choice, 'cpu' before any).")
      .def_prop_ro("algorithm", &PyExactMatcher::algorithm, "The resolved algorithm name.")
      .def("__getstate__", &PyExactMatcher::state)
      .def("__setstate__",
           [](PyExactMatcher& self, const nb::tuple& s) {
             new (&self) PyExactMatcher(s[0], nb::cast<bool>(s[1]), nb::cast<std::string>(s[2]),
                                        nb::cast<int>(s[3]), nb::cast<int>(s[4]), nb::cast<std::string>(s[5]),
                                        nb::cast<bool>(s[6]), s[7]);
           })
      .def("__repr__", &PyExactMatcher::repr);

  nb::class_<PyApproxMatcher>(m, "ApproxMatcher", kApproxDoc)
      .def(nb::init<nb::handle, nb::object, bool, bool, bool, const std::string&, int, int, const std::string&, bool,
                    bool, nb::handle>(),
           "pattern_or_patterns"_a, "k"_a = nb::none(), "best"_a = false, "cigar"_a = false,
           "ignore_case"_a = false, "backend"_a = "auto", "threads"_a = 0, "device"_a = 0, "strand"_a = "+",
           "iupac"_a = false, "hamming"_a = false, "devices"_a.none() = nb::none())
      .def("find", &PyApproxMatcher::find, "text"_a,
           "Every hit as a structured array with fields pattern (u4), strand (S1), start (u8), end (u8),\n"
           "distance (u4); with cigar=True a Hits array whose .cigars holds the alignments.\n\n"
           ">>> warpmatch.ApproxMatcher('abc', k=0).find('xabcx').tolist()\n[(0, b'+', 1, 4, 0)]")
      .def("find_file", &PyApproxMatcher::find_file, "source"_a, "format"_a = "auto", "window_bytes"_a = 0,
           "Every hit in a file (a path or a bytes-like file content; plain, FASTA, FASTQ, gzip,\n"
           "BGZF, zstd), streamed in windows that overlap by m + k: a Hits array with fields record,\n"
           "pattern, strand, start, end, distance (record offsets; .records names the records). Best mode\n"
           "reads each record whole and picks the best hits per record.")
      .def("find_many", &PyApproxMatcher::find_many, "texts"_a,
           "Every hit in each of a sequence of texts (str or bytes-like), in one call: a structured\n"
           "array with fields text (u8, the text's index), pattern, strand, start, end, distance, text by\n"
           "text, each text's as find gives them (with cigar=True a Hits array with .cigars). Short texts\n"
           "(reads) are searched together, far faster than a loop of find calls.\n\n"
           ">>> warpmatch.ApproxMatcher('abc', k=0).find_many(['xabcx', 'ab', 'abc'])[['text', 'start']].tolist()\n"
           "[(0, 1), (2, 0)]")
      .def_prop_ro("patterns", &PyApproxMatcher::patterns)
      .def_prop_ro("pattern_count", &PyApproxMatcher::pattern_count)
      .def_prop_ro("k", &PyApproxMatcher::k)
      .def_prop_ro("best", &PyApproxMatcher::best)
      .def_prop_ro("cigar", &PyApproxMatcher::cigar)
      .def_prop_ro("strand", &PyApproxMatcher::strand)
      .def_prop_ro("iupac", &PyApproxMatcher::iupac)
      .def_prop_ro("hamming", &PyApproxMatcher::hamming)
      .def_prop_ro("backend", &PyApproxMatcher::backend,
                   "The resolved backend, 'cpu' or 'cuda' (under backend 'auto': the last call's choice, 'cpu' before any).")
      .def_prop_ro("algorithm", &PyApproxMatcher::algorithm)
      .def_prop_ro("overlap", &PyApproxMatcher::overlap,
                   "Bytes a window must repeat from the one before (max over patterns of m + k).")
      .def("__getstate__", &PyApproxMatcher::state)
      .def("__setstate__",
           [](PyApproxMatcher& self, const nb::tuple& s) {
             new (&self) PyApproxMatcher(s[0], nb::borrow(s[1]), nb::cast<bool>(s[2]), nb::cast<bool>(s[3]),
                                         nb::cast<bool>(s[4]), nb::cast<std::string>(s[5]), nb::cast<int>(s[6]),
                                         nb::cast<int>(s[7]), nb::cast<std::string>(s[8]), nb::cast<bool>(s[9]),
                                         nb::cast<bool>(s[10]), s[11]);
           })
      .def("__repr__", &PyApproxMatcher::repr);
}

}  // namespace warpmatch::python
