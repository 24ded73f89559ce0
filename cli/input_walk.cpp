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
  for (; !error && entries != fs::directory_iterator(); entries.increment(error))
    directory.names.push_back(entries->path().filename().string());
  if (error) throw io::InputError((path.empty() ? "." : path) + ": " + error.message());
  std::sort(directory.names.begin(), directory.names.end());
  open_directories_.push_back(std::move(directory));
}

std::optional<std::string> InputWalk::next() {
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
    if (directory.next == directory.names.size()) {
      open_directories_.pop_back();
      continue;
    }
    std::string path = child_path(directory.path, directory.names[directory.next++]);
    std::error_code error;
    const fs::file_status status = fs::symlink_status(path, error);  // a link as itself, not followed
    if (error) throw io::InputError(path + ": " + error.message());  // gone since the listing
    if (fs::is_directory(status)) enter(path);
    else if (fs::is_regular_file(status)) return path;
    // Links, FIFOs, sockets and devices inside a directory are not searched.
  }
}

}  // namespace warpmatch::cli
