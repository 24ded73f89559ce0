// `warpmatch offtarget`: CRISPR off-target sites of guides in a genome (issue 14), as
// Cas-OFFinder defines them: the PAM (IUPAC) matches exactly next to the protospacer, which
// has at most --mismatches substitutions against the guide and, optionally, one DNA bulge
// (extra genome bases) or RNA bulge (guide bases without a partner) of up to B bases. Both
// strands always. Every bulge placement is a pattern of its own (a DNA bulge as N's inserted
// in the guide, an RNA bulge as guide bases removed), all searched in one Hamming pass with
// IUPAC codes (ApproxMatcher, CPU or GPU); hits whose PAM does not match are dropped and a
// site found through several placements is reported once, with its fewest mismatches.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "commands.hpp"
#include "core/nucleotide.hpp"
#include "io/input.hpp"
#include "job_estimate.hpp"
#include "printer/sink.hpp"
#include "searcher.hpp"
#include "warpmatch/approx.hpp"

namespace warpmatch::cli {
namespace {

struct OfftargetFlags {
  std::string genome;
  std::string guides_file;
  std::vector<std::string> guides_e;
  std::string pam = "NGG";
  int pam_side = 3;
  int mismatches = 3;
  int dna_bulges = 0;
  int rna_bulges = 0;
  bool bed = false;
  bool json = false;
  bool stats = false;
  std::string backend = "auto";
  int threads = 0;
  int device = 0;
  std::string device_memory;  // --device-memory SIZE ("": none given)
  std::string devices;  // --devices: several GPUs (all|LIST)
  std::string window = "256M";
  bool no_progress = false;
};

struct Guide {
  std::string name;
  std::string sequence;  // uppercase
};

/// One searched pattern: a guide with one bulge placement, and the PAM on its side.
struct Placement {
  std::uint32_t guide = 0;
  char type = 'X';          // 'X' none, 'D' DNA bulge, 'R' RNA bulge
  std::uint32_t size = 0;   // bulge bases
  std::uint32_t at = 0;     // guide position before which the bulge sits
  std::string protospacer;  // the guide with N's inserted (DNA bulge) or bases removed (RNA bulge)
  std::string pattern;      // protospacer and PAM in genome order
  std::uint32_t pam_offset = 0;  // where the PAM starts in `pattern`
  std::string removed;           // RNA bulge: the guide bases without a partner
};

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::vector<Guide> load_guides(const OfftargetFlags& flags) {
  std::vector<Guide> guides;
  for (std::size_t i = 0; i < flags.guides_e.size(); ++i) guides.push_back({flags.guides_e[i], upper(flags.guides_e[i])});
  if (!flags.guides_file.empty()) {
    const io::Input in = io::Input::open(flags.guides_file);
    if (in.format() != io::Format::plain) {
      for (const auto& r : in.records()) guides.push_back({std::string(r.name), upper(std::string(r.sequence.begin(), r.sequence.end()))});
    } else {
      const ByteSpan all = in.bytes();
      std::string line;
      for (std::size_t i = 0; i <= all.size(); ++i) {
        if (i == all.size() || all[i] == '\n') {
          while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
          if (!line.empty()) guides.push_back({line, upper(line)});
          line.clear();
        } else {
          line.push_back(static_cast<char>(all[i]));
        }
      }
    }
  }
  return guides;
}

std::vector<Placement> placements(const std::vector<Guide>& guides, const OfftargetFlags& flags) {
  std::vector<Placement> out;
  const std::string pam = upper(flags.pam);
  auto add = [&](std::uint32_t g, char type, std::uint32_t size, std::uint32_t at, std::string protospacer,
                 std::string removed = {}) {
    Placement p;
    p.removed = std::move(removed);
    p.guide = g;
    p.type = type;
    p.size = size;
    p.at = at;
    p.pattern = flags.pam_side == 3 ? protospacer + pam : pam + protospacer;
    p.pam_offset = flags.pam_side == 3 ? static_cast<std::uint32_t>(protospacer.size()) : 0;
    p.protospacer = std::move(protospacer);
    out.push_back(std::move(p));
  };
  for (std::uint32_t g = 0; g < guides.size(); ++g) {
    const std::string& s = guides[g].sequence;
    add(g, 'X', 0, 0, s);
    // Bulges inside the protospacer, never at its ends (Cas-OFFinder's placements).
    for (std::uint32_t b = 1; b <= static_cast<std::uint32_t>(flags.dna_bulges); ++b)
      for (std::uint32_t at = 1; at < s.size(); ++at) add(g, 'D', b, at, s.substr(0, at) + std::string(b, 'N') + s.substr(at));
    for (std::uint32_t b = 1; b <= static_cast<std::uint32_t>(flags.rna_bulges); ++b)
      for (std::uint32_t at = 1; at + b < s.size(); ++at) add(g, 'R', b, at, s.substr(0, at) + s.substr(at + b), s.substr(at, b));
  }
  return out;
}

/// A site as reported: which guide, where, how.
struct Site {
  std::uint32_t guide = 0;
  std::uint64_t start = 0, end = 0;
  char strand = '+';
  char type = 'X';
  std::uint32_t size = 0;
  std::uint32_t mismatches = 0;
  std::string crrna, dna;  // the alignment: guide (with '-' for DNA bulge bases) and site
  auto key() const { return std::tie(start, end, guide, strand, type, size); }
};

/// The site's alignment, read on its strand: the guide and PAM over the site's bases, bulges
/// as '-', bases that differ from the guide in lowercase. Returns false when the PAM does
/// not match exactly. `oriented` is the site's text as read on its strand (pattern order).
bool describe(const Placement& p, const std::string& oriented, const std::string& pam, Site& site) {
  const std::size_t pam_len = pam.size();
  for (std::size_t i = 0; i < pam_len; ++i)
    if (!core::iupac_match(static_cast<std::uint8_t>(std::tolower(pam[i])),
                           static_cast<std::uint8_t>(std::tolower(oriented[p.pam_offset + i])), true))
      return false;
  const std::size_t proto_offset = p.pam_offset == 0 ? pam_len : 0;
  std::string dna, crrna;
  std::uint32_t mismatches = 0;
  const std::string& guide_bases = p.protospacer;
  for (std::size_t i = 0; i < guide_bases.size(); ++i) {
    const char t = static_cast<char>(std::toupper(static_cast<unsigned char>(oriented[proto_offset + i])));
    const bool bulge = p.type == 'D' && i >= p.at && i < p.at + p.size;
    if (bulge) {
      crrna.push_back('-');
      dna.push_back(t);
      continue;
    }
    if (p.type == 'R' && i == p.at) {  // the guide's unpaired bases: '-' in the DNA
      crrna += p.removed;
      dna += std::string(p.size, '-');
    }
    const bool same = core::iupac_match(static_cast<std::uint8_t>(guide_bases[i]), static_cast<std::uint8_t>(t), false);
    if (!same) ++mismatches;
    crrna.push_back(guide_bases[i]);
    dna.push_back(same ? t : static_cast<char>(std::tolower(static_cast<unsigned char>(t))));
  }
  site.mismatches = mismatches;
  site.crrna = crrna;
  site.dna = dna;
  const std::string pam_text = oriented.substr(p.pam_offset, pam_len);
  if (p.pam_offset == 0) {
    site.crrna = pam + site.crrna;
    site.dna = upper(pam_text) + site.dna;
  } else {
    site.crrna += pam;
    site.dna += upper(pam_text);
  }
  return true;
}

/// The placements' matcher behind the searcher: a text's hits whose PAM matches, one site per
/// (position, guide, strand, bulge) with its fewest mismatches, in that order.
class SiteScanner : public WindowScanner {
 public:
  SiteScanner(const ApproxMatcher& matcher, const std::vector<Placement>& placements, const std::string& pam)
      : matcher_(matcher), placements_(placements), pam_(pam) {}

