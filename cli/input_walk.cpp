#include "input_walk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "io/input.hpp"

namespace warpmatch::cli {
namespace fs = std::filesystem;

namespace {

/// `name` inside `directory` as grep prints it: "dir/name" ("dir/" gives "dir/name" too),
/// plain "name" inside the working directory ("").
std::string child_path(const std::string& directory, const std::string& name) {
  if (directory.empty()) return name;
  return directory.back() == '/' ? directory + name : directory + "/" + name;
}

}  // namespace

InputWalk::InputWalk(std::vector<std::string> operands, bool recursive)
    : operands_(std::move(operands)), recursive_(recursive) {
  if (recursive_ && operands_.empty()) enter("");  // grep -r without FILE: the working directory
}

void InputWalk::enter(const std::string& path) {
  // opendir/readdir rather than std::filesystem's iterator: it builds and parses a path per
  // entry, 1.4 us a file of /usr/include on the development machine, on the searcher's own
  // thread, which also hands on every file's output (cli/file_jobs.hpp).
  const std::string shown = path.empty() ? "." : path;
  DIR* dir = ::opendir(shown.c_str());
  if (!dir) throw io::InputError(shown + ": " + std::strerror(errno));
  Directory directory{path, {}, 0};
  int error = 0;
  for (;;) {
    errno = 0;
    const dirent* e = ::readdir(dir);
    if (!e) {
      error = errno;
      break;
    }
    const std::string_view name(e->d_name);
    if (name == "." || name == "..") continue;
    // The type the listing gave (d_type): a stat only where the file system gives none. An
    // entry gone since is reported when it is opened.
    fs::file_type type = fs::file_type::unknown;
    unsigned char d_type = e->d_type;
    if (d_type == DT_UNKNOWN) {
      struct stat st {};
      if (::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        d_type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
    }
    if (d_type == DT_LNK) type = fs::file_type::symlink;
    else if (d_type == DT_DIR) type = fs::file_type::directory;
    else if (d_type == DT_REG) type = fs::file_type::regular;
    directory.entries.push_back({std::string(name), type});
  }
  ::closedir(dir);
  if (error != 0) throw io::InputError(shown + ": " + std::strerror(error));
  std::sort(directory.entries.begin(), directory.entries.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  open_directories_.push_back(std::move(directory));
}

std::optional<std::string> InputWalk::next() {
  last_is_regular_ = false;
  for (;;) {
    if (open_directories_.empty()) {
      if (next_operand_ == operands_.size()) return std::nullopt;
      std::string operand = operands_[next_operand_++];
      std::error_code error;
      if (recursive_ && operand != "-" && fs::is_directory(operand, error)) {  // follows an operand's link
        enter(operand);
        continue;
      }
      return operand;  // a file, stdin, or what opening it will report (missing; a directory without -r)
    }
    Directory& directory = open_directories_.back();
    if (directory.next == directory.entries.size()) {
      open_directories_.pop_back();
      continue;
    }
    const Entry& entry = directory.entries[directory.next++];
    std::string path = child_path(directory.path, entry.name);
    if (entry.type == fs::file_type::directory) enter(path);
    else if (entry.type == fs::file_type::regular) {
      last_is_regular_ = true;
      return path;
    }
    // Links, FIFOs, sockets and devices inside a directory are not searched.
  }
}

}  // namespace warpmatch::cli
