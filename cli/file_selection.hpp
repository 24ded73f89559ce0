// grep's file flags, the same on find and approx: -l / -L list the inputs with / without a
// hit instead of the hits, -r searches the files under a directory, --include, --exclude and
// --exclude-dir choose files by name, -s hides the messages about inputs that cannot be
// read, -I skips binary files, -Z ends each printed name with a NUL byte, --label names
// standard input. add_file_selection_options() adds them with their
// exclusions; FileSelectionFlags resolves them into the searcher's plan. The searcher acts on
// them (cli/searcher.hpp), the walk of -r is cli/input_walk.hpp.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "searcher.hpp"

namespace warpmatch::cli {

struct FileSelectionFlags {
  bool files_with_matches = false;   // -l
  bool files_without_match = false;  // -L
  bool recursive = false;            // -r
  bool dereference_recursive = false;  // -R: -r following every link
  bool no_messages = false;          // -s
  bool null_after_name = false;      // -Z
  bool skip_binary = false;          // -I
  bool text = false;                 // -a: binary inputs' lines printed as text
  std::string label;                 // --label: standard input's name ("": grep's)
  /// --include, --exclude, --exclude-dir as given; their order on the command line (the last
  /// matching rule decides) is read back from the command's parse order.
  std::vector<std::string> include, exclude, exclude_dir;
  CLI::App* command = nullptr;
  const CLI::Option* include_option = nullptr;
  const CLI::Option* exclude_option = nullptr;

  /// The searcher's inputs for the FILE `operands`: as given; none: standard input ("-"), or
  /// with -r the working directory (no input: the walk's convention, InputWalk).
  std::vector<std::string> inputs(std::vector<std::string> operands) const;
  /// Whether each output line starts with its input's name (grep's rule): always with -H,
  /// never with -h, else with several inputs, or with -r when the one input is a directory
  /// (or none is given: the working directory).
  bool show_input_names(bool with_filename, bool no_filename, const std::vector<std::string>& inputs) const;
  /// The name rules in command-line order (NameFilter).
  NameFilter names() const;
  /// Sets the plan's recursive, names, no_messages, list_files and standard input's name
  /// (--label); call after the command has set
  /// quiet and count, which this resolves as grep does: -q wins over -l / -L (no output, -q's
  /// exit status), -l / -L win over -c.
  void apply(SearchPlan& plan) const;
};

/// Adds -l, -L, -r, -R, --include, --exclude, --exclude-dir, -I, -a, -s, -Z and --label to `cmd`. Call
/// after the command's output formats are added (--json, and --bed, --tsv of
/// add_sequence_options): -l and -L exclude them and each other (a usage error naming both
/// options, exit 2).
void add_file_selection_options(CLI::App* cmd, FileSelectionFlags& flags);

/// The --help paragraph on these flags and how they combine.
extern const char* const kFileSelectionHelp;

}  // namespace warpmatch::cli
