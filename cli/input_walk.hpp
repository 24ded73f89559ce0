// The inputs of a search, one after the other (cli/searcher.hpp): the FILE operands as given
// and, with -r (grep -r), every regular file under a directory operand. The walk is depth
// first with each directory's entries sorted by name (byte order), so a tree prints in the
// same order on every run and file system. As grep -r: a symbolic link met inside a directory
// is not followed (neither to a file nor to a directory), while an operand that is a link is;
// other files inside directories (FIFOs, sockets, devices) are skipped. A directory is read
// when the walk reaches it, so the first file is searched before the rest of the tree is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/input.hpp"

namespace warpmatch::cli {

/// grep's --include, --exclude and --exclude-dir: the files and directories a search takes,
/// by name. GLOBs are fnmatch patterns (*, ?, [...], \ quoting; '*' also matches '/'). A FILE
/// operand matches when its whole name or a part after one of its '/' does (grep's "name
/// suffix": --exclude=x.c skips a/b/x.c); what -r meets inside a directory matches by its
/// own name alone. Of the --include and --exclude rules that match a file the last one given
/// decides; when none matches, the file is taken unless the first rule is an --include.
/// --exclude-dir skips the directories that match (an operand too; not the working directory
/// of a bare -r). Standard input is always taken.
class NameFilter {
 public:
  void include(std::string glob) { file_rules_.push_back({true, std::move(glob)}); }
  void exclude(std::string glob) { file_rules_.push_back({false, std::move(glob)}); }
  void exclude_directory(std::string glob);
  /// `name`: an operand's path as given (`operand`), else a directory entry's own name.
  bool takes_file(std::string_view name, bool operand) const;
  bool takes_directory(std::string_view name, bool operand) const;

 private:
  struct Rule {
    bool include;
    std::string glob;
  };
  std::vector<Rule> file_rules_;  // in command-line order
  std::vector<std::string> directory_globs_;
};

/// -R meets a link to a directory that holds it (its own path back to an operand): "PATH:
/// warning: recursive directory loop", not followed. A warning, as grep's: the exit status
/// stays, -s hides it.
class WalkLoop : public io::InputError {
 public:
  using io::InputError::InputError;
};

class InputWalk {
 public:
  /// `operands`: the FILE arguments ("-" is standard input). Without `recursive` they are the
  /// inputs, a directory included (opening it is the searcher's error). With `recursive` a
  /// directory operand stands for its files, named operand/sub/file; no operand at all stands
  /// for the working directory, whose files are named sub/file (grep -r names them so, not
  /// ./sub/file).
  /// `listing_threads` > 0: that many threads of its own list the subdirectories of each
  /// directory entered ahead of the walk (a directory of /usr/include costs about as much to
  /// list as its files cost to search: cli/file_jobs.hpp searches them on all threads).
  /// `names`: which files and directories are taken (--include, --exclude, --exclude-dir).
  /// `follow_links` (-R, grep -R): links inside directories are followed too, to files and to
  /// directories, but not to a directory on the walk's own path (WalkLoop); a link to
  /// nothing is given as an input (opening it reports it).
  InputWalk(std::vector<std::string> operands, bool recursive, int listing_threads = 0, NameFilter names = {},
            bool follow_links = false);
  ~InputWalk();
  InputWalk(const InputWalk&) = delete;
  InputWalk& operator=(const InputWalk&) = delete;

  /// The next input to open, or nullopt once the walk is done. A directory of the walk that
  /// cannot be read throws io::InputError naming it ("logs/old: Permission denied"), a loop
  /// of -R WalkLoop; the next call goes on with what follows it.
  std::optional<std::string> next();
  /// The last input next() gave is a regular file of a directory (by its listing), not an
  /// operand: opening it reads no FIFO nor device.
  bool last_is_regular() const { return last_is_regular_; }

 private:
  /// An entry of a directory: its name and what it is, the link itself for a link (the
  /// listing's own type where the file system gives one, so no stat per file).
  struct Entry {
    std::string name;
    std::filesystem::file_type type = std::filesystem::file_type::none;
  };
  /// A directory being walked: its entries sorted by name and the next one to visit.
  /// A directory's identity (-R's loops: device and inode).
  struct DirectoryId {
    std::uint64_t device, inode;  // (no initializers: `{}` is zero, also as a default argument)
    friend bool operator==(const DirectoryId&, const DirectoryId&) = default;
  };
  struct Directory {
    std::string path;  // as printed: "" is the working directory
    std::vector<Entry> entries;
    std::size_t next = 0;
    DirectoryId id{};  // with follow_links_ only
  };
  /// Reads `path`'s entries and pushes it on the walk (throws io::InputError when unreadable).
  void enter(const std::string& path, DirectoryId id = {});
  /// -R: `path`'s identity (following links); nullopt where it cannot be stat'ed.
  static std::optional<DirectoryId> directory_id(const std::string& path);
  /// -R: whether a directory of this identity is on the walk's path already.
  bool on_path(const DirectoryId& id) const;
  /// `path`'s entries sorted by name (throws io::InputError naming it when unreadable).
  static std::vector<Entry> list(const std::string& path);
  class Prefetch;  // the listing threads (input_walk.cpp)

  std::vector<std::string> operands_;
  std::size_t next_operand_ = 0;
  bool recursive_;
  NameFilter names_;
  bool follow_links_ = false;
  std::vector<Directory> open_directories_;  // the current path of the walk, outermost first
  bool last_is_regular_ = false;
  std::unique_ptr<Prefetch> prefetch_;
};

}  // namespace warpmatch::cli
