#include "file_selection.hpp"

#include <filesystem>
#include <system_error>
#include <utility>

namespace warpmatch::cli {

std::vector<std::string> FileSelectionFlags::inputs(std::vector<std::string> operands) const {
  if (operands.empty() && !recursive && !dereference_recursive) operands.push_back("-");
  return operands;
}

bool FileSelectionFlags::show_input_names(bool with_filename, bool no_filename,
                                          const std::vector<std::string>& inputs) const {
  if (with_filename) return true;
  if (no_filename) return false;
  if (inputs.size() > 1) return true;
  if (!recursive && !dereference_recursive) return false;
  std::error_code error;  // a FILE that is not there is no directory (opening it is the error)
  return inputs.empty() || (inputs.front() != "-" && std::filesystem::is_directory(inputs.front(), error));
}

NameFilter FileSelectionFlags::names() const {
  NameFilter filter;
  for (const std::string& glob : exclude_dir) filter.exclude_directory(glob);
  // One entry of the parse order per value taken (each occurrence takes one); `command` is
  // set by add_file_selection_options.
  std::size_t next_include = 0, next_exclude = 0;
  for (const CLI::Option* option : command->parse_order()) {
    if (option == include_option && next_include < include.size()) filter.include(include[next_include++]);
    else if (option == exclude_option && next_exclude < exclude.size()) filter.exclude(exclude[next_exclude++]);
  }
  return filter;
}

void FileSelectionFlags::apply(SearchPlan& plan) const {
  plan.recursive = recursive || dereference_recursive;
  plan.follow_links = dereference_recursive;
  plan.names = names();
  plan.skip_binary = skip_binary;
  plan.hide_binary_lines = !text;  // where lines are printed (the commands' line flags decide)
  plan.stream.stdin_name = label;
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
  cmd->add_flag("-R,--dereference-recursive", flags.dereference_recursive,
                "As -r, following every link, to files and to directories (not into a directory loop)");
  flags.command = cmd;
  flags.include_option =
      cmd->add_option("--include", flags.include,
                      "Search only the files whose name matches GLOB (repeatable; see Files below)")
          ->type_name("GLOB")
          ->allow_extra_args(false);
  flags.exclude_option = cmd->add_option("--exclude", flags.exclude, "Skip the files whose name matches GLOB (repeatable)")
                             ->type_name("GLOB")
                             ->allow_extra_args(false);
  cmd->add_option("--exclude-dir", flags.exclude_dir, "With -r, skip the directories whose name matches GLOB (repeatable)")
      ->type_name("GLOB")
      ->allow_extra_args(false);
  cmd->add_flag("-I", flags.skip_binary,
                "Take a binary input (one holding a NUL byte) as one without a match (grep -I)");
  cmd->add_flag("-a,--text", flags.text, "Print the lines of binary inputs as text (grep -a)");
  cmd->add_flag("-s,--no-messages", flags.no_messages,
                "No messages about inputs that cannot be opened or read (the exit status is still 2)");
  cmd->add_flag("-Z,--null", flags.null_after_name,
                "End each printed input name with a NUL byte instead of ':', '-' or a line break (grep -Z)");
  cmd->add_option("--label", flags.label, "The name standard input goes by (default \"(standard input)\")")
      ->type_name("NAME");
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
    "is still 2. -R is -r following the links inside directories too, to files and directories,\n"
    "as grep -R: a link to a directory on its own path is not followed (\"PATH: warning:\n"
    "recursive directory loop\" on stderr, hidden by -s; the exit status stays), a link to\n"
    "nothing is an error for it (exit 2).\n"
    "--include=GLOB, --exclude=GLOB and --exclude-dir=GLOB (each repeatable) choose files by name\n"
    "as grep does: a GLOB is a shell pattern (*, ?, [...], \\ quotes; '*' matches '/' too); a\n"
    "file met by -r matches by its own name, a FILE operand by its whole name or the part after\n"
    "any of its '/' (--exclude=x.c skips src/x.c). Of the --include and --exclude rules matching\n"
    "a file the last given decides; a file no rule matches is searched unless the first rule is\n"
    "an --include. --exclude-dir skips the directories it matches, a directory operand of -r\n"
    "too. Standard input is always searched. -Z (--null) ends each printed name with a NUL\n"
    "byte instead of ':' or '-' (and -l / -L's line break), for xargs -0; --label=NAME names\n"
    "standard input in output and messages. -I takes a plain input holding a NUL byte (after\n"
    "decompression) as binary, as grep -I: its search stops at the window holding the NUL, whose\n"
    "hits are not reported (a regular file up to 1 GiB is one window: none are), and -c and -L\n"
    "count it as without a match (-l and -q may have stopped at a hit before it). Without -I,\n"
    "where lines are printed (--lines, -n, -v, context; not --json), such an input prints\n"
    "\"warpmatch: NAME: binary file matches\" on stderr in place of its lines, as grep 3.5 and\n"
    "later (exit 0; a regular file up to 1 GiB is one window, hidden whole; a stream's windows\n"
    "before the NUL's print their lines); -a (--text) prints them as text.\n";

}  // namespace warpmatch::cli
