// The emulation drivers' own consistency checks (tests/support/*_emulation.hpp): a launch's
// passes that must agree, hits within their buffer, shared memory within its array. A failed
// check throws, so a test fails with its message and a fuzz target stops with a finding.
#pragma once

#include <stdexcept>
#include <string>

namespace emu {

struct CheckFailed : std::logic_error {
  using std::logic_error::logic_error;
};

inline void check(bool ok, const std::string& what) {
  if (!ok) throw CheckFailed("emulation: " + what);
}

}  // namespace emu
