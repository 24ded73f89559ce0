// Short whole records searched as one text (see record_run.hpp).
#include "io/record_run.hpp"

#include <algorithm>
#include <array>

namespace warpmatch::io {

std::size_t RecordRun::length(std::span<const TextWindow> windows, std::uint64_t gap, std::uint64_t max_bytes,
                              std::uint64_t max_record) {
  std::size_t n = 0;
  for (std::uint64_t bytes = 0; n < windows.size() && windows[n].first && windows[n].last; ++n) {
    bytes += windows[n].data.size() + (n > 0 ? gap : 0);
    if (bytes > max_bytes || windows[n].data.size() > max_record) break;
  }
  return n;
}

RecordRun::RecordRun(std::span<const TextWindow> records, const RecordGap& gap, std::vector<std::uint8_t>& scratch)
    : records_(records), starts_(records.size()) {
  bool adjacent = gap.bytes == 0;
  for (std::size_t r = 1; r < records.size() && adjacent; ++r)
    adjacent = records[r - 1].data.data() + records[r - 1].data.size() == records[r].data.data();
  if (adjacent && !records.empty()) {
    const std::uint8_t* base = records.front().data.data();
    for (std::size_t r = 0; r < records.size(); ++r) starts_[r] = static_cast<std::uint64_t>(records[r].data.data() - base);
    text_ = ByteSpan(base, static_cast<std::size_t>(starts_.back() + records.back().data.size()));
    return;
  }
  scratch.clear();
  for (std::size_t r = 0; r < records.size(); ++r) {
    if (r > 0) scratch.insert(scratch.end(), gap.bytes, gap.byte);
    starts_[r] = scratch.size();
    scratch.insert(scratch.end(), records[r].data.begin(), records[r].data.end());
  }
  text_ = ByteSpan(scratch.data(), scratch.size());
}

std::optional<std::size_t> RecordRun::record_of(std::uint64_t start, std::uint64_t end, bool starts_reported) const {
  const std::uint64_t last = end > 0 ? end - 1 : start;
  const auto after = std::upper_bound(starts_.begin(), starts_.end(), last);
  if (after == starts_.begin()) return std::nullopt;  // inside nothing (cannot happen: starts_[0] is 0)
  const auto r = static_cast<std::size_t>(after - starts_.begin()) - 1;
  if (end > starts_[r] + records_[r].data.size()) return std::nullopt;  // into the gap after it
  if (starts_reported && start < starts_[r]) return std::nullopt;       // from the gap before it
  return r;
}

std::optional<RecordGap> approx_record_gap(std::span<const std::string_view> patterns, std::int64_t k) {
  std::array<bool, 256> used{};
  std::uint64_t edits = 0;
  for (std::string_view p : patterns) {
    for (unsigned char c : p) used[c] = true;
    edits = std::max<std::uint64_t>(edits, std::min<std::uint64_t>(p.size(), static_cast<std::uint64_t>(std::max<std::int64_t>(k, 0))));
  }
  for (int c = 1; c < 32; ++c)
    if (!used[c] && c != '\n' && c != '\r') return RecordGap{edits + 1, static_cast<std::uint8_t>(c)};
  return std::nullopt;
}

}  // namespace warpmatch::io
