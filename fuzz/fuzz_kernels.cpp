// libFuzzer entry of fuzz_kernels.hpp (built by the `fuzz` preset, run by scripts/fuzz.sh).
#include "fuzz_kernels.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_kernels_one(data, size);
}
