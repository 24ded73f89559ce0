// libFuzzer entry of fuzz_input.hpp (built by the `fuzz` preset, run by scripts/fuzz.sh).
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_input_one(data, size);
}
