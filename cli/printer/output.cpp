#include "output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace warpmatch::cli {

WriteError::WriteError(int error_number)
    : std::runtime_error(std::string("write error: standard output: ") + std::strerror(error_number)),
      error_number_(error_number) {}

namespace {
void flush_or_throw(std::FILE* file) {
  errno = 0;
  if (std::fflush(file) != 0 || std::ferror(file)) {
    const int error = errno != 0 ? errno : EIO;
    std::clearerr(file);
    throw WriteError(error);
  }
}
}  // namespace

void flush_stdout_or_throw() { flush_or_throw(stdout); }

Output::Output(std::FILE* f) : file_(f), line_buffered_(::isatty(::fileno(f)) == 1) {}

void Output::flush() {
  if (capturing_) {
    keep_captured();
    return;
  }
  if (buf_.size() != 0) {
    const std::size_t size = buf_.size();
    buf_.clear();  // a failed write is not retried (the destructor flushes again); the bytes stay
    write_out(buf_.data(), size);
  }
  flush_or_throw(file_);
}

void Output::write_out(const char* data, std::size_t size) {
  errno = 0;
  const std::size_t written = std::fwrite(data, 1, size, file_);
  if (written != size) {
    const int error = errno != 0 ? errno : EIO;
    std::clearerr(file_);
    throw WriteError(error);
  }
}

void Output::append_from(Output& part) {
  fmt::memory_buffer& bytes = part.buf_;
  if (capturing_ || bytes.size() < (1u << 16)) {
    buf_.append(bytes);
    bytes.clear();
    maybe_flush();
    return;
  }
  // A large part is written from where it is, after what this one holds.
  const std::size_t held = buf_.size(), size = bytes.size();
  buf_.clear();  // as in flush(): not written twice; clear() keeps the bytes, only the size is reset
  bytes.clear();
  if (held != 0) write_out(buf_.data(), held);
  write_out(bytes.data(), size);
  if (line_buffered_) flush_or_throw(file_);
}

void append_escaped_text(fmt::memory_buffer& out, ByteSpan bytes) {
  static constexpr char hex[] = "0123456789abcdef";
  for (const std::uint8_t c : bytes) {
    if (c == '\\') {
      out.append(std::string_view("\\\\"));
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else if (c == '\t') {
      out.append(std::string_view("\\t"));
    } else if (c == '\n') {
      out.append(std::string_view("\\n"));
    } else if (c == '\r') {
      out.append(std::string_view("\\r"));
    } else {
      const char e[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
      out.append(e, e + 4);
    }
  }
}

namespace {
// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = 0;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) n = 3;
  else if (c >= 0xf0 && c <= 0xf4) n = 4;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  // Reject overlong forms, surrogates and code points above U+10FFFF.
  if (c == 0xe0 && b(i + 1) < 0xa0) return 0;
  if (c == 0xed && b(i + 1) > 0x9f) return 0;
  if (c == 0xf0 && b(i + 1) < 0x90) return 0;
  if (c == 0xf4 && b(i + 1) > 0x8f) return 0;
  return n;
}
}  // namespace

void append_json_string(fmt::memory_buffer& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (c >= 0x80) {
      if (const std::size_t n = utf8_sequence_length(s, i)) {
        out.append(s.data() + i, s.data() + i + n);
        i += n;
      } else {  // an invalid byte: emit its value as a code point so nothing is lost silently
        const char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        out.append(e, e + 6);
        ++i;
      }
    } else {
      const char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      out.append(e, e + 6);
      ++i;
    }
  }
  out.push_back('"');
}

namespace {
/// "N MiB" (rounded up), or "N bytes" under one MiB.
std::string mib_text(std::uint64_t bytes) {
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  if (bytes < kMiB) return std::to_string(bytes) + " bytes";
  return std::to_string((bytes + kMiB - 1) / kMiB) + " MiB";
}
}  // namespace

std::string out_of_memory_summary(const DeviceOutOfMemory& error) {
  std::string text = "GPU out of memory";
  if (error.needed_bytes() > 0 && error.limit_bytes() > 0)
    text += ": needs " + mib_text(error.needed_bytes()) + ", limit " + mib_text(error.limit_bytes());
  return text;
}

std::string out_of_memory_text(const DeviceOutOfMemory& error) {
  return out_of_memory_summary(error) + "; try --backend cpu or a larger --device-memory (" + error.what() + ")";
}

std::string Output::take_captured() {
  std::string bytes(buf_.data(), buf_.size());
  buf_.clear();
  overflowed_ = false;
  return bytes;
}

std::string input_error_text(const std::string& path, const std::exception& error) {
  if (const auto* oom = dynamic_cast<const DeviceOutOfMemory*>(&error))
    return fmt::format("warpmatch: {}: {}\n", path, out_of_memory_text(*oom));
  const std::string what = error.what();
  const bool names_input =
      what.rfind(path, 0) == 0 || (path == "-" && what.rfind("(standard input)", 0) == 0);
  return fmt::format("warpmatch: {}{}\n", names_input ? "" : path + ": ", what);
}

void report_input_error(const std::string& path, const std::exception& error) {
  std::fputs(input_error_text(path, error).c_str(), stderr);
}

}  // namespace warpmatch::cli
