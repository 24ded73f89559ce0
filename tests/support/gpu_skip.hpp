// The skip of a GPU test on a machine without one: visible in the test log (GTEST_SKIP with
// a message), never a silent pass.
#pragma once

#include <gtest/gtest.h>

#include "warpmatch/common.hpp"

#define SKIP_WITHOUT_GPU()                                                                   \
  do {                                                                                       \
    if (::warpmatch::cuda_devices().empty()) GTEST_SKIP() << "no CUDA GPU: skipping GPU test"; \
  } while (0)
