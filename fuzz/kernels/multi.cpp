// fuzz_kernels (fuzz/fuzz_kernels.hpp), multi-pattern search: the tile kernel, the queued scan
// kernels (the 8-byte scan where the set takes it: DNA-like lines of >= 8 bytes) and MBNDM
// against the CPU backend's double loop.
#include <string>
#include <vector>

#include "../../tests/support/multi_emulation.hpp"
#include "../fuzz_kernels.hpp"
#include "../fuzz_ops.hpp"

namespace fuzz_kernels_detail {

using fuzz_ops_detail::disagree;

void fuzz_multi_kernels(const KernelInput& in) {
  namespace mu = multi_emulation;
  const std::vector<std::string> patterns = fuzz_ops_detail::lines_of(warpmatch::ByteSpan(in.block));
  if (patterns.empty() || in.text.empty()) return;
  const std::string text(in.text.begin(), in.text.end());
  const bool ci = (in.a & 1) != 0;
  const std::uint64_t owned = (in.b & 1) ? text.size() : 1 + in.wide() % text.size();
  const auto want = mu::expected(patterns, text, owned, ci, "naive");
  // multi_emulation::FastKernel: tile .. scan_key8 (8 kernels; scan_key8 with odd d is
  // scan_long_key, which sets of >= 12 bytes over two letters get), then MBNDM.
  const unsigned kernel = (in.a >> 1) % 9;
  if (kernel < 8) {
    const auto fast = kernel == 7 && (in.d & 1) ? mu::FastKernel::scan_long_key : static_cast<mu::FastKernel>(kernel);
    if (mu::emulate_fast(patterns, text, owned, ci, 1 + (in.b >> 1) % 8, fast) != want)
      disagree("multi: the tile or a scan kernel differs from the double loop");
    return;
  }
  const int page = 1 + static_cast<int>(in.wide() % 700);
  const unsigned threads = 32 * (1 + (in.b >> 1) % 3);
  const int keywords = 1 + (in.b >> 3) % 16;
  const unsigned blocks = 1 + in.d % 64;
  const mu::MbndmRun run = mu::emulate_mbndm(patterns, text, owned, ci, page, threads, keywords, blocks);
  if (run.matches != want) disagree("multi: the MBNDM kernel differs from the double loop");
  if (run.counted != want.size()) disagree("multi: the MBNDM kernel's count differs from the double loop");
}

}  // namespace fuzz_kernels_detail
