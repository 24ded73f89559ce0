// One JSON object on one line, written field by field into a printer's buffer: every JSON
// line the command line prints ({"type":"match",...}, counts, summaries, distances, MEMs)
// goes through it, so keys, separators and string escaping are written once.
#pragma once

#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "output.hpp"

namespace warpmatch::cli {

class JsonLine {
 public:
  /// Opens `{"type":"TYPE"`; end() closes the object and the line.
  JsonLine(fmt::memory_buffer& out, std::string_view type) : out_(out) {
    out_.append(std::string_view(R"({"type":)"));
    append_json_string(out_, type);
  }
  /// `,"key":` followed by an escaped string.
  JsonLine& string(std::string_view key, std::string_view value) {
    append_json_string(this->key(key), value);
    return *this;
  }
  /// A string, or null when absent (the record of a plain input).
  JsonLine& string_or_null(std::string_view key, std::optional<std::string_view> value) {
    if (value) return string(key, *value);
    return literal(key, "null");
  }
  /// A number (or any value fmt writes as JSON: integers, bool).
  template <class T>
  JsonLine& number(std::string_view key, const T& value) {
    fmt::format_to(std::back_inserter(this->key(key)), "{}", value);
    return *this;
  }
  /// Seconds and other measured values: six decimals.
  JsonLine& fixed6(std::string_view key, double value) {
    fmt::format_to(std::back_inserter(this->key(key)), "{:.6f}", value);
    return *this;
  }
  /// A value already in JSON (null, an array written by the caller after this call).
  JsonLine& literal(std::string_view key, std::string_view json) {
    this->key(key).append(json);
    return *this;
  }
  /// `,"key":` for a value the caller writes itself (arrays); returns the buffer.
  fmt::memory_buffer& key(std::string_view key) {
    out_.append(std::string_view(",\""));
    out_.append(key);
    out_.append(std::string_view("\":"));
    return out_;
  }
  void end() { out_.append(std::string_view("}\n")); }

 private:
  fmt::memory_buffer& out_;
};

}  // namespace warpmatch::cli
