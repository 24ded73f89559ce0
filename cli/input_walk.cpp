#include "input_walk.hpp"

#include <algorithm>
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
  Directory directory{path, {}, 0};
  std::error_code error;
  fs::directory_iterator entries(path.empty() ? fs::path(".") : fs::path(path), error);
  for (; !error && entries != fs::directory_iterator(); entries.increment(error)) {
    // The type the listing gave (d_type): a stat only where the file system gives none. An
    // entry gone since is reported when it is opened.
    std::error_code type_error;
    const fs::file_type type = entries->is_symlink(type_error) ? fs::file_type::symlink
                               : entries->is_directory(type_error) ? fs::file_type::directory
                               : entries->is_regular_file(type_error) ? fs::file_type::regular
                                                                       : fs::file_type::unknown;
    directory.entries.push_back({entries->path().filename().string(), type});
  }
  if (error) throw io::InputError((path.empty() ? "." : path) + ": " + error.message());
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