  void scan(ByteSpan text, const Emit& emit, ScanProgress* progress) const override {
    std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint32_t, char, char, std::uint32_t>, Site> found;
    matcher_.scan(text, [&](const ApproxMatch& hit) {
      const Placement& p = placements_[hit.pattern];
      std::string oriented(reinterpret_cast<const char*>(text.data()) + hit.start, hit.end - hit.start);
      if (hit.strand == '-') {
        std::reverse(oriented.begin(), oriented.end());
        for (auto& c : oriented)
          if (const std::uint8_t rc = core::complement(static_cast<std::uint8_t>(c))) c = static_cast<char>(rc);
      }
      Site site{p.guide, hit.start, hit.end, hit.strand, p.type, p.size, 0, {}, {}};
      if (!describe(p, oriented, pam_, site)) return true;
      auto [it, inserted] = found.try_emplace(site.key(), site);
      if (!inserted && site.mismatches < it->second.mismatches) it->second = site;
      return true;
    }, nullptr, progress);
    for (const auto& [key, s] : found) {
      const SiteAlignment alignment{s.type == 'X' ? "X" : s.type == 'D' ? "DNA" : "RNA", s.size, s.crrna, s.dna};
      Hit hit = local_hit(s.guide, s.start, s.end, s.strand);
      hit.distance = s.mismatches;
      hit.site = &alignment;
      if (!emit(hit)) return;
    }
  }

