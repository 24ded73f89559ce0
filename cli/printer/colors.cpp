// GREP_COLORS (cli/printer/printers.hpp, namespace colors): grep's capabilities read once.
#include <cstdlib>

#include "printers.hpp"

namespace warpmatch::cli::colors {

Palette parse_grep_colors(std::string_view spec) {
  Palette p;
  bool erase_line = true;  // "\x1b[K" after each start and end, unless ne
  struct Cap {
    std::string_view name;
    std::string value;
    bool set = false;
  };
  Cap fn{"fn", {}, false}, ln{"ln", {}, false}, bn{"bn", {}, false}, se{"se", {}, false}, ms{"ms", {}, false},
      mc{"mc", {}, false};
  Cap* const named[] = {&fn, &ln, &bn, &se, &ms, &mc};
  while (!spec.empty()) {
    const std::size_t colon = spec.find(':');
    const std::string_view entry = spec.substr(0, colon);
    spec = colon == std::string_view::npos ? std::string_view() : spec.substr(colon + 1);
    const std::size_t equals = entry.find('=');
    const std::string_view name = entry.substr(0, equals);
    if (equals == std::string_view::npos) {  // a boolean
      if (name == "ne") erase_line = false;
      else if (name != "rv" && !name.empty()) break;
      continue;
    }
    const std::string_view value = entry.substr(equals + 1);
    if (value.find_first_not_of("0123456789;") != std::string_view::npos) break;  // malformed
    if (name == "mt") {
      ms.value = mc.value = std::string(value);
      ms.set = mc.set = true;
      continue;
    }
    for (Cap* cap : named)
      if (cap->name == name) {
        cap->value = std::string(value);
        cap->set = true;
      }
  }
  const std::string erase = erase_line ? "\x1b[K" : "";
  const auto start = [&](const Cap& cap, const std::string& fallback) -> std::string {
    const std::string value = cap.set ? cap.value : fallback;
    return value.empty() ? std::string() : "\x1b[" + value + "m" + erase;
  };
  p.file_name = start(fn, "35");
  p.line_number = start(ln, "32");
  p.byte_offset = start(bn, "32");
  p.separator = start(se, "36");
  p.selected_match = start(ms, "01;31");
  p.context_match = start(mc, "01;31");
  p.end = "\x1b[m" + erase;
  return p;
}

const Palette& palette() {
  static const Palette p = [] {
    const char* spec = std::getenv("GREP_COLORS");
    return parse_grep_colors(spec ? spec : "");
  }();
  return p;
}

}  // namespace warpmatch::cli::colors
