#include "core/host_affinity.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

namespace warpmatch::core {

namespace {

// Larger than any CPU number a list names is refused rather than allocated for.
constexpr int kMaxCpu = 1 << 16;

std::optional<int> parse_cpu_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 6) return std::nullopt;
  int value = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value >= kMaxCpu) return std::nullopt;
  return value;
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return line;
}

thread_local const std::vector<int>* preferred_cpus = nullptr;

}  // namespace

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::vector<int> cpus;
  if (text.empty()) return cpus;
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string_view entry = text.substr(begin, comma - begin);
    const std::size_t dash = entry.find('-');
    const auto first = parse_cpu_number(entry.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : parse_cpu_number(entry.substr(dash + 1));
    if (!first || !last || *last < *first) return std::nullopt;
    for (int cpu = *first; cpu <= *last; ++cpu) cpus.push_back(cpu);
    begin = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(std::span<const int> cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> cpus_from_mask(std::span<const std::uint64_t> words) {
  std::vector<int> cpus;
  for (std::size_t w = 0; w < words.size(); ++w)
    for (int bit = 0; bit < 64; ++bit)
      if ((words[w] >> bit) & 1u) cpus.push_back(static_cast<int>(w * 64) + bit);
  return cpus;
}

DeviceHostAffinity read_sysfs_host_affinity(const std::string& sysfs_root, std::string_view pci_bus_id) {
  DeviceHostAffinity affinity;
  std::string bus_id(pci_bus_id);
  for (char& c : bus_id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string dir = sysfs_root + "/bus/pci/devices/" + bus_id + "/";
  if (const auto cpus = parse_cpu_list(read_first_line(dir + "local_cpulist")); cpus && !cpus->empty()) {
    affinity.cpus = *cpus;
    affinity.source = "sysfs";
  }
  const std::string node = read_first_line(dir + "numa_node");
  if (const auto n = parse_cpu_number(node)) affinity.numa_node = *n;  // "-1" (no node) stays unknown
  return affinity;
}

std::vector<HostPlacement> plan_host_placement(std::span<const int> devices,
                                               std::span<const DeviceHostAffinity> known,
                                               std::span<const int> allowed) {
  std::vector<HostPlacement> placements;
  for (const int device : devices) {
    HostPlacement p;
    p.device = device;
    const auto it = std::find_if(known.begin(), known.end(),
                                 [&](const DeviceHostAffinity& a) { return a.ordinal == device; });
    if (it == known.end() || it->cpus.empty()) {
      p.reason = "its CPUs are unknown (neither NVML nor sysfs said)";
    } else {
      p.numa_node = it->numa_node;
      p.source = it->source;
      std::set_intersection(it->cpus.begin(), it->cpus.end(), allowed.begin(), allowed.end(),
                            std::back_inserter(p.cpus));
      if (p.cpus.empty()) {
        p.reason = "none of its CPUs (" + format_cpu_list(it->cpus) + ") is one this process may use";
      } else if (p.cpus.size() == allowed.size()) {
        p.cpus.clear();
        p.reason = "every CPU this process may use is near it";
      }
    }
    placements.push_back(std::move(p));
  }
  return placements;
}

std::string describe_host_placement(std::span<const HostPlacement> placements) {
  std::string out;
  for (const HostPlacement& p : placements) {
    if (!out.empty()) out += ", ";
    out += "GPU " + std::to_string(p.device);
    if (p.cpus.empty()) {
      out += " not pinned: " + p.reason;
      continue;
    }
    out += " on CPUs " + format_cpu_list(p.cpus) + " (";
    if (p.numa_node >= 0) out += "NUMA node " + std::to_string(p.numa_node) + ", ";
    out += p.source + ")";
  }
  return out;
}

std::vector<int> current_thread_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0) return {};
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

bool pin_current_thread(std::span<const int> cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  bool any = false;
  for (const int cpu : cpus)
    if (cpu >= 0 && cpu < CPU_SETSIZE) {
      CPU_SET(cpu, &set);
      any = true;
    }
  return any && pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

ThreadPlacementScope::ThreadPlacementScope(const HostPlacement& placement) : preferred_before_(preferred_cpus) {
  if (placement.cpus.empty()) return;
  cpus_before_ = current_thread_cpus();
  if (cpus_before_.empty() || !pin_current_thread(placement.cpus)) return;
  pinned_ = true;
  preferred_cpus = &placement.cpus;
}

ThreadPlacementScope::~ThreadPlacementScope() {
  if (!pinned_) return;
  pin_current_thread(cpus_before_);
  preferred_cpus = preferred_before_;
}

const std::vector<int>& thread_placement_cpus() {
  static const std::vector<int> none;
  return preferred_cpus ? *preferred_cpus : none;
}

}  // namespace warpmatch::core