 private:
  const ApproxMatcher& matcher_;
  const std::vector<Placement>& placements_;
  const std::string& pam_;
};

int run_offtarget(const OfftargetFlags& flags) {
  std::vector<Guide> guides;
  try {
    guides = load_guides(flags);
  } catch (const Error& e) {
    std::fprintf(stderr, "warpmatch: %s\n", e.what());
    return 2;
  }
  if (guides.empty()) {
    std::fprintf(stderr, "warpmatch: offtarget: no guides (give -g GUIDE or --guides FILE)\n");
    return 2;
  }
  const std::string pam = upper(flags.pam);
  for (const char c : pam)
    if (!is_nucleotide_code(static_cast<std::uint8_t>(c))) {
      std::fprintf(stderr, "warpmatch: --pam: '%c' is not a nucleotide or IUPAC code\n", c);
      return 2;
    }
  if ((flags.dna_bulges > 0 || flags.rna_bulges > 0) && pam.empty()) {
    std::fprintf(stderr, "warpmatch: bulges need a PAM to anchor the site (--pam, --pam-side)\n");
    return 2;
  }
  for (const Guide& g : guides) {
    for (const char c : g.sequence)
      if (!is_nucleotide_code(static_cast<std::uint8_t>(c))) {
        std::fprintf(stderr, "warpmatch: guide '%s': '%c' is not a nucleotide or IUPAC code\n", g.name.c_str(), c);
        return 2;
      }
    if (g.sequence.size() < pam.size()) {
      std::fprintf(stderr, "warpmatch: the PAM (%zu bases) is longer than guide '%s' (%zu)\n", pam.size(),
                   g.name.c_str(), g.sequence.size());
      return 2;
    }
    if (g.sequence.size() <= static_cast<std::size_t>(flags.rna_bulges) + 1) {
      std::fprintf(stderr, "warpmatch: guide '%s' is too short for RNA bulges of %d bases\n", g.name.c_str(),
                   flags.rna_bulges);
      return 2;
    }
  }
  const std::vector<Placement> searched = placements(guides, flags);
  std::vector<std::vector<std::uint8_t>> patterns;
  std::uint64_t longest = 0;
  for (const auto& p : searched) {
    patterns.emplace_back(p.pattern.begin(), p.pattern.end());
    longest = std::max<std::uint64_t>(longest, p.pattern.size());
  }
  JobShape shape;
  shape.operation = Operation::approx;
  shape.patterns = patterns.size();
  shape.pattern_length = longest;
  shape.threads = flags.threads;
  const BackendChoice choice = resolve_backend_for(flags.backend, {flags.genome}, shape);
  ApproxOptions options;
  options.backend = choice.backend;
  options.k = flags.mismatches;
  options.hamming = true;
  options.iupac = true;
  options.case_insensitive = true;  // soft-masked (lowercase) genome bases count
  options.strand = Strand::both;
  apply_execution_flags(flags, options);
  const ApproxMatcher matcher = ApproxMatcher::compile(patterns, options);

  SearchPlan plan;
  plan.inputs = {flags.genome};
  plan.stream.threads = flags.threads;
  // A window owns the sites starting in it (every site of a start is inside the window, whose
  // overlap is the longest site less one): sites come out in (start, end, guide, ...) order
  // whatever the windows, as one window over the whole record gives them. (Owning ends would
  // put a longer site, a DNA bulge's, starting before the window's last sites but ending
  // after them, into the next window.)
  plan.stream.overlap = longest - 1;
  plan.stream.window_bytes = std::max<std::uint64_t>(parse_size(flags.window), 1);
  plan.owns = Ownership::starts;
  plan.pattern_count = guides.size();
  plan.progress = !flags.no_progress;
  plan.work_per_byte = patterns.size();
  plan.scan_progress = true;
  PrintOptions print;
  for (const Guide& g : guides) print.labels.names.push_back(g.name);
  const std::unique_ptr<Sink> printer = make_printer(
      flags.bed ? PrintFormat::bed : flags.json ? PrintFormat::site_json : PrintFormat::site_tsv, std::move(print));
  Searcher searcher(std::move(plan), *printer);
  const int status = searcher.run(SiteScanner(matcher, searched, pam));
  if (flags.stats)
    std::fprintf(stderr,
                 "warpmatch stats: %zu guides, %zu patterns searched (bulge placements), %llu bytes, %llu sites, "
                 "backend %s, device %s; backend choice: %s\n",
                 guides.size(), searched.size(), static_cast<unsigned long long>(searcher.totals().bytes),
                 static_cast<unsigned long long>(searcher.totals().matches),
                 std::string(backend_name(matcher.backend())).c_str(), matcher.device_label().c_str(),
                 choice.reason.c_str());
  return status;
}

CommandRunner add_offtarget_command(CLI::App& app) {
  auto flags = std::make_shared<OfftargetFlags>();
  CLI::App* cmd = app.add_subcommand("offtarget", "CRISPR off-target sites of guides: PAM, mismatches, bulges");
  cmd->set_help_flag("--help", "Print this help and exit");
  cmd->add_option("GENOME", flags->genome, "The genome: FASTA (gzip, BGZF, zstd) or plain; '-' = stdin")->required();
  cmd->add_option("-g,--guide", flags->guides_e, "A guide (protospacer without PAM), repeatable");
  cmd->add_option("--guides", flags->guides_file, "Guides: FASTA (names kept) or one per line");
  cmd->add_option("--pam", flags->pam, "The PAM in IUPAC codes (default NGG, SpCas9)");
  cmd->add_option("--pam-side", flags->pam_side, "3: PAM after the protospacer (Cas9); 5: before it (Cas12a)")
      ->check(CLI::IsMember({3, 5}));
  cmd->add_option("-k,--mismatches", flags->mismatches, "Most substitutions in the protospacer (default 3)")
      ->check(integer_in(0, 64));
  cmd->add_option("--dna-bulges", flags->dna_bulges, "Largest DNA bulge (extra genome bases; 0 = none)")
      ->check(integer_in(0, 8));
  cmd->add_option("--rna-bulges", flags->rna_bulges, "Largest RNA bulge (unpaired guide bases; 0 = none)")
      ->check(integer_in(0, 8));
  CLI::Option* bed = cmd->add_flag("--bed", flags->bed, "BED6 rows: record, start, end, guide, mismatches, strand");
  CLI::Option* json = cmd->add_flag("--json", flags->json, "One JSON object per site");
  bed->excludes(json);
  cmd->add_flag("--stats", flags->stats, "Print guides, placements, bytes, sites and backend to stderr");
  add_backend_options(cmd, flags->backend, flags->threads, flags->device, flags->device_memory);
  add_devices_option(cmd, flags->devices);
  cmd->add_option("--window", flags->window, "Genome bytes searched per window (default 256M)")->check(size_check());
  cmd->add_flag("--no-progress", flags->no_progress, "Never draw the progress line (drawn on a terminal for long scans)");
  cmd->footer(
      "Output (TSV, Cas-OFFinder-like, with a header): guide, bulge_type (X none, DNA, RNA), crRNA and DNA\n"
      "(the alignment read on the site's strand: '-' for bulge bases, lowercase for mismatches), record,\n"
      "start, end (0-based, end exclusive, forward strand), strand, mismatches, bulge_size. Both strands\n"
      "are always searched; the PAM must match exactly (IUPAC), lowercase genome bases count. A site is\n"
      "reported once per guide, strand and bulge (type, size), with its fewest mismatches; each bulge\n"
      "placement inside the protospacer is tried (a site may appear with and without a bulge).\n"
      "Exit status: 0 sites found, 1 none, 2 error.\n"
      "Examples:\n"
      "  warpmatch offtarget -g GAGTCCGAGCAGAAGAAGAA -k 4 hg38.fa.gz\n"
      "  warpmatch offtarget --guides guides.fa -k 3 --dna-bulges 1 --rna-bulges 1 genome.fa\n"
      "  warpmatch offtarget --guides cas12a.txt --pam TTTV --pam-side 5 -k 2 --bed genome.fa");
  return [flags] { return run_offtarget(*flags); };
}

}  // namespace

const CommandRegistration offtarget_registration("offtarget", 25, add_offtarget_command);

}  // namespace warpmatch::cli
