// Sizes written as text ("4096", "64K", "256M", "1G"): the CLI's size options, the
// benchmark's, and the device-memory cap of WARPMATCH_DEVICE_MEMORY_LIMIT.
#pragma once

#include <cstdint>
#include <string_view>

namespace warpmatch::core {

/// Bytes a size names: a whole number with an optional binary suffix (K/KiB/k, M/MiB,
/// G/GiB, B). InvalidArgument naming the text for anything else or a size over 2^64 - 1.
std::uint64_t parse_size(std::string_view text);

}  // namespace warpmatch::core
