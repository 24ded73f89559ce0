// Counts a word with the installed library (backend automatic: the GPU when there is one, the
// CPU otherwise; both give the same answer). Exit status 0 only when the count is right.
#include <cstdio>
#include <exception>
#include <string>

#include <warpmatch/warpmatch.hpp>

int main() {
  const std::string text = "the cat sat on the mat; the other cat read about concatenation";
  try {
    const auto matcher = warpmatch::ExactMatcher::compile(warpmatch::as_bytes("cat"));
    const std::uint64_t n = matcher.count(warpmatch::as_bytes(text));
    std::printf("warpmatch %s, backend %s: %llu occurrences of \"cat\"\n",
                warpmatch::build_info().version.c_str(),
                std::string(warpmatch::backend_name(matcher.backend())).c_str(),
                static_cast<unsigned long long>(n));
    return n == 3 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
