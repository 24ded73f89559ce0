// CUDA pigeonhole seed filter for sets of short approximate patterns (issue 15): the host side
// of src/cuda/approx/seed_filter.cu, called by cuda::approx_scan (dispatch.cu) instead of the
// set kernel when the set qualifies (core::plan_seeds) and the pieces are rare enough in the
// text that verifying their windows is far less work than running every pattern everywhere.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "core/approx_pattern.hpp"
#include "core/seed_plan.hpp"

namespace warpmatch::cuda {

/// A plan uploaded to one device; immutable, shared by every scan.
class SeedFilterDevice;

/// Uploads `plan` (the caller has made `device` current).
std::shared_ptr<const SeedFilterDevice> seed_filter_upload(std::unique_ptr<const core::SeedPlan> plan, int device);

/// The plan it holds (its members, queries' k, and the table).
const core::SeedPlan& seed_filter_plan(const SeedFilterDevice& filter);

/// Whether the filter is the better route for this text on the GPU: its pieces' occurrences
/// counted on a sample of the text (host), their verification work against the set kernel's
/// (every pattern at every byte); see seed_filter.cu.
bool seed_filter_pays(const SeedFilterDevice& filter, ByteSpan text);

/// For each pattern (out has `patterns` entries, indexed like the caller's list), the ends with
/// distance <= k ascending, as the set kernel gives them; nullopt when the hits outgrow the
/// filter's buffer cap (a flood: the caller runs the set kernel, which splits its launches).
std::optional<std::vector<std::vector<core::EndHit>>> seed_filter_scan(const SeedFilterDevice& filter, ByteSpan text,
                                                                       std::size_t patterns);

}  // namespace warpmatch::cuda
