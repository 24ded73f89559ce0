// `--backend auto` in the commands: the job's shape (bytes, where they come from, patterns)
// estimated from the inputs' metadata and first bytes, then the cost model's choice
// (warpmatch/cost_model.hpp). Opening CUDA is left to the matcher, and only when chosen.
#pragma once

#include <string>
#include <vector>

#include "warpmatch/cost_model.hpp"

namespace warpmatch::cli {

/// The backend for `requested` ("cpu", "cuda", "auto") and the inputs `files` ("-" = stdin).
/// Explicit choices are returned as given (reason "--backend X").
BackendChoice resolve_backend_for(const std::string& requested, const std::vector<std::string>& files,
                                  JobShape shape);

}  // namespace warpmatch::cli
