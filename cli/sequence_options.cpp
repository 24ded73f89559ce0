#include "sequence_options.hpp"

#include <algorithm>

namespace warpmatch::cli {

void add_sequence_options(CLI::App* cmd, SequenceFlags& flags, CLI::Option* json) {
  cmd->add_option("--strand", flags.strand,
                  "+ (default), - or both: also search the reverse complement; '-' hits keep forward "
                  "coordinates (start < end)")
      ->check(CLI::IsMember({"+", "-", "both"}));
  cmd->add_flag("--iupac", flags.iupac,
                "IUPAC codes in patterns (N R Y S W K M B D H V) match their bases; a text N only a "
                "pattern N; with -i soft-masked (lowercase) bases too");
  cmd->add_flag("--circular", flags.circular,
                "Records are circular: hits across the end->start junction are reported once, with "
                "END > record length");
  CLI::Option* bed = cmd->add_flag("--bed", flags.bed, "BED6 rows: record, start, end, name, score, strand");
  CLI::Option* tsv = cmd->add_flag("--tsv", flags.tsv,
                                   "seqkit locate's TSV with a header: seqID, patternName, pattern, strand, "
                                   "start, end, matched");
  bed->excludes(tsv);
  if (json) {
    bed->excludes(json);
    tsv->excludes(json);
  }
}

const char* const kSequenceHelp =
    "Sequence search: --strand both also searches each pattern's reverse complement (patterns must\n"
    "then be nucleotides or IUPAC codes); --iupac lets degenerate codes match their bases.\n"
    "Coordinates: plain and JSON START/END are 0-based, END exclusive; BED is 0-based half-open;\n"
    "TSV (seqkit locate) is 1-based with END inclusive. All are on the forward strand (start <\n"
    "end, also for '-' hits); with --circular a hit across the junction has END > record length.\n"
    "BED name / TSV patternName: the record name of a FASTA pattern file, else the pattern's index;\n"
    "BED score: the distance (0 for exact search). Plain text inputs are one record named after\n"
    "the input.\n";

bool CircularJunction::add(const io::TextWindow& w) {
  if (w.first) head_.clear();
  // The record's first reach_ bytes, from as many windows as they span.
  if (head_.size() < reach_ && w.offset <= head_.size()) {
    const std::uint64_t from = head_.size() - w.offset;
    const std::uint64_t take = std::min<std::uint64_t>(reach_ - head_.size(), w.data.size() > from ? w.data.size() - from : 0);
    head_.insert(head_.end(), w.data.begin() + from, w.data.begin() + from + take);
  }
  if (!w.last) return false;
  length_ = w.offset + w.data.size();
  if (length_ == 0) return false;
  // The last window holds at least min(length, overlap) bytes, and reach_ <= overlap.
  tail_ = std::min<std::uint64_t>({length_, reach_, w.data.size()});
  junction_.assign(w.data.end() - tail_, w.data.end());
  for (std::uint64_t i = 0; i < reach_; ++i) junction_.push_back(head_[i % head_.size()]);
  return true;
}

}  // namespace warpmatch::cli
