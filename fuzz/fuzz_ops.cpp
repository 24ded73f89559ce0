// libFuzzer entry of fuzz_ops.hpp (built by the `fuzz` preset, run by scripts/fuzz.sh).
#include "fuzz_ops.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_ops_one(data, size);
}
