#include "file_selection.hpp"

#include <filesystem>
#include <system_error>
#include <utility>

namespace warpmatch::cli {

std::vector<std::string> FileSelectionFlags::inputs(std::vector<std::string> operands) const {
  if (operands.empty() && !recursive) operands.push_back("-");
  return operands;
}

bool FileSelectionFlags::show_input_names(bool with_filename, bool no_filename,
                                          const std::vector<std::string>& inputs) const {
  if (with_filename) return true;
  if (no_filename) return false;
  if (inputs.size() > 1) return true;
  if (!recursive) return false;
  std::error_code error;  // a FILE that is not there is no directory (opening it is the error)
  return inputs.empty() || (inputs.front() != "-" && std::filesystem::is_directory(inputs.front(), error));
}

void FileSelectionFlags::apply(SearchPlan& plan) const {
  plan.recursive = recursive;
  plan.no_messages = no_messages;
  if (plan.quiet) return;  // -q wins (grep): no names, exit 0 at the first hit
  plan.list_files = files_with_matches    ? ListFiles::with_matches
                    : files_without_match ? ListFiles::without_match
                                          : ListFiles::off;
  if (plan.list_files != ListFiles::off) plan.count = false;  // -l / -L win over -c (grep)
}

void add_file_selection_options(CLI::App* cmd, FileSelectionFlags& flags) {
  CLI::Option* with_matches = cmd->add_flag(
      "-l,--files-with-matches", flags.files_with_matches,
      "Print only the name of each input with a match, once (its reading stops at the first)");
  CLI::Option* without_match = cmd->add_flag(
      "-L,--files-without-match", flags.files_without_match,
      "Print only the name of each input without a match; the exit status stays 0 when any "
      "input matched, 1 when none did (GNU grep 3.5 and later)");
  with_matches->excludes(without_match);
  // Names are a format of their own: none of the hit formats goes with them.
  for (const char* format : {"--json", "--bed", "--tsv"}) {
    if (CLI::Option* other = cmd->get_option_no_throw(format)) {
      with_matches->excludes(other);
      without_match->excludes(other);
    }
  }
  cmd->add_flag("-r,--recursive", flags.recursive,
                "Search every regular file under a directory FILE, in name order (no FILE: the working "
                "directory); links inside directories are not followed");
  cmd->add_flag("-s,--no-messages", flags.no_messages,
                "No messages about inputs that cannot be opened or read (the exit status is still 2)");
}

const char* const kFileSelectionHelp =
    "Files (as grep): -r searches every regular file under a directory FILE (no FILE: the working\n"
    "directory's, named sub/file), depth first, each directory's entries sorted by name; a link\n"
    "given as FILE is followed, none inside a directory is; without -r a directory FILE is an\n"
    "error (\"DIR: is a directory\", exit 2, the other inputs still searched). -l prints the name\n"
    "of each input with a match, once, and stops reading it at its first match; -L prints the\n"
    "name of each input read to its end without a match (an input that failed is not listed).\n"
    "The exit status is the same with -L as without (GNU grep 3.5 and later): 0 some input\n"
    "matched, 1 none did, 2 an error. -q wins over -l and -L; -l and -L win over -c; -l and -L\n"
    "exclude each other and --json, --bed, --tsv (exit 2). -s hides the messages about inputs that\n"
    "cannot be opened or read (missing, unreadable, a directory, corrupt data); the exit status\n"
    "is still 2.\n";

}  // namespace warpmatch::cli
