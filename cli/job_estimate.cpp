#include "job_estimate.hpp"

#include <algorithm>

#include "io/input_estimate.hpp"

namespace warpmatch::cli {

BackendChoice resolve_backend_for(const std::string& requested, const std::vector<std::string>& files,
                                  JobShape shape) {
  if (requested != "auto") {
    BackendChoice c;
    c.backend = parse_backend(requested);
    c.reason = "--backend " + requested;
    return c;
  }
  // The whole job's bytes; its input rate is that of the largest input.
  std::uint64_t total = 0, largest = 0;
  bool unknown = false;
  for (const std::string& f : files) {
    const io::InputEstimate s = io::estimate_input(f, shape.threads);
    if (s.bytes == 0 && s.source == TextSource::stream) unknown = true;
    total += s.bytes;
    if (s.bytes >= largest) largest = s.bytes, shape.source = s.source;
  }
  shape.text_bytes = unknown ? 0 : total;
  return choose_backend(shape);
}

}  // namespace warpmatch::cli
